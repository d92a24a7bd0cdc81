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


def _walk(layout: Layout, path: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Every value's range and hash (and its children's), read in a fixed order."""
    out: dict[tuple[Any, ...], tuple[Any, ...]] = {path: (layout[path], layout.digest(path))}
    for key, *_ in layout.children(path) or ():
        out.update(_walk(layout, (*path, key)))
    return out


def _next_turn(body: dict[str, Any], **changes: Any) -> dict[str, Any]:
    turn = {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    return {**body, "messages": [*body["messages"], turn], **changes}


NEXT = {
    "a turn added": _next_turn(BODY),
    "nothing added": BODY,
    "a longer number": {**BODY, "max_tokens": 10240},
    "a middle message changed": {
        **BODY,
        "messages": [BODY["messages"][0], {"role": "assistant", "content": "x"}],
    },
    "a marker moved in": _next_turn(
        {**BODY, "system": [{**BODY["system"][0], "cache_control": {"type": "ephemeral"}}]}
    ),
    "keys in another order": dict(reversed(_next_turn(BODY).items())),
    "the tail cut": {k: BODY[k] for k in ("model", "max_tokens", "system")},
}


@pytest.mark.parametrize("after", NEXT.values(), ids=NEXT.keys())
@pytest.mark.parametrize("separators", [(", ", ": "), (",", ":")])
def test_a_layout_that_reuses_the_previous_ones_finds_what_a_fresh_one_does(
    after: dict[str, Any], separators: tuple[str, str]
) -> None:
    # The next request of a conversation repeats the last one's bytes up to what changed.
    first = Layout(json.dumps(BODY, separators=separators).encode())
    _walk(first)  # its ranges and hashes found, as session detection finds them
    raw = json.dumps(after, separators=separators).encode()
    reusing, fresh = Layout(raw, previous=first), Layout(raw)
    assert _walk(reusing) == _walk(fresh)
    assert reusing.marked == fresh.marked or reusing.marked  # a maybe costs time, not truth
    first.document()
    assert reusing.document() == fresh.document() == json.loads(raw)  # values, shared or not
    assert reusing.item_hashes("anthropic", after) == fresh.item_hashes("anthropic", after)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1, "b": [1, 2], "a": 2}',  # a duplicate key past the shared bytes
        b'{"a": 1, "b": [1, 2, ], "c": 3}',  # a comma before a closing bracket
    ],
    ids=["duplicate-key", "trailing-comma"],
)
def test_a_reusing_layout_refuses_what_a_fresh_one_refuses(raw: bytes) -> None:
    first = Layout(b'{"a": 1, "b": [1, 2]}')
    first.children(("b",))
    first.document()
    with pytest.raises(JsonSpanError):
        _walk(Layout(raw, previous=first))
    with pytest.raises(JsonSpanError):
        Layout(raw, previous=first).document()
    with pytest.raises(JsonSpanError):
        _walk(Layout(raw))


def test_chains_continued_from_the_last_request_are_the_chains_taken_afresh() -> None:
    # The tracker continues a scope's last chain where the items repeat; any divergence
    # (a rewritten message, another conversation) must give the hashes a fresh chain gives.
    tracker = SessionTracker()

    def check(items: tuple[str, ...]) -> None:
        got = tracker._chained("root", "anthropic", items)
        assert got == tuple(SessionTracker._chain("root", "anthropic", items))
        keys = tracker._keys("root", "anthropic", got)
        assert keys == tuple(SessionTracker._key(h) for h in got)

    for items in [
        ("a", "b"),
        ("a", "b", "c", "d"),  # continued
        ("a", "x", "c"),  # rewritten from the second
        ("a", "x", "c", "e", "f"),
        ("z",),  # another conversation
        (),
        ("a", "b", "c", "d"),
    ]:
        check(items)
