"""A switch quote's subagent alternative says in typed fields whether the subagent beats the
switch, and by how much, in Decimal dollars (it was only `detail["cheaper"]`, money as
strings)."""

from __future__ import annotations

from decimal import Decimal

from prefixlock import Agent, Alternative, FrozenPrefix, TaskProfile
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator


async def test_the_subagent_alternative_is_typed() -> None:
    prefix = FrozenPrefix(system="You review code and keep notes.\n" * 600)
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            prefix,
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
        )
        async with agent.session() as s:
            await s.ask("Look at the parser.")
            await s.ask("And the tests.")
            quote = s.quote_switch("claude-haiku-4-5")
    subagent = next(a for a in quote.alternatives if a.kind == "subagent")
    wait = next(a for a in quote.alternatives if a.kind == "wait")
    assert isinstance(subagent, Alternative)
    assert isinstance(subagent.dollars, Decimal) and isinstance(subagent.switch_cost, Decimal)
    assert subagent.saving == subagent.switch_cost - subagent.dollars
    assert subagent.beats_switch == (subagent.detail["cheaper"] == "subagent")
    assert isinstance(subagent.task, TaskProfile) and subagent.task.turns >= 1
    assert Decimal(subagent.detail["switch_cost"]) == subagent.switch_cost  # the same figure
    assert wait.after_seconds is not None and wait.after_seconds > 0
    assert wait.beats_switch is None and wait.saving is None
