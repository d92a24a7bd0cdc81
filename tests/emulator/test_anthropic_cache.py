"""Anthropic prompt-cache rules, through the official SDK against the emulator on 127.0.0.1.

Each case asserts the exact usage the emulator reports. Expected token counts come from
prefixlock.cache.units (the shared definition of what the cache sees), so a case pins the *rule*
(what is read, what is written, what is billed plain) rather than the tokenizer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from prefixlock.cache.units import anthropic_units
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from tests.helpers.sdk import anthropic

SYSTEM_TEXT = "You are a careful coding assistant. Follow the repository conventions. " * 120
TOOLS = [
    {
        "name": name,
        "description": f"{name.replace('_', ' ')} in the workspace",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
    for name in ("list_files", "read_file", "run_tests")
]
EPH = {"type": "ephemeral"}
EPH_1H = {"type": "ephemeral", "ttl": "1h"}


def body(
    *,
    model: str = "claude-sonnet-4-6",
    system_cc: dict[str, Any] | None = EPH,
    tools: list[dict[str, Any]] | None = None,
    messages: list[dict[str, Any]] | None = None,
    system_text: str = SYSTEM_TEXT,
    **extra: Any,
) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": system_text}
    if system_cc is not None:
        block["cache_control"] = system_cc
    return {
        "model": model,
        "max_tokens": 256,
        "system": [block],
        "tools": TOOLS if tools is None else tools,
        "messages": messages or [{"role": "user", "content": "What does this repo do?"}],
        **extra,
    }


def end_of(b: dict[str, Any], section: str) -> int:
    """Tokens from the start of the request through the last unit of `section`."""
    return [u for u in anthropic_units(b) if u.section == section][-1].end


def total(b: dict[str, Any]) -> int:
    return anthropic_units(b)[-1].end


def usage_of(client: anthropic.Anthropic, b: dict[str, Any]) -> dict[str, int]:
    u = client.messages.create(**b).usage
    return {
        "input": u.input_tokens,
        "write": u.cache_creation_input_tokens or 0,
        "w5m": u.cache_creation.ephemeral_5m_input_tokens if u.cache_creation else 0,
        "w1h": u.cache_creation.ephemeral_1h_input_tokens if u.cache_creation else 0,
        "read": u.cache_read_input_tokens or 0,
    }


def billed(b: dict[str, Any], *, read: int = 0, w5m: int = 0, w1h: int = 0) -> dict[str, int]:
    """The `usage_of` counters expected for `b`: `read` tokens read, `w5m`/`w1h` written with
    each TTL, the rest of the request billed as plain input."""
    write = w5m + w1h
    return {"input": total(b) - read - write, "write": write, "w5m": w5m, "w1h": w1h, "read": read}


def advance(emu: Emulator, seconds: float) -> None:
    """Move the emulator's clock (the fixtures start it on a ManualClock)."""
    assert isinstance(emu.clock, ManualClock)
    emu.clock.advance(seconds)


def warm(client: anthropic.Anthropic, b: dict[str, Any]) -> None:
    """Send `b` and check it wrote its system-level entry, so a later miss means something."""
    assert usage_of(client, b)["write"] == end_of(b, "system") > 1024


@pytest.fixture
def client(emulator: Emulator) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=emulator.base_url, max_retries=0)


def _long_chat(n_blocks: int, cc_last: bool = True) -> list[dict[str, Any]]:
    """A user message with `n_blocks` text blocks, a breakpoint on the last one."""
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": f"Note {i}: the build step {i} passed."} for i in range(n_blocks)
    ]
    if cc_last:
        blocks[-1] = {**blocks[-1], "cache_control": EPH}
    return [{"role": "user", "content": blocks}]


def _context_message(*more: dict[str, Any]) -> list[dict[str, Any]]:
    """One user message: a long context block with a 5m breakpoint, then `more` blocks."""
    context = {
        "type": "text",
        "text": "Context: " + "the invoice module rounds totals. " * 20,
        "cache_control": EPH,
    }
    return [{"role": "user", "content": [context, *more]}]


Case = Callable[["anthropic.Anthropic", Emulator], None]  # a string: the SDK loads on first use


