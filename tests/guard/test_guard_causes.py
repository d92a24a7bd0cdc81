"""Every cause of a cache miss, provoked on the emulator, is named by the guard."""

from __future__ import annotations

from decimal import Decimal

import pytest

from prefixlock.events import CacheBreak, UsageReport
from prefixlock.guard import CacheBudget, CacheBudgetExceeded
from tests.helpers.guardkit import (
    SYSTEM,
    advance,
    agent,
    grep,
    of,
    prefix,
    run_turns,
    sent,
    start_emulator,
    turn,
)


async def _miss_after(action: str) -> tuple[list[CacheBreak], list[UsageReport]]:
    small = action == "below_minimum"
    pfx = prefix(system="Be brief.") if small else prefix()
    with start_emulator() as emu:
        async with agent(emu, pfx=pfx).session() as s:
            await run_turns(emu, s, 1 if small else 3)
            if action == "model":
                s.switch_model("claude-sonnet-4-6", policy="allow")
            elif action == "tools":
                s.change_tools(add=[grep], quote=s.quote_tools(add=[grep]))
            elif action == "system":
                new = pfx.replace(system=SYSTEM + " Also: prefer small diffs.")
                s.change_prefix(new, quote=s.quote_prefix(new))
            elif action == "history":
                s.transcript = s.transcript.fork(len(s.transcript) - 4)  # drop the last turn
            elif action == "ttl":
                advance(emu, 301)
            elif action == "unexplained":
                assert emu.evict() > 0  # the provider drops its entries
            events = await turn(s, "Once more: what does f9 do?")
            by_cause = s.guard.snapshot()["by_cause"]
    breaks = of(events, CacheBreak)
    assert by_cause.get(action, 0) > 0
    return breaks, of(events, UsageReport)


@pytest.mark.parametrize(
    "action", ["model", "tools", "system", "history", "ttl", "below_minimum", "unexplained"]
)
async def test_each_cause_is_named(action: str) -> None:
    breaks, reports = await _miss_after(action)
    assert {b.cause for b in breaks} == {action}
    brk = breaks[0]
    assert brk.tokens_rebilled > 0 and brk.dollars is not None and brk.dollars > 0
    first = reports[0]
    if action == "unexplained":
        # The guard predicted a read the provider did not serve.
        assert first.predicted_read and first.predicted_read > 0 and first.usage.cache_read == 0
        assert brk.tokens_rebilled == first.predicted_read
    elif action == "below_minimum":
        assert first.usage.cache_read == 0 and first.usage.cache_write == 0
    else:
        # The prediction was right: the miss was foreseen, not a surprise.
        assert first.predicted_read == first.usage.cache_read


async def test_no_break_on_an_append_only_session() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            events = []
            for i in range(8):
                events += await turn(s, f"Turn {i}: and f{i}?")
                advance(emu, 30)
    assert not of(events, CacheBreak)
    reports = of(events, UsageReport)
    assert all(r.predicted_read == r.usage.cache_read for r in reports)


async def test_miss_budget_stops_the_request_before_it_is_sent() -> None:
    with start_emulator() as emu:
        a = agent(emu, budget=CacheBudget(session_tokens=1000))
        async with a.session() as s:
            await run_turns(emu, s, 3)
            advance(emu, 3601)  # past the hour the policy holds it: the next request re-bills
            n_sent = sent(emu)
            with pytest.raises(CacheBudgetExceeded, match="nothing was sent"):
                await turn(s, "still there?")
            assert sent(emu) == n_sent
            # Raising the limit lets the same turn go out; the re-bill is then counted.
            s.budget = CacheBudget(session_tokens=1_000_000)
            events = await turn(s, "still there?")
            assert of(events, CacheBreak)[0].cause == "ttl"
            assert s.guard.rebilled_tokens == of(events, CacheBreak)[0].tokens_rebilled


async def test_per_action_budget_refuses_a_switch() -> None:
    with start_emulator() as emu:
        async with agent(emu, budget=CacheBudget(action_dollars=Decimal("0.001"))).session() as s:
            await run_turns(emu, s, 3)
            quote = s.quote_switch("claude-sonnet-4-6")
            n_sent = sent(emu)
            with pytest.raises(CacheBudgetExceeded, match="per-action"):
                s.switch_model("claude-sonnet-4-6", quote=quote)
            assert s.model == "claude-opus-4-7" and sent(emu) == n_sent
