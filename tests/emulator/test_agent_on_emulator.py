"""prefixlock's Agent end to end on the emulator: faults are retried with no duplicated or lost
turn, and the guard's predictions match what the emulator reports."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import BUILTIN_PROMPTS, Emulator, EmulatorConfig
from prefixlock.emulator.workspace import Workspace, demo_prefix
from prefixlock.events import Event, ProviderFault, TurnComplete
from prefixlock.settings import Settings


def _agent(emu: Emulator, clock: ManualClock, waits: list[float], model: str) -> Agent:
    async def sleep(seconds: float) -> None:
        waits.append(seconds)  # never sleep for real

    return Agent(
        demo_prefix(Workspace(clock)),
        model=model,
        api_key="test-key",
        base_url=emu.base_url,
        clock=clock,
        settings=Settings(retries=4),
        sleep=sleep,
    )


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5.4", "openai-responses:gpt-5.4"])
def test_retries_recover_without_duplicated_or_lost_turns(model: str) -> None:
    clock = ManualClock()
    waits: list[float] = []
    with Emulator.start(config=EmulatorConfig(), clock=clock) as emu:
        emu.inject("529", retry_after=0.25)
        emu.inject("cut", after=1)
        emu.inject("sse-error", after=1)
        emu.inject("429", retry_after=0.5)
        agent = _agent(emu, clock, waits, model)

        async def run() -> tuple[list[Event], int]:
            async with agent.session() as s:
                events = [e async for e in s.send(BUILTIN_PROMPTS[0])]
                return events, len(s.transcript)

        events, messages = asyncio.run(run())
        faults = [e for e in events if isinstance(e, ProviderFault)]
        served = emu.served()
    # Turn 1 of the built-in session: 3 tool calls, then the answer = 4 requests, 8 messages.
    assert len(served) == 4
    assert messages == 8
    assert sum(isinstance(e, TurnComplete) for e in events) == 1
    assert len(faults) == 4
    assert 0.25 in waits and 0.5 in waits
    # Every request that completed carried a distinct conversation state (nothing repeated).
    sizes = [len(r.body.get("messages") or r.body.get("input") or []) for r in served]
    assert sizes == sorted(set(sizes))
    assert Counter(r.status for r in emu.requests)[200] == 6  # 4 served + cut + sse-error


def test_guard_prediction_matches_emulator_report() -> None:
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock) as emu:
        agent = _agent(emu, clock, [], "claude-sonnet-4-6")

        async def run() -> list[tuple[int | None, int]]:
            async with agent.session() as s:
                for prompt in BUILTIN_PROMPTS[:3]:
                    async for _ in s.send(prompt):
                        pass
                    clock.advance(45)
                return [(r.predicted_read, r.usage.cache_read) for r in s.ledger.rows]

        rows = asyncio.run(run())
    assert len(rows) == 11
    assert rows[0][1] == 0 and all(read > 20_000 for _, read in rows[1:])
    assert all(predicted == read for predicted, read in rows)