def case_below_minimum(client: anthropic.Anthropic, emu: Emulator) -> None:
    # Haiku 4.5 caches nothing under 4,096 tokens: both counters 0, no error.
    b = body(model="claude-haiku-4-5", system_text="Short system prompt. " * 40)
    assert total(b) < 4096
    for _ in range(2):
        assert usage_of(client, b) == billed(b)


def case_second_identical_reads_prefix(client: anthropic.Anthropic, emu: Emulator) -> None:
    b = body()
    upto = end_of(b, "system")
    first = usage_of(client, b)
    assert first == billed(b, w5m=upto)
    second = usage_of(client, b)
    assert second == billed(b, read=upto)


def case_no_breakpoint_writes_nothing(client: anthropic.Anthropic, emu: Emulator) -> None:
    # Writes happen only at breakpoints: without one, the same long request is billed in full
    # every time.
    b = body(system_cc=None)
    assert total(b) > 1024
    for _ in range(2):
        assert usage_of(client, b) == billed(b)


def case_changed_tools_read_nothing(client: anthropic.Anthropic, emu: Emulator) -> None:
    warm(client, body())
    changed = body(tools=[*TOOLS, {**TOOLS[0], "name": "grep"}])
    upto = end_of(changed, "system")
    assert usage_of(client, changed) == billed(changed, w5m=upto)


def case_reordered_tools_read_nothing(client: anthropic.Anthropic, emu: Emulator) -> None:
    warm(client, body())
    assert usage_of(client, body(tools=list(reversed(TOOLS))))["read"] == 0


def case_tool_choice_change_keeps_system_entry(client: anthropic.Anthropic, emu: Emulator) -> None:
    # tool_choice invalidates the message level only: the tools+system entry is still read,
    # the conversation entry after it is written again.
    msgs = _context_message()
    usage_of(client, body(messages=msgs))
    changed = body(messages=msgs, tool_choice={"type": "any"})
    sys_end = end_of(changed, "system")
    assert usage_of(client, changed) == billed(changed, w5m=total(changed) - sys_end, read=sys_end)


def case_model_switch_reads_nothing(client: anthropic.Anthropic, emu: Emulator) -> None:
    warm(client, body(model="claude-sonnet-4-6"))
    b = body(model="claude-opus-4-8")
    upto = end_of(b, "system")
    assert usage_of(client, b) == billed(b, w5m=upto)


def case_other_api_key_reads_nothing(client: anthropic.Anthropic, emu: Emulator) -> None:
    warm(client, body())
    other = anthropic.Anthropic(api_key="another-org", base_url=emu.base_url, max_retries=0)
    assert usage_of(other, body())["read"] == 0


def case_ttl_expires_after_5m01s(client: anthropic.Anthropic, emu: Emulator) -> None:
    b = body()
    upto = end_of(b, "system")
    warm(client, b)
    advance(emu, 299)
    assert usage_of(client, b)["read"] == upto  # 4m59s: still warm (and refreshed)
    advance(emu, 301)
    assert usage_of(client, b) == billed(b, w5m=upto)


def case_1h_entry_survives_5m01s(client: anthropic.Anthropic, emu: Emulator) -> None:
    b = body(system_cc=EPH_1H)
    upto = end_of(b, "system")
    assert usage_of(client, b) == billed(b, w1h=upto)
    advance(emu, 301)
    assert usage_of(client, b)["read"] == upto
    advance(emu, 3601)
    assert usage_of(client, b)["read"] == 0


def case_read_refreshes_ttl(client: anthropic.Anthropic, emu: Emulator) -> None:
    b = body()
    usage_of(client, b)
    advance(emu, 240)
    assert usage_of(client, b)["read"] > 0
    advance(emu, 240)  # 8 minutes after the write, 4 after the refreshing read
    assert usage_of(client, b)["read"] == end_of(b, "system")


def case_25_blocks_after_breakpoint_miss(client: anthropic.Anthropic, emu: Emulator) -> None:
    first = body(system_cc=None, messages=_long_chat(5))
    assert usage_of(client, first)["write"] == total(first)
    # Same 5 blocks, then 25 more; the only breakpoint is on the last one: the lookback of 20
    # blocks never reaches the entry written at block 5.
    grown = body(system_cc=None, messages=_long_chat(30))
    assert usage_of(client, grown) == billed(grown, w5m=total(grown))


