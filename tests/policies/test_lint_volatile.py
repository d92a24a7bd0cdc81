"""PL505 and the trace report on prefixlock's own volatile text.

`Session.send(text, volatile=[...])` sends one-off text (a date, a reminder) after the last
cache breakpoint of the newest user turn and, on Anthropic and OpenAI, leaves it out of the next
request. The cache loses nothing by that (the emulator reports growing reads), so neither
`lint` nor `lint --report` may call it a history rewrite. Sessions are recorded on the emulator
through the real Agent and exported by the real store, per provider, so a change to how any provider
places volatile text is linted as it is sent. Edits before the breakpoint stay PL505. On
DeepSeek (whole-prompt units) dropping the text would lose the conversation, so the SDK keeps it
in the history there, and that session lints clean too.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.billing.prices import PriceTable
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.policies.report import build_report
from prefixlock.policies.tracecheck import check_trace
from prefixlock.store.database import SessionStore
from prefixlock.tools import tool
from tests.policies.lint_tracegen import anthropic_bodies, gpt56_bodies, openai_bodies, write_trace

PRICES = PriceTable.builtin()


@tool
def list_files(path: str) -> str:
    """List the files under a folder."""
    return "src/app.py\nsrc/util.py\ntests/test_app.py\n"


async def record(tmp_path: Path, model: str, volatile: bool = True) -> tuple[Path, list[int]]:
    """A 4-turn session (the emulator's script calls tools in the first turns, so volatile text
    also rides on tool-result requests), exported as prefixlock's JSONL trace; with the cache
    reads the emulator reported, request by request."""
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 400, tools=[list_files])
    store = SessionStore(tmp_path / "store.sqlite")
    clock = ManualClock()
    try:
        with Emulator.start(clock=clock) as emu:
            agent = Agent(
                prefix,
                model=model,
                api_key="test-key",
                base_url=emu.base_url,
                clock=clock,
                store=store,
            )
            async with agent.session("s") as s:
                for i in range(4):
                    clock.advance(30)
                    extra = [f"Now: 2026-12-01 10:0{i}:00"] if volatile else []
                    await s.ask(f"Step {i}.", volatile=extra)
                reads = [row.usage.cache_read for row in s.ledger.rows]
        buf = io.StringIO()
        store.export_jsonl("s", buf)
    finally:
        store.close()
    path = tmp_path / "trace.jsonl"
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path, reads


MODELS = [
    "claude-sonnet-4-6",
    "gpt-5.4",
    "openai-responses:gpt-5.4",
    "gpt-5.6-terra",
    "openai-responses:gpt-5.6-terra",
]


@pytest.mark.parametrize("model", MODELS)
async def test_prefixlock_volatile_text_is_not_a_history_rewrite(
    tmp_path: Path, model: str
) -> None:
    path, reads = await record(tmp_path, model)
    bodies = [json.loads(line)["body"] for line in path.read_text().splitlines()]
    assert len(bodies) > 4  # tool steps too
    assert all("Now: 2026-12-01" in json.dumps(b) for b in bodies)
    # The premise: every request after the first read the cache, further as the chat grew
    # (OpenAI before gpt-5.6 counts in 128-token steps, so two may read the same).
    assert reads[1] > 0 and all(b >= a for a, b in itertools.pairwise(reads[1:])), reads
    assert reads[-1] > reads[1], reads
    assert check_trace(str(path), PRICES) == []
    report = build_report(str(path), PRICES)
    assert report.sessions[0].breaks == []
    assert report.sessions[0].rebilled_tokens == 0


async def test_deepseek_volatile_text_stays_in_the_history(tmp_path: Path) -> None:
    """DeepSeek stores whole units at the end of each request's input and output. Dropping the
    volatile text would leave only the fixed prefix to match (every request re-billed the
    conversation, a real PL505); the SDK keeps it in the user message instead, so each request
    is the previous one plus its reply plus new messages: the stored unit matches, reads grow,
    and there is nothing for `lint` or `lint --report` to flag."""
    path, reads = await record(tmp_path, "deepseek-v4-flash")
    bodies = [json.loads(line)["body"] for line in path.read_text().splitlines()]
    assert len(bodies) > 4
    for before, after in itertools.pairwise(bodies):  # a pure append, volatile text included
        assert after["messages"][: len(before["messages"])] == before["messages"]
    sent = json.dumps(bodies[-1])
    assert all(f"Now: 2026-12-01 10:0{i}:00" in sent for i in range(4))
    assert reads[1] > 0 and all(b > a for a, b in itertools.pairwise(reads[1:])), reads
    _, plain = await record(tmp_path / "plain", "deepseek-v4-flash", volatile=False)
    assert reads[-1] > plain[-1]  # the same conversation, plus the volatile text read back
    assert check_trace(str(path), PRICES) == []
    report = build_report(str(path), PRICES)
    assert report.sessions[0].breaks == []
    assert report.sessions[0].rebilled_tokens == 0


def _codes(path: Path) -> list[str]:
    return sorted(f.code for f in check_trace(str(path), PRICES))


def _anthropic_volatile(edit_marked: bool) -> list[dict[str, Any]]:
    """prefixlock's Anthropic shape: a breakpoint on the newest user text, volatile after it;
    `edit_marked` also rewrites the marked text of the first question (a real rewrite)."""
    bodies = anthropic_bodies(3)
    for t, item in enumerate(bodies):
        body = item["body"]
        del body["cache_control"]
        for m in body["messages"]:
            if m["role"] == "user":
                m["content"] = [{"type": "text", "text": m["content"]}]
        newest = body["messages"][-1]["content"]
        newest[0]["cache_control"] = {"type": "ephemeral"}
        newest.append({"type": "text", "text": f"Now: 10:0{t}"})
        if edit_marked and t == 2:
            body["messages"][0]["content"][0]["text"] += " (edited)"
    return bodies


def test_anthropic_edit_after_the_breakpoint_only_is_clean(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.jsonl", _anthropic_volatile(edit_marked=False))
    assert _codes(path) == []
    assert build_report(str(path), PRICES).sessions[0].breaks == []


def test_anthropic_edit_before_the_breakpoint_is_still_pl505(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.jsonl", _anthropic_volatile(edit_marked=True))
    assert _codes(path) == ["PL505"]
    breaks = build_report(str(path), PRICES).sessions[0].breaks
    assert [b.cause for b in breaks] == ["history rewritten"]
    assert breaks[0].rebilled_tokens > 0


def test_anthropic_without_breakpoints_still_reports_edits(tmp_path: Path) -> None:
    """Nothing was cached, but the rewrite is a bug waiting for the first breakpoint."""

    def drop(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        del body["cache_control"]
        del body["system"][0]["cache_control"]
        if t == 2:
            body["messages"][-1]["content"] += " (edited)"
            body["messages"][0]["content"] += " (edited)"

    assert "PL505" in _codes(write_trace(tmp_path / "t.jsonl", anthropic_bodies(3, mutate=drop)))


def test_openai_automatic_newest_message_may_change_earlier_may_not(tmp_path: Path) -> None:
    def volatile(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["messages"].append({"role": "user", "content": f"Now: 10:0{t}"})

    ok = write_trace(tmp_path / "ok.jsonl", openai_bodies(4, mutate=volatile))
    assert _codes(ok) == []
    assert build_report(str(ok), PRICES).sessions[0].breaks == []

    def earlier(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        volatile(t, body, rec)
        if t == 3:
            body["messages"][1]["content"] = "Reminder: be brief. " + body["messages"][1]["content"]

    assert _codes(write_trace(tmp_path / "bad.jsonl", openai_bodies(4, mutate=earlier))) == [
        "PL505"
    ]


@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_gpt56_volatile_after_the_mark_is_clean_the_marked_item_is_not(
    tmp_path: Path, mode: str
) -> None:
    def volatile(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["messages"].append({"role": "user", "content": f"Now: 10:0{t}"})

    ok = write_trace(tmp_path / "ok.jsonl", gpt56_bodies(4, mode=mode, mutate=volatile))
    assert _codes(ok) == []
    assert build_report(str(ok), PRICES).sessions[0].breaks == []

    def marked(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        volatile(t, body, rec)
        if t == 3:  # the question request 2 marked
            body["messages"][-4]["content"][0]["text"] += " (edited)"

    bad = write_trace(tmp_path / "bad.jsonl", gpt56_bodies(4, mode=mode, mutate=marked))
    assert "PL505" in _codes(bad)
