"""A conversation is held once along the request path: a message holds its blocks as their JSON
bytes, an Anthropic body sends those bytes through a read-through dict over the message, and
what the transcript and the builder keep beside them per message is small. Measured with
tracemalloc in a process of its own (the test process's heap is shared with every other test),
on a chat like the long-chat benchmark's: short user lines, short replies, every third turn a
tool call and its result."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript

# Built in a fresh interpreter: N turns through Transcript and AnthropicBuilder (a request each
# turn, as a session builds them), the growth between turn WARM and turn N over the messages
# added, less the bytes of the texts themselves (the conversation, which any form holds).
_SCRIPT = r"""
import gc, json, sys, tracemalloc
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript, text_block, tool_result_block, tool_use_block

N, WARM = 600, 200
builder = make_builder("anthropic", "m")
prefix, settings, info = FrozenPrefix(system=["be brief"]), Settings(), SessionInfo("s")
t = Transcript()
texts = 0

def turn(i):
    global texts
    msgs = [Message.user(f"hello {i}")]
    if i % 3 == 0:
        call = f"toolu_{i:06d}"
        msgs.append(Message.assistant([tool_use_block(call, "list_files", {"path": "."})]))
        msgs.append(Message.user([tool_result_block(call, f"README.md\nsrc/ {i}")]))
    msgs.append(Message.assistant(f"Hi! This is reply number {i} from the script."))
    for m in msgs:
        t.append(m)
        texts += sum(sys.getsizeof(v) for b in m.blocks for v in b.values() if isinstance(v, str))
    builder.build_request(prefix, t, settings, info)

tracemalloc.start()
for i in range(WARM):
    turn(i)
gc.collect()
before, texts, n0 = tracemalloc.get_traced_memory()[0], 0, len(t)
for i in range(WARM, N):
    turn(i)