def case_15_blocks_after_breakpoint_hit(client: anthropic.Anthropic, emu: Emulator) -> None:
    first = body(system_cc=None, messages=_long_chat(5))
    usage_of(client, first)
    grown = body(system_cc=None, messages=_long_chat(20))
    # The grown request's 5th block differs from the first request's last block only by its
    # cache_control, which is not hashed: the entry is found 15 positions back.
    read = total(first)
    assert usage_of(client, grown) == billed(grown, w5m=total(grown) - read, read=read)


def case_automatic_top_level_breakpoint(client: anthropic.Anthropic, emu: Emulator) -> None:
    turn1 = body(system_cc=None, cache_control=EPH)
    assert usage_of(client, turn1) == billed(turn1, w5m=total(turn1))
    msgs = [
        {"role": "user", "content": "What does this repo do?"},
        {"role": "assistant", "content": "It computes invoices."},
        {"role": "user", "content": "Where are totals rounded?"},
    ]
    turn2 = body(system_cc=None, cache_control=EPH, messages=msgs)
    assert usage_of(client, turn2) == billed(
        turn2, w5m=total(turn2) - total(turn1), read=total(turn1)
    )


def case_mixed_ttls_split(client: anthropic.Anthropic, emu: Emulator) -> None:
    msgs = _context_message({"type": "text", "text": "Question: why?"})
    b = body(system_cc=EPH_1H, messages=msgs)
    sys_end = end_of(b, "system")
    msg_bp = anthropic_units(b)[-2].end
    assert usage_of(client, b) == billed(b, w5m=msg_bp - sys_end, w1h=sys_end)


def case_warmup_max_tokens_0(client: anthropic.Anthropic, emu: Emulator) -> None:
    b = body(max_tokens=0)
    upto = end_of(b, "system")
    msg = client.messages.create(**b)
    assert msg.content == [] and msg.usage.output_tokens == 0
    assert msg.usage.cache_creation_input_tokens == upto
    assert usage_of(client, body())["read"] == upto


def case_evict_makes_unexplained_miss(client: anthropic.Anthropic, emu: Emulator) -> None:
    warm(client, body())
    assert emu.evict(model="claude-sonnet-4-6") == 1
    assert usage_of(client, body())["read"] == 0
    emu.flush()
    assert usage_of(client, body())["read"] == 0


CASES: list[Case] = [
    case_below_minimum,
    case_second_identical_reads_prefix,
    case_no_breakpoint_writes_nothing,
    case_changed_tools_read_nothing,
    case_reordered_tools_read_nothing,
    case_tool_choice_change_keeps_system_entry,
    case_model_switch_reads_nothing,
    case_other_api_key_reads_nothing,
    case_ttl_expires_after_5m01s,
    case_1h_entry_survives_5m01s,
    case_read_refreshes_ttl,
    case_25_blocks_after_breakpoint_miss,
    case_15_blocks_after_breakpoint_hit,
    case_automatic_top_level_breakpoint,
    case_mixed_ttls_split,
    case_warmup_max_tokens_0,
    case_evict_makes_unexplained_miss,
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__.removeprefix("case_"))
def test_cache_rule(case: Case, client: anthropic.Anthropic, emulator: Emulator) -> None:
    case(client, emulator)


def test_more_than_four_breakpoints_is_400_and_server_keeps_serving(
    client: anthropic.Anthropic,
) -> None:
    msgs = _long_chat(5)
    for block in msgs[0]["content"]:
        block["cache_control"] = EPH
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(**body(messages=msgs))
    assert "maximum of 4" in str(info.value)
    assert usage_of(client, body())["write"] > 0


def test_streaming_reports_usage_in_message_start_and_delta(client: anthropic.Anthropic) -> None:
    b = body()
    usage_of(client, b)
    upto = end_of(b, "system")
    with client.messages.stream(**b) as stream:
        events = list(stream)
        final = stream.get_final_message()
    start = next(e for e in events if e.type == "message_start")
    assert start.message.usage.cache_read_input_tokens == upto
    assert final.usage.cache_read_input_tokens == upto
    assert final.usage.input_tokens == total(b) - upto
    assert [b.type for b in final.content] == ["text", "tool_use"]
    call = final.content[1]
    assert call.type == "tool_use" and call.input == {"path": "."}
    assert final.stop_reason == "tool_use"


