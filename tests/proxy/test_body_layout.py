"""`layout.Layout`: the byte ranges it finds are the ones the full scan (`jsonspan.spans`)
finds, on bodies spaced and escaped as real clients send them; bytes it cannot explain (a
duplicate key) raise instead of giving a wrong range; and hashes ignore where a client moved
its cache markers, so one conversation stays one session."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prefixlock.proxy.jsonspan import JsonSpanError, spans
from prefixlock.proxy.layout import Layout
from prefixlock.proxy.repair import DEFAULT_FIXES, repair
from prefixlock.proxy.sessions import SessionTracker

BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": 'You are "terse".\n\u00e9\u4e2d \\ end'}],
    "tools": [
        {"name": "read", "description": "Read a file", "input_schema": {"type": "object"}},
        {"name": "write", "description": "", "input_schema": {"properties": {}}},
    ],
    "messages": [
        {"role": "user", "content": "hi {not json} [x]"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "text"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": []}]},
    ],
    "metadata": {},
    "stream": False,
    "temperature": 0.5,
}

SERIALIZATIONS = {
    "python default": json.dumps(BODY).encode(),
    "compact": json.dumps(BODY, separators=(",", ":")).encode(),
    "ascii off": json.dumps(BODY, ensure_ascii=False).encode(),
    "indented": json.dumps(BODY, indent=2).encode(),
    "padded": b"  \r\n" + json.dumps(BODY, indent="\t").encode() + b"\n ",
}


@pytest.mark.parametrize("raw", SERIALIZATIONS.values(), ids=SERIALIZATIONS.keys())
def test_every_range_is_the_full_scans(raw: bytes) -> None:
    expected = spans(raw, depth=4)
    layout = Layout(raw)
    for path, where in expected.items():
        assert layout[path] == where, path
        assert path in layout
    assert ("messages", 3) not in layout and ("nope",) not in layout


def test_a_duplicate_key_is_not_explained() -> None:
    raw = b'{"messages": [{"role": "user", "content": "a", "content": "longer text"}]}'
    with pytest.raises(JsonSpanError):
        Layout(raw).children(("messages", 0))


def test_a_repair_of_a_body_with_a_duplicate_key_still_lands_in_place() -> None:
    raw = (
        b'{"model": "m", "model": "claude-sonnet-4-6", "max_tokens": 5, '
        b'"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}'
    )
    body = json.loads(raw)
    tracker = SessionTracker()
    match = tracker.identify("anthropic", body, "c")
    fixed = repair("anthropic", body, raw, match, DEFAULT_FIXES)
    assert fixed.applied == ("breakpoint:tail",)
    assert json.loads(fixed.raw)["messages"][0]["content"][0]["cache_control"] == {
        "type": "ephemeral"
    }


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("separators", [(", ", ": "), (",", ":")])
def test_a_moved_marker_leaves_the_hashes_alone(where: str, separators: tuple[str, str]) -> None:
    mark = {"cache_control": {"type": "ephemeral"}}
    block = {"type": "text", "text": "the question"}
    marked = {
        "first": {**mark, **block},
        "middle": {"type": "text", **mark, "text": "the question"},
        "last": {**block, **mark},
    }[where]

    def body(blocks: list[Any]) -> dict[str, Any]:
        return {"model": "m", "messages": [{"role": "user", "content": blocks}]}

    plain = Layout(json.dumps(body([block]), separators=separators).encode())
    moved = Layout(json.dumps(body([marked]), separators=separators).encode())
    assert plain.item_hashes("anthropic", body([block])) == moved.item_hashes(
        "anthropic", body([marked])
    )
    assert plain.unmarked(("messages", 0)) == moved.unmarked(("messages", 0))


def test_a_client_moving_its_marker_each_turn_stays_one_session() -> None:
    tracker = SessionTracker()
    messages: list[dict[str, Any]] = []
    sessions = set()
    for turn in range(4):
        # The client marks only its newest message, as Anthropic's docs show.
        for m in messages:
            m["content"] = [
                {k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]
            ]
        messages.append(
            {
                "role": "user" if turn % 2 == 0 else "assistant",
                "content": [
                    {"type": "text", "text": f"turn {turn}", "cache_control": {"type": "ephemeral"}}
                ],
            }
        )
        body = {"model": "m", "system": "s", "messages": messages}
        raw = json.dumps(body).encode()
        match = tracker.identify("anthropic", body, "c", layout=Layout(raw))
        tracker.remember(match, "anthropic", body, "c")
        sessions.add(match.session_id)
    assert len(sessions) == 1
