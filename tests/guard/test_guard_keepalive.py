"""Keep-alive pings hold an idle session's cache warm, report their cost, stop at the cap."""

from __future__ import annotations

from decimal import Decimal

import pytest

from prefixlock.events import CacheBreak, Event, KeepAlivePing, UsageReport
from prefixlock.guard.keepalive import KeepAlive
from tests.helpers.guardkit import advance, agent, of, run_turns, start_emulator, turn


async def _idle(minutes: int, max_spend: str) -> tuple[list[KeepAlivePing], list[Event], KeepAlive]:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 5)
            cached = s.guard.last_cached_tokens
            ka = s.enable_keepalive(max_spend, margin=30)
            pings: list[KeepAlivePing] = []
            for _ in range(minutes * 2):  # the controlled clock, in 30 s steps
                advance(emu, 30)
                pings += of(await s.keepalive_tick(), KeepAlivePing)
            events = await turn(s, "I'm back: what about f7?")
            served = [r for r in emu.requests if r.body.get("max_tokens") == 0]
            assert len(served) == len(pings)  # every ping went out as a max_tokens=0 warm-up
            assert all(p.read_tokens == cached for p in pings)
            rows = [r for r in s.ledger.rows if r.meta.get("kind") == "ping"]
            assert len(rows) == len(pings)
    return pings, events, ka


async def test_keepalive_keeps_the_cache_warm_for_20_minutes() -> None:
    pings, events, ka = await _idle(20, "1.00")
    assert 4 <= len(pings) <= 5  # one ping per TTL, just before it runs out
    first = of(events, UsageReport)[0]
    assert first.usage.cache_read > 0 and not of(events, CacheBreak)
    total = sum((p.cost or Decimal(0) for p in pings), Decimal(0))
    assert total == ka.spent > 0
    assert ka.read_tokens == sum(p.read_tokens for p in pings)


async def test_pings_stop_at_the_spend_cap() -> None:
    pings, events, ka = await _idle(20, "0.010")
    assert 1 <= len(pings) < 4
    assert ka.spent <= Decimal("0.010") and ka.stopped == "cap"
    # With the pings stopped the cache expired: the next turn pays for it, named as such.
    assert [b.cause for b in of(events, CacheBreak)][:1] == ["ttl"]


async def test_no_ping_on_a_cold_or_fresh_cache() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            s.enable_keepalive()
            assert await s.keepalive_tick() == []  # nothing sent yet
            await run_turns(emu, s, 2)
            assert await s.keepalive_tick() == []  # not due: the cache has minutes left
            assert s.pings.next_ping_at() is not None
            advance(emu, 600)
            assert await s.keepalive_tick() == []  # already expired: nothing to keep


async def test_no_ping_for_a_prefix_the_session_has_left() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            s.enable_keepalive()
            await s.compact(policy="allow")
            advance(emu, 290)
            assert await s.keepalive_tick() == []  # the old history is not worth a ping
            await turn(s, "continue")
            advance(emu, 290)
            assert len(of(await s.keepalive_tick(), KeepAlivePing)) == 1


async def test_a_bad_spend_cap_is_a_user_error() -> None:
    from prefixlock.errors import UserError

    with start_emulator() as emu:
        async with agent(emu).session() as s:
            for bad in ("abc", -1, "NaN"):
                with pytest.raises(UserError) as e:
                    s.enable_keepalive(bad)
                assert e.value.where == "keepalive.max_spend"
            with pytest.raises(UserError, match="seconds"):
                s.enable_keepalive("0.10", margin=-5)
            assert s.pings.keepalive is None  # nothing half set up


async def test_a_failed_ping_is_reported_once_and_not_retried_every_tick() -> None:
    from prefixlock.errors import ProviderError
    from prefixlock.settings import Settings

    with start_emulator() as emu:
        async with agent(emu, settings=Settings(retries=0)).session() as s:
            await run_turns(emu, s, 2)
            s.enable_keepalive("1.00")
            advance(emu, 260)  # the ping is due
            emu.inject("500", count=5)
            with pytest.raises(ProviderError):
                await s.keepalive_tick()
            n = len(emu.requests)
            for _ in range(3):
                assert await s.keepalive_tick() == []  # no retry storm
            assert len(emu.requests) == n
            emu.clear_faults()
            await turn(s, "back again")  # a real request: pings may resume
            advance(emu, 270)
            assert len(of(await s.keepalive_tick(), KeepAlivePing)) == 1