def test_parallel_cold_requests_all_pay_the_write(emulator: Emulator) -> None:
    # Both requests arrive before either response starts (latency holds them on the manual
    # clock); the second must not read the first one's in-flight write.
    emulator.inject("latency", count=2, seconds=1.0)
    client = anthropic.Anthropic(api_key="test-key", base_url=emulator.base_url, max_retries=0)
    b = body()
    results: list[int] = []

    def send() -> None:
        results.append(client.messages.create(**b).usage.cache_creation_input_tokens or 0)

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    import time

    deadline = time.monotonic() + 120  # a bound against a hang, not a wait for the clock
    while emulator.in_flight < 2 and time.monotonic() < deadline:
        time.sleep(0.005)  # waiting for the server threads, not for the clock
    assert emulator.in_flight == 2, "both requests must be held before the clock moves"
    advance(emulator, 1.0)
    for t in threads:
        t.join(120)
    assert results == [end_of(b, "system")] * 2
    assert usage_of(client, b)["read"] == end_of(b, "system")


def _slow(
    emu: Emulator, client: anthropic.Anthropic, b: dict[str, Any], seconds: float
) -> dict[str, int]:
    """Send `b` with `seconds` of latency before its response starts (on the manual clock)."""
    import time

    emu.inject("latency", seconds=seconds)
    out: list[dict[str, int]] = []
    thread = threading.Thread(target=lambda: out.append(usage_of(client, b)))
    thread.start()
    # Waiting for the server thread to hold the request, not for the clock: the bound is only
    # there so a broken emulator fails instead of hanging (a loaded CI box can take seconds).
    deadline = time.monotonic() + 120
    while emu.in_flight < 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert emu.in_flight >= 1, "the request never reached the emulator"
    advance(emu, seconds)
    thread.join(120)
    assert not thread.is_alive(), "the slow request never finished"
    return out[0]


def test_ttl_counts_from_the_request_start(emulator: Emulator, client: anthropic.Anthropic) -> None:
    # Each slow request's response starts 20 s after it arrived; its entry's 5 minutes (for a
    # write, and for the refresh of a read) count from the arrival.
    b = body()
    upto = end_of(b, "system")
    assert _slow(emulator, client, b, 20) == billed(b, w5m=upto)  # arrived at 0, answered at 20
    advance(emulator, 280)  # 300 s after the write's request started, 280 after its response
    assert usage_of(client, b) == billed(b, w5m=upto)  # expired: written again (at 300)
    advance(emulator, 250)
    assert _slow(emulator, client, b, 20) == billed(b, read=upto)  # arrived at 550: refreshed
    advance(emulator, 280)  # 300 s after that read's request started
    assert usage_of(client, b) == billed(b, w5m=upto)


def test_top_level_breakpoint_takes_a_slot(client: anthropic.Anthropic) -> None:
    msgs = _long_chat(4)
    for block in msgs[0]["content"]:
        block["cache_control"] = EPH
    assert client.messages.create(**body(system_cc=None, messages=msgs)).content
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(**body(system_cc=None, messages=msgs, cache_control=EPH))


def test_a_1h_breakpoint_after_a_5m_one_is_400(client: anthropic.Anthropic) -> None:
    # Longer TTLs must come before shorter ones (tools -> system -> messages order).
    late_1h = _context_message()
    late_1h[0]["content"][0]["cache_control"] = EPH_1H
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(**body(system_cc=EPH, messages=late_1h))
    assert "ttl='1h'" in str(info.value)
    # The other way round is the documented layout, and both are written with their TTLs.
    early_1h = body(system_cc=EPH_1H, messages=_context_message())
    sys_end = end_of(early_1h, "system")
    assert usage_of(client, early_1h) == billed(
        early_1h, w1h=sys_end, w5m=total(early_1h) - sys_end
    )