req = builder.build_request(prefix, t, settings, info)
gc.collect()
grown = tracemalloc.get_traced_memory()[0] - before
print(json.dumps({"per_message": (grown - texts) / (len(t) - n0), "messages": len(t)}))
"""


def _per_message_bytes() -> float:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    return float(json.loads(out.stdout)["per_message"])


def test_a_long_conversation_costs_little_beyond_its_text_per_message() -> None:
    # Before the blocks went on the wire as they are (thawed copies, a list and a (section,
    # tokens) pair per block beside the frozen ones) this chat held 1,825 bytes a message
    # beyond its text; 1,389 since. The transcript's and the builder's chains of message
    # content as packed digests, the running totals and offsets as machine ints: 1,233. A
    # message in slots, its builders' memos in a tuple, its token counts in a slot: 1,001.
    # Anthropic's parts made when the chain memo takes a message, not kept on it: 833. A
    # packed Unit and shared counts for a one-block message: 640. A made message's blocks
    # held as their JSON bytes, the body's dict a read-through view of the message: 407. The
    # body's message list a recipe made when read, not a dict a message: 205. The units packed
    # in one buffer, not an object a block: 128. The recipe holding the memo's list rather than
    # a copy, and the memo no chain of message content of its own: 100.
    assert _per_message_bytes() < 125


def test_the_body_sends_the_transcript_s_own_messages() -> None:
    from prefixlock.providers.body import encode_body
    from prefixlock.providers.wire_message import WireMessage

    t = Transcript([Message.user("hi"), Message.assistant("hello"), Message.user("more")])
    body = (
        make_builder("anthropic", "m")
        .build_request(FrozenPrefix(), t, Settings(), SessionInfo("s"))
        .body
    )
    # The tail carries the breakpoint (a plain dict, a copy); the others are the messages
    # themselves, read as the dicts they stand for.
    sent = body["messages"]
    assert isinstance(sent[0], WireMessage) and sent[0].message is t[0]
    assert isinstance(sent[1], WireMessage) and sent[1].message is t[1]
    assert sent[0] == {"role": "user", "content": t[0].blocks}
    assert list(sent[0]) == ["role", "content"]
    assert type(sent[2]) is dict and "cache_control" in sent[2]["content"][0]
    assert "cache_control" not in t[2].blocks[0]
    assert json.loads(json.dumps(dict(sent[0]))) == t[0].to_dict()
    # The bytes sent for a message held as its bytes are the dict's own.
    plain = {**body, "messages": [dict(m) for m in sent]}
    assert (
        encode_body(body)
        == encode_body(plain)
        == json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode()
    )


def test_a_message_made_holds_its_blocks_as_json_and_reads_them_back() -> None:
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": 'h\u00e9llo "q" \U0001f600'},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"z": 1, "a": [1.5, None, True]}},
    ]
    m = Message.assistant(blocks)
    assert isinstance(m._content, bytes) and m.has_blocks
    assert m.to_dict()["content"] == blocks and list(m.blocks[1]["input"]) == ["z", "a"]
    assert m.blocks[1]["input"]["a"] == (1.5, None, True)
    sdk = json.dumps(blocks, ensure_ascii=False, separators=(",", ":")).encode()
    assert m.content_json() == sdk
    # What JSON would not give back equal is held as given: a key that is not a string.
    odd = Message.user([{"type": "text", "text": "x", "meta": {1: "one"}}])
    assert isinstance(odd._content, tuple) and odd.blocks[0]["meta"] == {1: "one"}
    assert not Message.user([]).has_blocks and Message.user([]).blocks == ()
    import copy
    import pickle

    again = pickle.loads(pickle.dumps(m))
    assert again.blocks == m.blocks and again.role == "assistant"
    assert copy.copy(m).blocks == m.blocks


def test_a_frozen_block_refuses_changes_and_copies_to_a_plain_dict() -> None:
    m = Message.assistant([{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": [1]}}])
    block = m.blocks[0]
    with pytest.raises(TypeError, match="frozen"):
        block["name"] = "g"  # type: ignore[index]
    with pytest.raises(TypeError, match="frozen"):
        block["input"].update(b=2)
    with pytest.raises(TypeError, match="frozen"):
        del block["id"]  # type: ignore[attr-defined]
    plain = dict(block)
    plain["name"] = "g"
    assert block["name"] == "f" and type(plain) is dict
    assert block["input"]["a"] == (1,)
    import copy
    import pickle

    assert copy.deepcopy(block) == block and pickle.loads(pickle.dumps(block)) == block


def test_packed_chains_are_the_chain_hashes() -> None:
    from prefixlock.canonical import chain_digest, chain_hash

    a = chain_hash("", b"x")
    assert chain_digest(b"", b"x").hex() == a
    assert chain_digest(bytes.fromhex(a), b"y").hex() == chain_hash(a, b"y")
    msgs = [Message.user(f"m{i}") for i in range(5)]
    t = Transcript(msgs)
    parent = ""
    for i, m in enumerate(msgs):
        parent = chain_hash(parent, m.data)
        assert t.chain(i + 1) == parent
    assert t.chain() == parent and t.chain(0) == "" and Transcript().chain() == ""
    f = t.fork(3)
    assert f.chain() == t.chain(3) and f.tokens == sum(m.tokens for m in msgs[:3])
    f.append(Message.user("other"))
    assert f.chain(3) == t.chain(3) and len(t) == 5 and t.chain() == parent


def test_a_message_keeps_its_memos_and_counts_without_an_instance_dict() -> None:
    m = Message.user("hello")
    assert not hasattr(m, "__dict__")
    assert m.memo("a") is None
    assert m.remember("a", 1) == 1 and m.remember("b", 2) == 2 and m.remember("a", 3) == 3
    assert (m.memo("a"), m.memo("b")) == (3, 2)
    assert m.block_tokens is m.block_tokens and m.tokens == sum(m.block_tokens)


def test_a_transcript_keeps_nothing_a_message_but_its_slot() -> None:
    """The transcript's chain and token total are kept for its last message only (a chain and
    a total a message grew a long chat 24 bytes a message); earlier chains are made again
    when asked, equal to the running ones."""
    import tracemalloc

    from prefixlock.canonical import chain_hash

    msgs = [Message.user(f"message {i}") for i in range(3000)]
    for m in msgs:
        assert m.tokens > 0  # counted before: the counts are the message's, not the transcript's
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        t = Transcript(msgs)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held / len(msgs) < 12  # the list's slot (8 bytes, over-allocated); 34 with both kept
    parent = ""
    for m in msgs[:4]:
        parent = chain_hash(parent, m.data)
    assert t.chain(4) == parent and t.fork(4).chain() == parent
    assert t.tokens == sum(m.tokens for m in msgs) and t.fork(4).tokens == sum(
        m.tokens for m in msgs[:4]
    )
