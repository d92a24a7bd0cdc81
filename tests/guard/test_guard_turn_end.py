"""The end of a turn under the default CachePolicy: a 1-hour write when the user's gaps are long,
nothing when they are short, and pings only where they beat the 1-hour write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.events import CacheBreak, Event, KeepAlivePing, UsageReport
from prefixlock.guard.policy import CachePolicy
from prefixlock.guard.turn_end import (
    DEFAULT_TURN_GAPS,
    expected_gaps,
    plan_turn_end,
    turn_gaps,
)
from tests.helpers.guardkit import advance, agent, of, start_emulator, turn

PRICES = PriceTable.default()
SONNET = PRICES.require("claude-sonnet-4-6")


def test_turn_gaps_run_from_a_turns_last_request_to_the_next_turns_first() -> None:
    rows = [(1, "turn", 0.0), (1, "turn", 5.0), (1, "ping", 200.0), (2, "turn", 605.0)]
    rows += [(2, "summary", 610.0), (2, "turn", 612.0), (3, "turn", 700.0)]
    assert turn_gaps(rows) == [600.0, 88.0]


def test_the_defaults_are_a_prior_beside_the_users_own_gaps() -> None:
    assert expected_gaps([30.0]) == [30.0, *DEFAULT_TURN_GAPS]


def test_a_history_of_gaps_past_the_hour_turns_the_seal_off() -> None:
    gaps = expected_gaps([5 * 3600.0] * 60)  # a user who comes back the next morning
    plan = plan_turn_end(gaps, context_tokens=40_000, answer_tokens=300, price=SONNET)
    assert plan.mode == "off"


def test_long_gaps_seal_short_gaps_do_nothing() -> None:
    def plan(gaps: list[float]) -> str:
        return plan_turn_end(gaps, context_tokens=40_000, answer_tokens=300, price=SONNET).mode

    assert plan(list(DEFAULT_TURN_GAPS)) == "seal"
    assert plan([45.0] * 10) == "off"  # never away past the TTL: nothing to buy
    assert plan([45.0] * 9 + [1500.0]) == "seal"  # one long gap in ten already pays it
    # Away just past the TTL each time: one ping at a fraction of the seal's 2x answer write
    # is no cheaper than the seal, but nothing beats paying once per gap; both cost one read.
    costs = plan_turn_end(
        [400.0] * 10, context_tokens=40_000, answer_tokens=300, price=SONNET
    ).expected
    assert costs["pings"] <= costs["seal"] < costs["off"]


def test_openai_has_no_seal_its_plan_is_pings_or_nothing() -> None:
    gpt = PRICES.require("gpt-5")
    plan = plan_turn_end(DEFAULT_TURN_GAPS, context_tokens=40_000, answer_tokens=300, price=gpt)
    assert "seal" not in plan.expected and plan.mode in ("pings", "off")
    with pytest.raises(ValueError, match="1-hour"):
        plan_turn_end([600.0], context_tokens=1, answer_tokens=1, price=gpt, mode="seal")


async def _session_after(
    history_gap: float, tmp: Path
) -> tuple[list[dict[str, Any]], list[Event], list[Event]]:
    """A stored history of turns `history_gap` apart, then a new session with the default
    Agent: one turn, the user away 30 minutes (the clock driven, keep-alive ticks on), a turn."""
    with start_emulator() as emu:
        a = agent(emu, store=tmp / "s.db")
        assert a.policy == CachePolicy()  # no setting: the default policy
        async with a.session() as old:
            for i in range(40):
                await turn(old, f"earlier {i}")
                advance(emu, history_gap)
        async with a.session() as s:
            await turn(s, "look at src/app.py")
            before = len(emu.requests)
            ticks: list[Event] = []
            for _ in range(60):  # 30 minutes in 30 s steps
                advance(emu, 30)
                ticks += await s.keepalive_tick()
            extra = [r.body for r in emu.requests[before:]]
            events = await turn(s, "I'm back: what about f7?")
    return extra, ticks, events


async def test_the_default_agent_writes_the_turns_end_at_1h_when_gaps_are_long(
    tmp_path: Path,
) -> None:
    extra, ticks, events = await _session_after(1800.0, tmp_path)
    assert len(extra) == 1 and len(of(ticks, KeepAlivePing)) == 1  # one write, no pings
    seal = extra[0]
    assert seal["max_tokens"] == 0  # output-free
    answer = seal["messages"][-2]
    assert answer["role"] == "assistant"
    assert answer["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    marks = [t.get("cache_control") for t in seal["tools"]] + [
        b.get("cache_control") for b in seal["system"]
    ]
    assert {"type": "ephemeral", "ttl": "1h"} in marks and {"type": "ephemeral"} not in marks
    # 30 minutes later the next turn reads the whole conversation: no miss.
    first = of(events, UsageReport)[0]
    assert first.usage.cache_read > 0 and not of(events, CacheBreak)


async def test_the_default_agent_writes_nothing_more_when_gaps_are_past_the_hour(
    tmp_path: Path,
) -> None:
    extra, ticks, events = await _session_after(5 * 3600.0, tmp_path)
    assert extra == [] and ticks == []  # a 1-hour write would expire before they come back
    assert [b.cause for b in of(events, CacheBreak)][:1] == ["ttl"]


async def test_a_user_back_within_the_ttl_costs_no_write(tmp_path: Path) -> None:
    with start_emulator() as emu:
        async with agent(emu, store=tmp_path / "s.db").session() as s:
            await turn(s, "look at src/app.py")
            advance(emu, 200)
            assert await s.keepalive_tick() == []  # not due yet
            n = len(emu.requests)
            await turn(s, "and f7?")  # back before the write was due: none goes out
            assert len(emu.requests) == n + 2
            advance(emu, 290)
            # This turn's second request held the conversation up to its reply at 1h
            # (docs/savings.md#held-history): what a long gap would lose is too little for a
            # 1-hour write after the turn.
            held = emu.requests[-1].body["messages"][-2]
            assert held["role"] == "assistant"
            assert held["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
            assert await s.keepalive_tick() == []


async def test_after_a_one_turn_excursion_the_model_left_is_kept_for_the_hour_too(
    tmp_path: Path,
) -> None:
    """The user moves to another model for one turn and walks away: the conversation is held
    at 1h on both models, so coming back to the first one 30 minutes later reads it."""
    with start_emulator() as emu:
        async with agent(emu, store=tmp_path / "s.db").session() as s:
            await turn(s, "look at src/app.py")
            advance(emu, 45)
            s.switch_model("claude-sonnet-4-6", quote=s.quote_switch("claude-sonnet-4-6"))
            await turn(s, "and f3?")
            before = len(emu.requests)
            for _ in range(60):  # 30 minutes in 30 s steps
                advance(emu, 30)
                await s.keepalive_tick()
            # Each model's conversation is held at 1h by a request of its own turn (or by
            # an output-free 1-hour write after it, where nothing was held).
            seals = emu.requests[before:]
            assert all(r.body["max_tokens"] == 0 for r in seals)
            s.switch_model("claude-opus-4-7", quote=s.quote_switch("claude-opus-4-7"))
            events = await turn(s, "back on opus: what about f7?")
    first = of(events, UsageReport)[0]
    # The held part is read; only the last request's unheld tail (less than the held part)
    # is written again, which the plan priced below a 1-hour write of the whole context.
    rebilled = sum(b.tokens_rebilled for b in of(events, CacheBreak))
    assert first.usage.cache_read > 2 * rebilled


async def test_the_plan_keeps_the_newest_of_the_sessions_own_gaps() -> None:
    # A chat of thousands of turns must not keep a float a turn (issue 37): the plan takes the
    # newest OWN_GAPS of this session's gaps, beside the defaults.
    from prefixlock.guard.turn_end_runner import OWN_GAPS

    with start_emulator() as emu:
        async with agent(emu).session() as s:
            runner = s.turn_end
            for i in range(OWN_GAPS + 5):
                runner._ended = 0.0  # the previous turn's end; this turn starts `i` later
                runner.turn_started(float(i))
            assert runner.gaps() == [*range(5, OWN_GAPS + 5), *DEFAULT_TURN_GAPS]


async def test_the_sessions_own_gaps_are_held_packed() -> None:
    # A gap is 8 bytes held (a double), not a float object and the slot that points at it
    # (~32): what a thousand turns leave behind in the runner, measured by tracemalloc.
    import gc
    import tracemalloc

    from prefixlock.guard.turn_end_runner import OWN_GAPS

    with start_emulator() as emu:
        async with agent(emu).session() as s:
            runner = s.turn_end
            runner._ended = 0.0
            runner.turn_started(0.5)  # the first, outside the measure
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                for i in range(OWN_GAPS):
                    runner._ended = 0.0
                    runner.turn_started(i + 0.5)  # each gap its own float
                gc.collect()
                held = tracemalloc.get_traced_memory()[0] - before
            finally:
                tracemalloc.stop()
            assert held < OWN_GAPS * 16, held
