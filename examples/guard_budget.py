"""A cache-miss budget: a request that would re-bill too much is refused before it is sent."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.guard import CacheBudget, CacheBudgetExceeded


async def main() -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 600)
    clock = ManualClock()  # advanced by hand below: no real waiting
    with Emulator.start(clock=clock) as emu:
        agent = Agent(
            prefix,
            model="claude-opus-4-7",
            api_key="emulator",
            base_url=emu.base_url,
            clock=emu.clock,
            budget=CacheBudget(session_dollars=Decimal("0.01"), action_tokens=1000),
        )
        async with agent.session() as s:
            await s.ask("Hello.")
            await s.ask("Go on.")
            try:
                s.switch_model("claude-sonnet-4-6", policy="allow")
            except CacheBudgetExceeded as exc:
                print("switch refused:", exc)
            clock.advance(600)  # the cache expires while we are away
            sent = len(emu.requests)
            try:
                await s.ask("Still there?")
            except CacheBudgetExceeded as exc:
                print("turn refused:", exc)
            print("requests sent after the refusal:", len(emu.requests) - sent)


if __name__ == "__main__":
    asyncio.run(main())
