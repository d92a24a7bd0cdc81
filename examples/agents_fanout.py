"""Warm-then-fan-out: four parallel subagents on one 20K-token prefix pay one cache write.

Runs offline on the local emulator. The `checker` agent carries a 20K-token reference manual
in its prompt, so its four subagents share one prefix. Started all at once on a cold cache,
each would pay to write that prefix; warm-then-fan-out runs the first until its first response
has started (its cache write is readable), then starts the other three, which read it.
"""

from __future__ import annotations

import asyncio

from prefixlock.agent import Agent
from prefixlock.agents import AgentRegistry, SubagentDelegator, parse_definition
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Script
from prefixlock.prefix import FrozenPrefix

MANUAL = "\n".join(
    f"Reference {i}: module_{i} exports handler_{i}, reads config key section_{i}.value "
    f"and logs at level {i % 5}; callers must hold lock_{i % 3} first."
    for i in range(490)
)
CHECKER = parse_definition(
    f"---\nname: checker\ndescription: Checks one module.\nmodel: haiku\ntools: []\n---\n{MANUAL}",
    "checker.md",
)


async def main() -> None:
    clock = ManualClock()
    script = Script(default="No unused imports found.")
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=script) as emu:
        delegator = SubagentDelegator(AgentRegistry([CHECKER]))
        shared = delegator.prefix_for(CHECKER).tokens
        agent = Agent(
            FrozenPrefix(system="parent"),
            model="claude-opus-4-7",
            api_key="test-key",
            base_url=emu.base_url,
            clock=clock,
            delegator=delegator,
        )
        async with agent.session() as s:
            tasks = [f"Check module {i} for unused imports." for i in range(4)]
            results = await delegator.fan_out(s, tasks, agent="checker")
        print(f"shared subagent prefix: {shared:,} tokens")
        for i, r in enumerate(results):
            print(
                f"subagent {i}: wrote {r.usage.cache_write:,}, read {r.usage.cache_read:,} "
                f"tokens, ${r.cost:.5f}"
            )
        writes = sum(r.usage.cache_write for r in results)
        total = sum((r.cost for r in results if r.cost is not None), start=0)
        print(f"cache writes in all: {writes:,} tokens (one prefix write), cost ${total:.5f}")
        assert writes < 2 * shared


if __name__ == "__main__":
    asyncio.run(main())
