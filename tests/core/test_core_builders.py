"""Pure request building: incremental units equal the from-scratch ones for every provider,
Anthropic breakpoints follow the rules, OpenAI's cache key is stable, same inputs same bytes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from prefixlock.cache.units import anthropic_units
from prefixlock.errors import ConfigError
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, cache_key_for, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript, text_block, tool_result_block, tool_use_block

APIS = ["anthropic", "openai-chat", "openai-responses", "openai-compat"]
SESSION = SessionInfo("s-1")


def _conversation(turns: int, calls_per_turn: int = 1) -> Transcript:
    t = Transcript()
    for i in range(turns):
        t.append(Message.user(f"question {i}: why does test_{i} fail?"))
        calls = [
            tool_use_block(f"t{i}_{j}", "read_file", {"path": f"f{j}.py"})
            for j in range(calls_per_turn)
        ]
        t.append(Message.assistant([text_block(f"looking {i}"), *calls]))
        t.append(Message.user([tool_result_block(c["id"], f"body of {c['id']}") for c in calls]))
        t.append(Message.assistant(f"answer {i}"))
    return t


def _prefix() -> FrozenPrefix:
    tools = [
        {
            "name": n,
            "description": f"{n} tool",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
        for n in ("read_file", "grep", "list_files")
    ]
    return FrozenPrefix(system=["You are careful.", "Project notes: keep it stable."], tools=tools)


def _breakpoints(body: Mapping[str, Any]) -> int:
    return json.dumps(body).count('"cache_control"')


@pytest.mark.parametrize("api", APIS)
def test_incremental_units_equal_recomputed(api: str) -> None:
    builder = make_builder(api, "m")
    prefix = _prefix()
    full = _conversation(6)
    # Grow the transcript turn by turn through ONE builder (incremental path) ...
    for n in range(1, len(full) + 1):
        messages = full.messages[:n]
        if messages[-1].role != "user":
            continue
        req = builder.build_request(prefix, messages, Settings(), SESSION)
        assert req.units == req.recomputed_units()
        # ... and compare with a fresh builder (no memo): same bytes.
        fresh = make_builder(api, "m").build_request(prefix, messages, Settings(), SESSION)
        assert fresh.body_bytes == req.body_bytes and fresh.units == req.units
    # A fork (edited past) and volatile text still agree.
    forked = full.fork(3)
    forked.append(Message.user("a different question"))
    req = builder.build_request(prefix, forked, Settings(), SESSION, volatile=["Today is Tuesday."])
    assert req.units == req.recomputed_units()


def _bytes_reachable(root: object) -> int:
    """Bytes (as sys.getsizeof counts them) of the `bytes` objects reachable from `root`
    through containers and instances (the objects `gc.get_referents` names; not through
    functions, whose globals reach every module)."""
    import gc
    import sys
    import types

    code = (type, str, int, float, types.FunctionType, types.BuiltinFunctionType)
    seen: set[int] = set()
    todo, total = [root], 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, code):
            continue
        seen.add(id(obj))
        if isinstance(obj, bytes):
            total += sys.getsizeof(obj)
            continue
        todo.extend(gc.get_referents(obj))
    return total


@pytest.mark.parametrize("api", APIS)
def test_a_conversation_is_held_once_not_as_bytes_beside_its_blocks(api: str) -> None:
    """A message lives as long as the conversation; what building a request derives from it
    (each block's canonical bytes, the whole message's, each cache unit's) is made when it is
    used and not kept: a long chat held its content three more times, growing every turn.
    The memo keeps no chain of message content of its own (it knows the transcript it built
    last, which only grows), and its units are packed: one 31-byte record a unit."""
    builder = make_builder(api, "m")
    t = _conversation(3)
    t.append(Message.user("x" * 5000))
    req = builder.build_request(_prefix(), t, Settings(), SESSION)
    assert req.units == req.recomputed_units()  # built as before
    big = t[len(t) - 1]
    # A message holds its content once, as the JSON bytes of its blocks
    # (prefixlock.transcript.Message): nothing derived from them is kept beside them.
    assert _bytes_reachable(big) < len(big.content_json()) + 1000, "bytes kept beside the content"
    assert all(_bytes_reachable(m) < len(m.content_json()) + 1000 for m in t)
    memo = builder._chain
    assert len(memo.units) == sum(1 for u in req.units if u.section == "messages")
    assert len(memo.units._buf) == 31 * len(memo.units)
    assert not any(isinstance(getattr(memo, k, None), bytearray) for k in memo.__slots__)


@pytest.mark.parametrize("api", APIS)
def test_the_memo_builds_forks_and_equal_copies_as_from_scratch(api: str) -> None:
    """The memo keeps what it can by the messages' identity: the transcript it built last,
    grown; a fork (the same objects up to the fork point); a transcript of equal messages that
    are other objects (read back from a store), built again. Each gives the units and body a
    new builder gives."""
    import copy

    builder = make_builder(api, "m")
    t = _conversation(4)
    builder.build_request(_prefix(), t, Settings(), SESSION)
    t.append(Message.user("grown"))
    variants = [t, t.fork(3), Transcript([copy.copy(m) for m in t])]
    f = t.fork(5)
    f.append(Message.user("other"))
    variants.append(f)
    for v in variants:
        got = builder.build_request(_prefix(), v, Settings(), SESSION)
        want = make_builder(api, "m").build_request(_prefix(), v, Settings(), SESSION)
        assert got.units == want.units == got.recomputed_units()
        assert got.body == want.body


@pytest.mark.parametrize("api", APIS)
def test_memo_does_not_leak_between_builders_or_mutate(api: str) -> None:
    prefix = _prefix()
    t = _conversation(2)
    t.append(Message.user("next"))
    a = make_builder(api, "m").build_request(prefix, t, Settings(), SESSION)
    before = a.body_bytes
    # A later build moves the tail breakpoint; the earlier body must not change under it.
    t.append(Message.assistant("ok"))
    t.append(Message.user("more"))
    make_builder(api, "m").build_request(prefix, t, Settings(), SESSION)
    b2 = make_builder(api, "m")
    b2.build_request(prefix, t, Settings(), SESSION)
    from prefixlock.canonical import canonical_bytes

    assert canonical_bytes(a.body) == before


def test_anthropic_breakpoints_tools_system_tail() -> None:
    t = _conversation(1)
    t.append(Message.user("next question"))
    req = make_builder("anthropic", "claude-opus-4-7").build_request(
        _prefix(), t, Settings(), SESSION
    )
    body = req.body
    assert list(body) == ["model", "max_tokens", "tools", "system", "messages", "stream"]
    assert "cache_control" in body["tools"][-1]
    assert all("cache_control" not in tl for tl in body["tools"][:-1])
    assert "cache_control" in body["system"][-1]
    assert "cache_control" in body["messages"][-1]["content"][-1]
    assert _breakpoints(body) == 3
    assert [u.breakpoint for u in req.breakpoints()] == ["5m", "5m", "5m"]


def test_anthropic_volatile_block_never_carries_the_breakpoint() -> None:
    t = Transcript([Message.user("fix the bug")])
    req = make_builder("anthropic", "m").build_request(
        _prefix(), t, Settings(), SESSION, volatile=["<reminder>Today is 2026-12-01</reminder>"]
    )
    last = req.body["messages"][-1]["content"]
    assert last[-1]["text"].startswith("<reminder>") and "cache_control" not in last[-1]
    assert "cache_control" in last[-2]  # the last stable block
    # The breakpoint's entry is exactly what the next request (without the reminder) starts with.
    t.append(Message.assistant("done"))
    t.append(Message.user("thanks"))
    nxt = make_builder("anthropic", "m").build_request(_prefix(), t, Settings(), SESSION)
    mark = [u for u in req.units if u.breakpoint][-1]
    assert nxt.units[mark.position].chain == mark.chain


def test_anthropic_second_breakpoint_after_twenty_new_blocks() -> None:
    builder = make_builder("anthropic", "m")
    t = Transcript([Message.user("start")])
    first = builder.build_request(_prefix(), t, Settings(), SESSION)
    prev_tail = [u for u in first.units if u.breakpoint][-1]
    # The model calls 12 tools at once: 12 tool_use + 12 tool_result blocks = 24 new blocks.
    calls = [tool_use_block(f"t{i}", "grep", {"q": str(i)}) for i in range(12)]
    t.append(Message.assistant(calls))
    t.append(Message.user([tool_result_block(f"t{i}", "x") for i in range(12)]))
    req = builder.build_request(_prefix(), t, Settings(), SESSION)
    marks = req.breakpoints()
    assert len(marks) == 4 == _breakpoints(req.body)
    assert marks[2].position == prev_tail.position and marks[2].chain == prev_tail.chain
    assert marks[3].position - marks[2].position >= 20
    # A small turn needs no second conversation breakpoint.
    t.append(Message.assistant("ok"))
    t.append(Message.user("and now?"))
    assert len(builder.build_request(_prefix(), t, Settings(), SESSION).breakpoints()) == 3


def test_anthropic_never_more_than_four_breakpoints() -> None:
    builder = make_builder("anthropic", "m")
    t = Transcript([Message.user("go")])
    for i in range(30):
        calls = [tool_use_block(f"t{i}_{j}", "grep", {}) for j in range(i % 15)]
        t.append(Message.assistant([text_block("working"), *calls]))
        t.append(
            Message.user([*(tool_result_block(c["id"], "r") for c in calls), text_block("go on")])
        )
        req = builder.build_request(_prefix(), t, Settings(), SESSION, volatile=["now"])
        assert len(req.breakpoints()) <= 4 and _breakpoints(req.body) <= 4
        assert len(anthropic_units(req.body)) == len(req.units)


def test_anthropic_ttl_settings() -> None:
    t = Transcript([Message.user("go")])
    req = make_builder("anthropic", "m").build_request(
        _prefix(), t, Settings(ttl="5m", prefix_ttl="1h"), SESSION
    )
    assert [u.breakpoint for u in req.breakpoints()] == ["1h", "1h", "5m"]
    assert req.body["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert req.body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    one_hour = make_builder("anthropic", "m").build_request(
        _prefix(), t, Settings(ttl="1h"), SESSION
    )
    assert {u.breakpoint for u in one_hour.breakpoints()} == {"1h"}
    with pytest.raises(ConfigError, match="longer TTLs come first"):
        Settings(ttl="1h", prefix_ttl="5m")
    with pytest.raises(ConfigError, match=r"settings\.ttl"):
        Settings(ttl="10m")  # type: ignore[arg-type]


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "openai-compat"])
def test_openai_cache_key_stable_and_retention(api: str) -> None:
    builder = make_builder(api, "gpt-5")
    t = _conversation(3)
    keys = set()
    for n in range(1, len(t) + 1):
        if t[n - 1].role == "user":
            req = builder.build_request(
                _prefix(), t.messages[:n], Settings(retention="24h"), SESSION
            )
            keys.add(req.body["prompt_cache_key"])
            assert req.cache_key == req.body["prompt_cache_key"]
            if api == "openai-compat":
                assert "prompt_cache_retention" not in req.body
            else:
                assert req.body["prompt_cache_retention"] == "24h"
    assert keys == {cache_key_for("s-1")}
    assert "s-1" not in cache_key_for("s-1")  # derived, not the raw id
    other = builder.build_request(_prefix(), t, Settings(), SessionInfo("s-2"))
    assert other.body["prompt_cache_key"] != cache_key_for("s-1")
    none = builder.build_request(_prefix(), t, Settings(send_cache_key=False), SESSION)
    assert "prompt_cache_key" not in none.body and none.cache_key is None


def test_openai_chat_wire_shape() -> None:
    t = _conversation(1)
    t.append(Message.user("next"))
    body = (
        make_builder("openai-chat", "gpt-5").build_request(_prefix(), t, Settings(), SESSION).body
    )
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path":"f0.py"}',
    }
    assert body["tools"][0]["function"]["name"] == "grep"  # sorted by name
    assert body["stream_options"] == {"include_usage": True}
    compat = make_builder("openai-compat", "deepseek-v4-flash").build_request(
        _prefix(), t, Settings(), SESSION
    )
    assert "max_tokens" in compat.body and "max_completion_tokens" not in compat.body


def test_responses_wire_shape() -> None:
    t = _conversation(1)
    t.append(Message.user("next"))
    body = (
        make_builder("openai-responses", "gpt-5")
        .build_request(_prefix(), t, Settings(), SESSION)
        .body
    )
    assert body["instructions"] == "You are careful.\n\nProject notes: keep it stable."
    kinds = [i.get("type", i.get("role")) for i in body["input"]]
    assert kinds == [
        "user",
        "assistant",
        "function_call",
        "function_call_output",
        "assistant",
        "user",
    ]
    assert body["store"] is False


@pytest.mark.parametrize("api", APIS)
def test_body_key_order_is_deterministic(api: str) -> None:
    t = Transcript([Message.user("hi")])
    a = make_builder(api, "m").build_request(_prefix(), t, Settings(), SESSION)
    b = make_builder(api, "m").build_request(_prefix(), t, Settings(), SESSION)
    assert json.dumps(a.body) == json.dumps(b.body)  # not only canonical: the same key order


@pytest.mark.parametrize("api", APIS)
def test_transcript_and_pending_path_matches_plain_lists(api: str) -> None:
    """The session passes the Transcript (checked by its content chain) plus pending messages;
    forks, failed sends (pending dropped) and new content all give the from-scratch result."""
    prefix = _prefix()
    builder = make_builder(api, "m")
    t = _conversation(3)
    steps: list[tuple[Transcript, list[Message]]] = []
    steps.append((t, [Message.user("q1")]))
    steps.append((t, [Message.user("q1 again")]))  # the previous send failed: pending replaced
    t2 = t.fork(len(t))
    t2.extend([Message.user("q1"), Message.assistant("a1")])
    steps.append((t2, [Message.user("q2")]))
    steps.append((t.fork(5), [Message.user("edited past")]))  # a fork: shorter, diverging
    steps.append((t2, [Message.user("back on the main line")]))
    for transcript, pending in steps:
        req = builder.build_request(prefix, transcript, Settings(), SESSION, pending=pending)
        plain = make_builder(api, "m").build_request(
            prefix, [*transcript.messages, *pending], Settings(), SESSION
        )
        assert req.body_bytes == plain.body_bytes
        assert req.units == plain.units == req.recomputed_units()


@pytest.mark.parametrize("api", APIS)
def test_effort_setting_changes_the_prefix_where_documented(api: str) -> None:
    t = _conversation(1)
    t.append(Message.user("next"))
    plain = make_builder(api, "m").build_request(_prefix(), t, Settings(), SESSION)
    high = make_builder(api, "m").build_request(_prefix(), t, Settings(effort="high"), SESSION)
    assert high.units == high.recomputed_units()
    if api == "anthropic":
        assert high.body["output_config"] == {"effort": "high"}
        # Tools and system still hit; the message level misses.
        n_prefix = len([u for u in plain.units if u.section != "messages"])
        assert [u.chain for u in high.units[:n_prefix]] == [u.chain for u in plain.units[:n_prefix]]
        assert high.units[n_prefix].chain != plain.units[n_prefix].chain
    else:
        assert high.units[0].chain != plain.units[0].chain  # OpenAI: the whole prefix changes


def test_stream_parsers_survive_malformed_tool_json() -> None:
    from prefixlock.providers import AnthropicStream, ChatStream

    a = AnthropicStream()
    a.feed({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 3}}})
    a.feed(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "x", "input": {}},
        }
    )
    a.feed(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": '},
        }
    )
    a.feed({"type": "content_block_stop", "index": 0})
    a.feed(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "max_tokens"},
            "usage": {"output_tokens": 9},
        }
    )
    a.feed({"type": "message_stop"})
    reply = a.reply()
    assert reply.blocks[0]["input"] == {"__invalid_json__": '{"a": '}
    assert reply.stop_reason == "max_tokens" and reply.usage.output == 9 and a.done
    c = ChatStream()
    c.feed(
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c", "function": {"name": "x", "arguments": "[1"}}
                        ]
                    },
                }
            ]
        }
    )
    c.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    assert c.reply().blocks[0]["input"] == {"__invalid_json__": "[1"}


@pytest.mark.parametrize("api", APIS)
def test_the_memo_keeps_only_what_the_next_request_reuses(api: str) -> None:
    """After a compaction the conversation is a new, short transcript (other Message objects):
    the memo holds its units, messages and wire dicts only, not the long history's beside
    them, and its buffers are new ones of the short conversation's size (a cut in place would
    keep the long history's capacity)."""
    import sys

    builder = make_builder(api, "m")
    prefix = _prefix()
    long = _conversation(40)
    long.append(Message.user("summarize"))
    builder.build_request(prefix, long, Settings(), SESSION)
    memo = builder._chain
    held = len(memo.units), len(memo.messages)
    short = Transcript([Message.user("the summary so far"), Message.assistant("ok")])
    short.append(Message.user("next"))
    req = builder.build_request(prefix, short, Settings(), SESSION)
    assert req.units == req.recomputed_units()
    assert len(memo.messages) == len(short) < held[1]
    assert len(memo.units) == sum(1 for u in req.units if u.section == "messages") < held[0]
    assert len(memo.units._buf) == 31 * len(memo.units)
    assert sys.getsizeof(memo.units._buf) < 31 * held[0] // 2  # not the long one's capacity
    assert memo._ends.buffer_info()[1] == len(short)
    assert len(memo.wire) <= len(short)
