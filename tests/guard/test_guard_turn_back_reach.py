"""The turn back to a model after turns on another, past an idle gap: the model's own history,
held at 1 hour, lies more than Anthropic's 20-block lookback behind the new tail, and its tail's
5-minute entry has expired. The first request back carries one more mark, where the model's
last request put its held reply, and reads that history instead of writing it all again. On the
versus suite's seeds 31 and 37 (`prefixlock demo --versus peers --seeds 31-32`) that first
request wrote 36,664 tokens from nothing ($0.1379) where a fixed-1h client read 35,518."""

from __future__ import annotations

from typing import Any

from prefixlock.cache.anthropic import LOOKBACK
from prefixlock.cache.units import anthropic_units
from tests.helpers.guardkit import advance, agent, idle, start_emulator, turn

SONNET, OPUS = "claude-sonnet-4-6", "claude-opus-4-6"


async def test_the_turn_back_after_a_gap_reads_the_history_its_model_held() -> None:
    with start_emulator() as emu:
        a = agent(emu, model=SONNET)  # the defaults: no settings, no policy
        async with a.session() as s:
            for i in range(3):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20)
            held = s.requests[-1]
            s.switch_model(OPUS, quote=s.quote_switch(OPUS))
            for i in range(3, 9):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20)
            await idle(s, 400.0)  # sonnet's 5-minute tail is gone; its held reply is not
            s.switch_model(SONNET, quote=s.quote_switch(SONNET))
            n = len(emu.requests)
            await turn(s, "Turn 9: and f9?")
        back = emu.requests[n]
        assert back.body["model"] == SONNET
        units = anthropic_units(back.body)
        reply = max(u.position for u in held.units if u.breakpoint == "1h")
        # Out of the tail's reach: without the extra mark nothing past the prefix is read.
        assert units[-1].position - reply >= LOOKBACK
        assert back.usage is not None
        assert back.usage["cache_read_input_tokens"] == held.units[reply].end
        assert units[reply].breakpoint is not None


def test_mark_block_refuses_a_marked_block_a_fifth_mark_and_a_late_longer_ttl() -> None:
    from prefixlock.providers.anthropic import mark_block
    from prefixlock.wire import WireRequest

    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]} for i in range(5)
    ]
    messages[4]["content"][0]["cache_control"] = {"type": "ephemeral"}
    body = {
        "model": SONNET,
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    }
    req = WireRequest("anthropic", SONNET, "/v1/messages", body, tuple(anthropic_units(body)))
    marked = mark_block(req, 2)
    assert marked is not None
    assert marked.body["messages"][1]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert [u.position for u in marked.units if u.breakpoint] == [0, 2, 5]
    assert marked.units == tuple(anthropic_units(marked.body))  # the body says the same
    assert mark_block(req, 5) is None  # marked already
    assert mark_block(req, 0) is None  # not a message block
    assert mark_block(req, 2, "1h") is None  # a 1h mark after the system's 5m one
    full = mark_block(marked, 3)
    assert full is not None and sum(u.breakpoint is not None for u in full.units) == 4
    assert mark_block(full, 1) is None  # no fifth mark


def test_mark_and_unmark_read_no_message_they_do_not_change(monkeypatch: Any) -> None:
    # A body's messages are sent as their own bytes (a WireMessage): counting their blocks or
    # looking for a mark must not decode the whole conversation, and the result is the one a
    # body of plain dicts gives.
    from prefixlock.prefix import FrozenPrefix
    from prefixlock.providers import SessionInfo, make_builder
    from prefixlock.providers.anthropic import mark_block, without_message_breakpoints
    from prefixlock.providers.body import encode_body
    from prefixlock.providers.wire_message import WireMessage
    from prefixlock.settings import Settings
    from prefixlock.transcript import Message, Transcript, text_block
    from prefixlock.wire import WireRequest

    t = Transcript()
    for i in range(12):
        second = "cache_control" if i == 4 else "x"  # a text that names the key
        t.append(Message.user([text_block(f"q{i}"), text_block(second)]))
        t.append(Message.assistant(f"a{i}"))
    req = make_builder("anthropic", SONNET).build_request(
        FrozenPrefix(system="s " * 600), t, Settings(), SessionInfo("s")
    )
    assert sum(type(m) is WireMessage for m in req.body["messages"]) >= 20
    plain_body = {**req.body, "messages": [dict(m) for m in req.body["messages"]]}
    plain = WireRequest(req.api, req.model, req.path, plain_body, req.units)

    reads: list[str] = []
    prop: property = vars(Message)["blocks"]
    decode = prop.fget
    assert decode is not None

    def counted(m: Message) -> Any:
        reads.append(m.role)
        return decode(m)

    position = next(u.position for u in req.units if u.section == "messages") + 4  # q2's 2nd
    monkeypatch.setattr(Message, "blocks", property(counted))
    marked = mark_block(req, position)
    assert len(reads) <= 2  # the message it marks (its content, and its copy)
    reads.clear()
    unmarked = without_message_breakpoints(req)
    assert len(reads) <= 3  # the marked tail, and the message whose text names the key
    monkeypatch.undo()
    want_marked = mark_block(plain, position)
    assert marked is not None and want_marked is not None
    assert encode_body(marked.body) == encode_body(want_marked.body)
    assert marked.units == want_marked.units == tuple(anthropic_units(marked.body))
    want_unmarked = without_message_breakpoints(plain)
    assert encode_body(unmarked.body) == encode_body(want_unmarked.body)
    assert b'cache_control":{' not in (encode_body(unmarked.body) or b"").split(b'"messages"')[1]
