"""The proxy's pure parts: byte spans in a JSON body, session detection, and the repairs (which
only insert cache hints, leaving every byte the client sent in place)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prefixlock.proxy.jsonspan import JsonSpanError, spans
from prefixlock.proxy.repair import FixError, parse_fixes, repair
from prefixlock.proxy.sessions import SessionTracker, client_hash

ALL = parse_fixes("")
MARK = {"type": "ephemeral"}


def _strip(raw: bytes, inserted: bytes) -> bytes:
    return raw.replace(b"," + inserted, b"").replace(inserted, b"")


def test_spans_point_at_each_value_in_any_spacing() -> None:
    doc = {"a": [1, {"b": 'x"}]y', "c": None}], "d": {"e": [True, 2.5e3, "\u00e9"]}}
    for raw in (
        json.dumps(doc).encode(),
        json.dumps(doc, indent=3, ensure_ascii=False).encode(),
        json.dumps(doc, separators=(",", ":")).encode(),
    ):
        at = spans(raw, depth=4)
        for path, (start, end) in at.items():
            value: Any = doc
            for key in path:
                value = value[key]
            assert json.loads(raw[start:end]) == value


def test_spans_refuse_a_broken_document() -> None:
    with pytest.raises(JsonSpanError):
        spans(b'{"a": [1, 2}')
    with pytest.raises(JsonSpanError):
        spans(b'{"a": 1} x')


def _anthropic(messages: list[Any], system: Any = "You are helpful.") -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 100,
        "system": system,
        "tools": [{"name": "read", "description": "d", "input_schema": {"type": "object"}}],
        "messages": messages,
    }


def _through(tracker: SessionTracker, body: dict[str, Any], fixes: Any = ALL) -> tuple[Any, Any]:
    raw = json.dumps(body, indent=1).encode()  # a spacing the proxy must keep
    match = tracker.identify("anthropic", body, "k")
    fixed = repair("anthropic", body, raw, match, fixes)
    tracker.remember(match, "anthropic", body, "k")
    return raw, fixed


def test_anthropic_breakpoints_on_tools_system_and_tail_bytes_kept() -> None:
    body = _anthropic([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    raw, fixed = _through(SessionTracker(), body)
    assert fixed.applied == ("breakpoint:tools", "breakpoint:system", "breakpoint:tail")
    sent = json.loads(fixed.raw)
    assert sent["tools"][-1]["cache_control"] == MARK
    assert sent["system"] == [{"type": "text", "text": "You are helpful.", "cache_control": MARK}]
    assert sent["messages"][-1]["content"][-1]["cache_control"] == MARK
    # Everything else is the client's bytes, in place: remove the insertions, get them back.
    plain = _strip(fixed.raw, b'"cache_control":{"type":"ephemeral"}')
    plain = plain.replace(b'[{"type":"text","text":"You are helpful."}]', b'"You are helpful."')
    assert plain == raw


def test_no_breakpoints_where_the_client_sets_its_own() -> None:
    body = _anthropic([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    body["tools"][0]["cache_control"] = MARK
    raw, fixed = _through(SessionTracker(), body)
    assert fixed.raw == raw and not fixed.applied


def test_a_system_prompt_that_changes_gets_no_breakpoint() -> None:
    tracker = SessionTracker()
    msgs: list[Any] = [{"role": "user", "content": "first question"}]
    _through(tracker, _anthropic(msgs, system="Time: 10:00. Be helpful."))
    msgs = [*msgs, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
    _, fixed = _through(tracker, _anthropic(msgs, system="Time: 10:01. Be helpful."))
    # Tools come before the system prompt in the cache: still worth one; nothing after it is.
    assert fixed.applied == ("breakpoint:tools",)
    assert any("system prompt changes" in s for s in fixed.skipped)


def test_a_turn_of_twenty_blocks_gets_a_second_breakpoint() -> None:
    tracker = SessionTracker()
    msgs: list[Any] = [{"role": "user", "content": "start"}]
    _through(tracker, _anthropic(msgs))
    for i in range(10):  # ten tool rounds: 20 blocks after the previous tail
        msgs.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{i}", "name": "read", "input": {}}],
            }
        )
        msgs.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x"}],
            }
        )
    _, fixed = _through(tracker, _anthropic(msgs))
    assert "second-breakpoint" in fixed.applied
    sent = json.loads(fixed.raw)
    assert sent["messages"][0]["content"][0]["cache_control"] == MARK
    marks = fixed.raw.count(b"cache_control")
    assert marks == 4  # the provider's limit
    # Without the switch, no second one.
    tracker2 = SessionTracker()
    _through(tracker2, _anthropic(msgs[:1]))
    _, plain = _through(tracker2, _anthropic(msgs), parse_fixes("breakpoints"))
    assert "second-breakpoint" not in plain.applied


def test_openai_cache_key_per_session_and_the_clients_own_kept() -> None:
    tracker = SessionTracker()
    body: dict[str, Any] = {"model": "gpt-5.4", "messages": [{"role": "user", "content": "q"}]}
    raw = json.dumps(body).encode()
    match = tracker.identify("openai-chat", body, client_hash("sk-a"))
    fixed = repair("openai-chat", body, raw, match, ALL)
    assert fixed.applied == ("cache-key",)
    assert fixed.raw.startswith(raw[:-1]) and json.loads(fixed.raw)["prompt_cache_key"]
    own = {**body, "prompt_cache_key": "mine"}
    kept = repair("openai-chat", own, json.dumps(own).encode(), match, ALL)
    assert kept.raw == json.dumps(own).encode() and not kept.applied


def test_sessions_follow_the_conversation_and_the_key() -> None:
    tracker = SessionTracker()
    first = {"messages": [{"role": "system", "content": "t=1"}, {"role": "user", "content": "q"}]}
    a = tracker.identify("openai-chat", first, client_hash("key-a"))
    tracker.remember(a, "openai-chat", first, client_hash("key-a"))
    later = {
        "messages": [
            {"role": "system", "content": "t=2"},  # a new time stamp: still the same session
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": "q2"},
        ]
    }
    assert tracker.identify("openai-chat", later, client_hash("key-a")).session_id == a.session_id
    other = tracker.identify("openai-chat", later, client_hash("key-b"))
    assert other.new and other.session_id != a.session_id
    tracker.link_response("resp_1", a.session_id)
    cont = {"previous_response_id": "resp_1", "input": "more"}
    assert tracker.identify("openai-responses", cont, client_hash("key-a")).session_id == (
        a.session_id
    )
    assert "key-a" not in a.session_id and client_hash("key-a") not in a.session_id


def test_unknown_repair_is_named() -> None:
    with pytest.raises(FixError, match="'bogus'"):
        parse_fixes("cache-key,bogus")
    assert parse_fixes("second-breakpoint") == {"second-breakpoint", "breakpoints"}


def test_openai_requests_of_one_prefix_share_a_family_whatever_their_conversation() -> None:
    from prefixlock.proxy.repair import prefix_family

    system = {"role": "system", "content": "You are a careful reviewer."}
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]

    def body(system_text: str, question: str) -> dict[str, Any]:
        msgs = [{**system, "content": system_text}, {"role": "user", "content": question}]
        return {"model": "gpt-5", "messages": msgs, "tools": tools}

    def family(system_text: str, question: str, client: str) -> str:
        fresh = SessionTracker().identify("openai-chat", body(system_text, question), client)
        return prefix_family(fresh, client)

    a = family(system["content"], "task one", "c1")
    b = family(system["content"], "task two", "c1")
    assert a == b  # two sessions (tasks) of one prefix: one family, one key
    assert a != family("Another prompt.", "task one", "c1")
    assert a != family(system["content"], "task one", "c2")
    other_tools = {**body(system["content"], "task one"), "tools": []}
    fresh = SessionTracker().identify("openai-chat", other_tools, "c1")
    assert a != prefix_family(fresh, "c1")  # another tool list: another family
    tracker = SessionTracker()
    one = body(system["content"], "task one")
    match = tracker.identify("openai-chat", one, client_hash("sk-a"))
    fixed = repair("openai-chat", one, json.dumps(one).encode(), match, ALL, "pl-family")
    assert json.loads(fixed.raw)["prompt_cache_key"] == "pl-family"
