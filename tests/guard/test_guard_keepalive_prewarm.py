"""Keep-alive on gpt-5.6+ Responses pings with `prompt_cache_options.prewarm`: no output billed.

The openai SDK documents prewarm as "Prepares the prompt cache without generating output"; the
emulator serves it as a request that reads and writes the cache and generates nothing. A ping
that re-sends the last request as a prewarm refreshes the 30-minute entry for its cache read
alone, and the keep-alive prices it so. Chat Completions keeps the 1-token ping.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.events import CacheBreak, Event, KeepAlivePing, UsageReport
from prefixlock.guard.keepalive import plan_ping
from tests.helpers.guardkit import advance, agent, of, run_turns, start_emulator, turn

MODEL = "gpt-5.6-terra"


def _is_ping(body: Any) -> bool:
    """A keep-alive ping as served: a prewarm, or a request capped at the smallest output."""
    opts = body.get("prompt_cache_options") or {}
    return bool(opts.get("prewarm")) or body.get("max_completion_tokens") == 1


async def _idle_then_turn(
    model: str, minutes: float, keepalive: bool
) -> tuple[list[KeepAlivePing], list[Event], list[Any], list[Any], list[Decimal | None]]:
    """Three turns, `minutes` idle ticking every 30 s, one more turn. Returns the pings, the
    last turn's events, the pings' ledger rows, the bodies the emulator served for them, and
    the cost each ping was planned at."""
    with start_emulator() as emu:
        async with agent(emu, model=model).session() as s:
            await run_turns(emu, s, 3)
            ka = s.enable_keepalive("1.00", margin=30) if keepalive else None
            pings: list[KeepAlivePing] = []
            planned: list[Decimal | None] = []
            for _ in range(int(minutes * 2)):
                advance(emu, 30)
                if ka is None:
                    continue
                plan = plan_ping(s.guard, s.requests[-1], ka, emu.clock.now())
                got = of(await s.keepalive_tick(), KeepAlivePing)
                if got:
                    planned.append(plan.cost)
                pings += got
            events = await turn(s, "I'm back: what about f7?")
            rows = [r for r in s.ledger.rows if r.meta.get("kind") == "ping"]
            bodies = [r.body for r in emu.requests if _is_ping(r.body)]
    return pings, events, rows, bodies, planned


async def test_a_prewarm_ping_keeps_gpt_5_6_responses_warm_for_its_cache_read_alone() -> None:
    pings, events, rows, bodies, planned = await _idle_then_turn(
        "openai-responses:" + MODEL, 55, keepalive=True
    )
    # One ping, just before the 30-minute entry ran out; the turn 25 minutes after it reads.
    assert len(pings) == 1 and len(rows) == 1
    body = bodies[0]
    assert body["prompt_cache_options"]["prewarm"] is True and "max_output_tokens" not in body
    row = rows[0]
    price = PriceTable.default().require(MODEL)
    read = pings[0].read_tokens
    assert read > 0 and row.usage == Usage(0, read, 0, 0, 0, row.usage.raw)
    # What the ledger records is the cache read alone, and the plan priced it the same.
    expected = price.cost(Usage(0, read, 0, 0, 0))
    assert pings[0].cost == row.cost == planned[0] == expected
    first = of(events, UsageReport)[0]
    assert first.usage.cache_read >= read and not of(events, CacheBreak)


async def test_without_the_ping_the_entry_expires() -> None:
    _, events, *_ = await _idle_then_turn("openai-responses:" + MODEL, 55, keepalive=False)
    assert [b.cause for b in of(events, CacheBreak)][:1] == ["ttl"]


async def test_chat_completions_keeps_the_one_token_ping_and_prices_its_output() -> None:
    pings, events, rows, bodies, planned = await _idle_then_turn(
        "openai-chat:" + MODEL, 55, keepalive=True
    )
    assert len(pings) == 1
    body = bodies[0]
    assert body["max_completion_tokens"] == 1
    assert "prewarm" not in (body.get("prompt_cache_options") or {})
    price = PriceTable.default().require(MODEL)
    read = pings[0].read_tokens
    # Priced at its cache read plus the one output token it may bill.
    assert planned[0] == price.cost(Usage(0, read, 0, 0, 1))
    assert rows[0].usage.cache_read == read
    assert not of(events, CacheBreak)
