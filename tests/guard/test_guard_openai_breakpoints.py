"""The guard on gpt-5.6-family sessions: its predictions equal what the emulator reports in every
caching mode, and a changed suffix that no breakpoint protects is named as such."""

from __future__ import annotations

from decimal import Decimal

import pytest

from prefixlock.billing.usage import Usage
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import CacheBreak, Event, UsageReport
from prefixlock.session import Session
from prefixlock.settings import Settings
from tests.helpers.guardkit import advance, agent, of, prefix

# One answer per user turn: each turn is one request, so volatile text cannot send the
# scripted model round a tool loop, and no prefix passes the per-minute routing limit.
ANSWER = Script(rules=[Rule(match=".", steps=[Step(text="Checked; the list was empty.")])])
MODELS = ["gpt-5.6-terra", "openai-responses:gpt-5.6-terra"]
MODES = {
    "implicit-only": Settings(openai_breakpoints=False),
    "hybrid": Settings(),
    "explicit": Settings(openai_cache_mode="explicit"),
}


def _dollars(u: Usage) -> Decimal:
    """gpt-5.6-terra by hand ($/M: input 2, read 0.20, write 2.50, output 12)."""
    return (
        u.uncached_input * Decimal(2)
        + u.cache_read * Decimal("0.20")
        + u.cache_write_5m * Decimal("2.50")
        + u.output * Decimal(12)
    ) / Decimal(1_000_000)


def _emulator() -> Emulator:
    return Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=ANSWER)


async def _turn(s: Session, i: int) -> list[Event]:
    # The time goes in as volatile text: a suffix that changes every turn.
    return [e async for e in s.send(f"Turn {i}: check f{i}.", volatile=[f"Now: 12:{i:02d}"])]


async def _session(model: str, settings: Settings, turns: int = 5) -> tuple[list[Event], Session]:
    with _emulator() as emu:
        async with agent(emu, model=model, pfx=prefix(), settings=settings).session() as s:
            events: list[Event] = []
            for i in range(turns):
                events += await _turn(s, i)
                advance(emu, 60)
    return events, s


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("mode", list(MODES))
async def test_predictions_equal_the_emulator_in_every_mode(model: str, mode: str) -> None:
    events, s = await _session(model, MODES[mode])
    reports = of(events, UsageReport)
    assert len(reports) == 5
    assert [r.predicted_read for r in reports] == [r.usage.cache_read for r in reports]
    assert s.ledger.cost == sum((_dollars(r.usage) for r in reports), Decimal(0))
    breaks = of(events, CacheBreak)
    if mode == "implicit-only":
        # OpenAI's own breakpoint sits on the changing time: the prompt is re-written each turn.
        assert all(r.usage.cache_read == 0 for r in reports)
        assert [b.cause for b in breaks] == ["breakpoint"] * 4
        assert "mark the stable boundary" in breaks[0].detail
        assert all(b.dollars is not None and b.dollars > 0 for b in breaks)
    else:
        assert all(r.usage.cache_read > 0 for r in reports[1:])
        assert not breaks


@pytest.mark.parametrize("model", MODELS)
async def test_hybrid_and_explicit_cost_less_than_implicit_only(model: str) -> None:
    cost: dict[str, Decimal] = {}
    writes: dict[str, int] = {}
    for mode, settings in MODES.items():
        events, s = await _session(model, settings)
        assert s.ledger.cost is not None
        cost[mode] = s.ledger.cost
        writes[mode] = sum(r.usage.cache_write_5m for r in of(events, UsageReport))
    assert cost["hybrid"] < cost["implicit-only"] / 2
    # Explicit mode never writes the volatile text: fewer writes, lower cost than hybrid.
    assert writes["explicit"] < writes["hybrid"] and cost["explicit"] < cost["hybrid"]


async def test_thirty_minute_expiry_is_named() -> None:
    with _emulator() as emu:
        async with agent(emu, model=MODELS[0], pfx=prefix()).session() as s:
            await _turn(s, 0)
            advance(emu, 29 * 60)
            warm = await _turn(s, 1)
            advance(emu, 30 * 60 + 1)
            cold = await _turn(s, 2)
    assert not of(warm, CacheBreak) and of(warm, UsageReport)[0].usage.cache_read > 0
    late = of(cold, UsageReport)[0]
    assert late.usage.cache_read == late.predicted_read == 0
    assert [b.cause for b in of(cold, CacheBreak)] == ["ttl"]
