"""Images and documents in user turns, through the official SDKs over HTTP to the emulator:
each API gets its own block shapes (Anthropic `image`/`document`, Chat `image_url`/`file`,
Responses `input_image`/`input_file`), the picture is counted by the provider's documented rule
(not by its base64), it is cached like text (the next turn reads it, the guard predicted it),
and a session resumed from the store sends the same bytes (the store keeping the base64 once)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from prefixlock import (
    Agent,
    CacheBreak,
    Document,
    FrozenPrefix,
    Image,
    SessionStore,
    UsageReport,
    UserError,
)
from prefixlock.cache.media import anthropic_image_tokens, openai_image_tokens, pdf_tokens
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.testing import sample_pdf, sample_png

SYSTEM = "You read screenshots and invoices and answer in one line.\n" * 200
PNG = sample_png(1000, 800)
PDF = sample_pdf(["Invoice INV-7", "Total 123.45 EUR"])


def agent_for(emu: Emulator, model: str, store: SessionStore | None = None) -> Agent:
    return Agent(
        FrozenPrefix(system=SYSTEM),
        model=model,
        base_url=emu.base_url,
        api_key="test-key",
        clock=emu.clock,
        store=store,
    )


async def _turns(s: Any, turns: list[Any]) -> list[list[Any]]:
    return [[e async for e in s.send(t)] for t in turns]


def _plain(messages: list[Any]) -> str:
    """Messages without their breakpoint markers (which move from turn to turn), as bytes."""
    return json.dumps(
        [
            {
                **m,
                "content": [
                    {k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]
                ],
            }
            for m in messages
        ],
        sort_keys=True,
    )


def _usage(events: list[Any]) -> UsageReport:
    return [e for e in events if isinstance(e, UsageReport)][-1]


TURNS: list[Any] = [
    ["What is in this picture?", Image.from_bytes(PNG)],
    ["And this invoice?", Document.from_bytes(PDF, title="inv.pdf")],
    "thanks",
]


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        ("claude-sonnet-4-6", "anthropic"),
        ("openai-chat:gpt-5", "openai"),
        ("openai-responses:gpt-5", "openai"),
    ],
)
async def test_media_is_counted_by_rule_and_cached(model: str, rule: str) -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, model).session() as s:
            turns = await _turns(s, TURNS)
            plain = await _turns(s, ["no picture here"])
        bodies = [r.body for r in emu.requests]
    image = (
        anthropic_image_tokens(1000, 800)
        if rule == "anthropic"
        else (openai_image_tokens(1000, 800))
    )
    doc = pdf_tokens("anthropic" if rule == "anthropic" else "openai", PDF)
    u = [_usage(t).usage for t in turns]
    total = [x.uncached_input + x.cache_read + x.cache_write_5m + x.cache_write_1h for x in u]
    # The picture and the PDF cost what the rules say, not their base64 length (~10K chars).
    assert 0 < total[1] - total[0] - doc < 200
    assert u[1].cache_read >= total[0] - 128  # the picture was cached with the turn
    assert u[2].cache_read >= total[1] - 128
    text_only = _usage(plain[0]).usage
    assert text_only.cache_read >= total[2] - 128
    assert image > 700
    # Nothing broke the cache, and the guard predicted the reads.
    assert not [e for t in turns for e in t if isinstance(e, CacheBreak)]
    for t in turns[1:]:
        report = _usage(t)
        assert report.predicted_read is not None
        assert abs(report.predicted_read - report.usage.cache_read) <= 128
    wire = json.dumps(bodies[-1])
    if model.startswith("claude"):
        assert '"type": "image"' in wire and '"type": "document"' in wire
        first = bodies[0]["messages"][0]["content"]
        assert first[1]["source"]["media_type"] == "image/png"
        assert "cache_control" in first[-1]  # the breakpoint sits on the picture
    elif model.startswith("openai-responses"):
        assert '"type": "input_image"' in wire and '"type": "input_file"' in wire
        assert '"filename": "inv.pdf"' in wire
    else:
        assert '"type": "image_url"' in wire and '"type": "file"' in wire
        assert "data:image/png;base64," in wire and "data:application/pdf;base64," in wire


async def test_resumed_session_sends_the_same_bytes_and_the_store_keeps_one_copy(
    tmp_path: Path,
) -> None:
    big = sample_png(6000, 60, seed=3)  # a wide noise row: ~8 KB of base64
    assert len(base64.b64encode(big)) > 4_000
    with Emulator.start(clock=ManualClock()) as emu:
        store = SessionStore(tmp_path / "s.sqlite")
        agent = agent_for(emu, "claude-sonnet-4-6", store)
        async with agent.session() as s:
            await _turns(s, [["Look:", Image.from_bytes(big)], "and again"])
            sid = s.id
            expected = s.previous_request
        n = len(emu.requests)
        async with agent.resume(sid) as again:
            events = [e async for e in again.send("one more")]
        resumed = emu.requests[n].body
        stored = [r.body for r in store.requests(sid)]
        blob_bytes = store.stats()["blob_bytes"]
        store.close()
    assert expected is not None
    # The resumed request repeats the earlier one's messages byte for byte, image included.
    assert _plain(resumed["messages"][:3]) == _plain(expected.body["messages"][:3])
    assert _usage(events).usage.cache_read > 3_000  # the cache stayed warm
    # Every stored body comes back exact (the image restored from its one blob) ...
    assert (
        stored[0]["messages"][0]["content"][1]["source"]["data"] == base64.b64encode(big).decode()
    )
    # ... and the store holds the base64 once, not once per message and request row.
    assert blob_bytes < len(base64.b64encode(big)) * 1.5 + 60_000


@pytest.mark.parametrize(
    ("part", "message"),
    [
        (lambda: Image.from_bytes(b"hello, not a picture"), "not an image"),
        (lambda: Image.from_bytes(PNG, media_type="image/jpeg"), "is image/png, not image/jpeg"),
        (lambda: Image.from_url("file:///etc/passwd"), "not an http"),
        (lambda: Document.from_bytes(b"%PDF", "application/zip"), "unsupported document"),
        (lambda: Document.from_bytes(b"\xff\xfe", "text/plain"), "must be UTF-8"),
        (lambda: Document.from_path("no-such-file.pdf"), "cannot read"),
    ],
)
def test_bad_media_is_one_clear_error(part: Any, message: str) -> None:
    with pytest.raises(UserError, match=message):
        part()


async def test_a_part_of_another_type_is_refused_before_anything_is_sent() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, "claude-sonnet-4-6").session() as s:
            with pytest.raises(UserError, match=r"str, Image or Document, not bytes"):
                s.send(["look", PNG])  # type: ignore[list-item]
        assert not emu.requests


async def test_chat_refuses_a_document_by_url_with_the_way_out() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, "openai-chat:gpt-5").session() as s:
            with pytest.raises(UserError, match="openai-responses"):
                await s.ask(["read", Document.from_url("https://example.com/a.pdf")])
        assert not emu.requests


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "openai-responses:gpt-5"])
async def test_image_by_url_is_sent_as_a_url(model: str) -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, model).session() as s:
            await s.ask(["what is this?", Image.from_url("https://example.com/cat.png")])
        wire = json.dumps(emu.requests[0].body)
    assert "https://example.com/cat.png" in wire


@pytest.mark.parametrize(
    "model", ["claude-sonnet-4-6", "openai-chat:gpt-5", "openai-responses:gpt-5"]
)
async def test_detail_low_is_openai_only_and_counted_by_it(model: str) -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, model).session() as s:
            plain = _usage([e async for e in s.send("hello")]).usage
            events = [
                e
                async for e in s.send(
                    ["small?", Image.from_bytes(sample_png(2000, 2000), detail="low")]
                )
            ]
            request = s.previous_request
        body = emu.requests[-1].body
    assert request is not None
    # The builder's incremental units are the ones the body cuts into (detail stripped or not).
    assert request.units == request.recomputed_units()
    grew = _usage(events).usage.input_total - plain.input_total
    if model.startswith("claude"):
        assert '"detail"' not in json.dumps(body)  # not an Anthropic field
        assert grew > 1_500  # Anthropic counts the picture by its size
    else:
        assert '"detail": "low"' in json.dumps(body)
        assert grew < 300  # 85 for the picture (high: 765), the reply and the text around


def test_detail_must_be_one_of_three() -> None:
    with pytest.raises(UserError, match="detail must be"):
        Image.from_bytes(PNG, detail="medium")  # type: ignore[arg-type]


def test_text_document_is_text() -> None:
    block = Document.from_text("hello world", title="notes").block()
    assert block == {
        "type": "document",
        "title": "notes",
        "source": {"type": "text", "media_type": "text/plain", "data": "hello world"},
    }
