"""Warm-then-fan-out: four parallel subagents on one 20K-token prefix pay one cache write."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest

from prefixlock.agent import Agent
from prefixlock.agents import AgentRegistry, SubagentDelegator, parse_definition
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, FaultSpec, Script
from prefixlock.prefix import FrozenPrefix

SUB_MODEL = "claude-haiku-4-5"
TASKS = [f"FAN-{i}: check module {i} for unused imports" for i in range(4)]


def _reference_agent() -> AgentRegistry:
    manual = "\n".join(
        f"Reference {i}: module_{i} exports handler_{i}, reads config key section_{i}.value "
        f"and logs at level {i % 5}; callers must hold lock_{i % 3} first."
        for i in range(490)
    )
    d = parse_definition(
        f"---\nname: checker\nmodel: haiku\ntools: []\n---\n{manual}\n", "checker.md"
    )
    return AgentRegistry([d])


async def _fan_out(
    warm_first: bool, faults: list[FaultSpec], *, from_code: bool = False
) -> tuple[list[dict[str, int]], int]:
    clock = ManualClock()
    config = EmulatorConfig(faults=faults)
    script = Script(default="No unused imports.")
    with Emulator.start(config=config, clock=clock, script=script) as emu:
        delegator = SubagentDelegator(_reference_agent())
        shared = delegator.prefix_for(delegator.registry.get("checker")).tokens
        agent = Agent(
            FrozenPrefix(system="parent"),
            model="claude-opus-4-7",
            api_key="test-key",
            base_url=emu.base_url,
            clock=clock,
            delegator=delegator,
        )
        async with agent.session() as s:
            job: asyncio.Future[Any]
            if from_code:
                # User code gathering s.delegate(): the delegator coordinates these too.
                job = asyncio.ensure_future(
                    asyncio.gather(*(s.delegate(t, agent="checker") for t in TASKS))
                )
            else:
                job = asyncio.ensure_future(
                    delegator.fan_out(s, TASKS, agent="checker", warm_first=warm_first)
                )
            if faults:
                # The slow responses: let all four requests be in flight, then let time pass.
                while emu.in_flight < len(TASKS) and not job.done():
                    await asyncio.sleep(0.001)
                clock.advance(5)
            await job
            results = delegator.results
            if from_code:
                assert len(s.transcript) == 2 * len(TASKS)  # a call/summary pair per task
        assert len(results) == 4 and all(r.ok for r in results), [r.summary for r in results]
        usages = [r.usage for r in emu.requests if r.model == SUB_MODEL and r.usage]
        return usages, shared


# Haiku 4.5 input rates, $ per million tokens (docs/providers.md#anthropic-prices): uncached, 5m
# write, read.
HAIKU_IN, HAIKU_WRITE, HAIKU_READ = Decimal("1.00"), Decimal("1.25"), Decimal("0.10")


def _input_dollars(usages: list[dict[str, int]]) -> Decimal:
    return (
        sum(
            (
                u["input_tokens"] * HAIKU_IN
                + u["cache_creation_input_tokens"] * HAIKU_WRITE
                + u["cache_read_input_tokens"] * HAIKU_READ
                for u in usages
            ),
            Decimal(0),
        )
        / 1_000_000
    )


@pytest.mark.parametrize("from_code", [False, True], ids=["fan_out", "gathered-delegate"])
async def test_warm_then_fan_out_pays_one_write(from_code: bool) -> None:
    usages, shared = await _fan_out(True, [], from_code=from_code)
    cold, _ = await _fan_out(False, SLOW)
    assert shared >= 20_000
    assert len(usages) == len(cold) == 4
    writes = [u["cache_creation_input_tokens"] for u in usages]
    reads = [u["cache_read_input_tokens"] for u in usages]
    total = writes[0]  # every request is the shared prefix plus a task of the same length
    assert [u["input_tokens"] for u in usages] == [0, 0, 0, 0]
    # One write of the shared prefix: the first subagent writes its whole request; the other
    # three read the shared part (R tokens, the prefix and what the tasks have in common) and
    # write only the rest of their own task.
    shared_read = reads[1]
    assert shared <= shared_read < total
    assert reads == [0, shared_read, shared_read, shared_read]
    assert writes == [total] + [total - shared_read] * 3
    assert total - shared_read < 100
    assert sum(1 for w in writes if w >= shared) == 1
    # Started all at once, each of the four writes the whole request.
    assert [u["cache_creation_input_tokens"] for u in cold] == [total] * 4
    assert sum(u["cache_read_input_tokens"] for u in cold) == 0
    # In dollars, by hand: three subagents read R tokens at $0.10/M instead of writing them at
    # $1.25/M, i.e. 3 x R x 1.15 / 1M saved (R = 20,186 today: $0.06964).
    saved = _input_dollars(cold) - _input_dollars(usages)
    assert saved == 3 * shared_read * (HAIKU_WRITE - HAIKU_READ) / 1_000_000
    assert saved > Decimal("0.069")


SLOW = [FaultSpec(kind="latency", count=4, seconds=1.0)]


async def test_starting_all_at_once_pays_four_writes() -> None:
    # Baseline: on a cold prefix, parallel requests whose responses have not started yet all
    # miss (the emulator holds each response until the clock moves).
    usages, shared = await _fan_out(False, SLOW)
    writes = [u["cache_creation_input_tokens"] for u in usages]
    assert len(writes) == 4 and all(w >= shared for w in writes)
    assert sum(u["cache_read_input_tokens"] for u in usages) == 0


async def test_openai_siblings_share_a_cache_key_and_read_the_prefix() -> None:
    # OpenAI routes by prefix hash + prompt_cache_key: siblings on one prefix send one key, so
    # they land on the machine that holds the prefix (no write fee there; the hits count).
    clock = ManualClock()
    script = Script(default="No unused imports.")
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=script) as emu:
        delegator = SubagentDelegator(_reference_agent())
        agent = Agent(
            FrozenPrefix(system="parent"),
            model="gpt-5-mini",
            api_key="test-key",
            base_url=emu.base_url + "/v1",
            clock=clock,
            delegator=delegator,
        )
        async with agent.session() as s:
            results = await delegator.fan_out(s, TASKS, agent="checker", model="gpt-5-mini")
        keys = {r.body.get("prompt_cache_key") for r in emu.requests if r.status == 200}
    shared = delegator.prefix_for(delegator.registry.get("checker")).tokens
    assert len(keys) == 1 and None not in keys
    assert results[0].usage.cache_read == 0
    assert all(r.usage.cache_read >= shared - 256 for r in results[1:])
