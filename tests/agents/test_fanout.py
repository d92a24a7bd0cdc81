"""Warm-then-fan-out: four parallel subagents on one 20K-token prefix pay one cache write."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agents import AgentRegistry, SubagentDelegator, parse_definition
from harness.agent import Agent
from harness.clock import ManualClock
from harness.emulator import Emulator, EmulatorConfig, FaultSpec, Script
from harness.prefix import FrozenPrefix

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
        agent = Agent(FrozenPrefix(system="parent"), model="claude-opus-4-7", api_key="test-key",
                      base_url=emu.base_url, clock=clock, delegator=delegator)
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


@pytest.mark.parametrize("from_code", [False, True], ids=["fan_out", "gathered-delegate"])
async def test_warm_then_fan_out_pays_one_write(from_code: bool) -> None:
    usages, shared = await _fan_out(True, [], from_code=from_code)
    assert shared >= 20_000
    assert len(usages) == 4
    writes = [u["cache_creation_input_tokens"] for u in usages]
    reads = [u["cache_read_input_tokens"] for u in usages]
    # The first subagent writes the shared prefix; the other three read it and write only
    # their own task (a few dozen tokens).
    assert writes[0] >= shared and reads[0] == 0
    assert all(r >= shared for r in reads[1:])
    assert all(w < 100 for w in writes[1:])
    assert sum(writes) < shared + 300


async def test_starting_all_at_once_pays_four_writes() -> None:
    # Baseline: on a cold prefix, parallel requests whose responses have not started yet all
    # miss (the emulator holds each response until the clock moves).
    slow = [FaultSpec(kind="latency", count=4, seconds=1.0)]
    usages, shared = await _fan_out(False, slow)
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
        agent = Agent(FrozenPrefix(system="parent"), model="gpt-5-mini", api_key="test-key",
                      base_url=emu.base_url + "/v1", clock=clock, delegator=delegator)
        async with agent.session() as s:
            results = await delegator.fan_out(s, TASKS, agent="checker", model="gpt-5-mini")
        keys = {r.body.get("prompt_cache_key") for r in emu.requests if r.status == 200}
    shared = delegator.prefix_for(delegator.registry.get("checker")).tokens
    assert len(keys) == 1 and None not in keys
    assert results[0].usage.cache_read == 0
    assert all(r.usage.cache_read >= shared - 256 for r in results[1:])
