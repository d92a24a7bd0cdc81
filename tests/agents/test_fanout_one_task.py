"""fan_out with one task given as a string runs one subagent, not one per letter.

A str is a Sequence[str], so `fan_out(parent, "check the imports")` type-checked and started
17 subagents, one for each character, each paying for its own requests.
"""

from __future__ import annotations

from prefixlock.agent import Agent
from prefixlock.agents import SubagentDelegator
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Script
from prefixlock.prefix import FrozenPrefix


async def test_one_task_as_a_string_is_one_subagent() -> None:
    with Emulator.start(clock=ManualClock(), script=Script(default="Nothing found.")) as emu:
        delegator = SubagentDelegator()
        agent = Agent(
            FrozenPrefix(system="parent"),
            model="claude-opus-4-7",
            api_key="test-key",
            base_url=emu.base_url,
            delegator=delegator,
        )
        async with agent.session() as s:
            results = await delegator.fan_out(s, "check the imports", agent="explorer")
        assert len(results) == 1 and results[0].error is None
        assert results[0].summary == "Nothing found."
