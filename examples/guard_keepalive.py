"""Keep an idle session's cache warm with keep-alive pings, on the emulator's controlled clock.

Twenty idle minutes in 30-second steps: a ping goes out just before the cache would expire,
only while pings cost less than the re-write they save, and never past the spend cap.
"""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import KeepAlivePing, UsageReport


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
        )
        async with agent.session() as s:
            await s.ask("Look at the repository, please.")
            ka = s.enable_keepalive(max_spend="0.25", margin=30)
            for _ in range(40):
                clock.advance(30)
                for e in await s.keepalive_tick():
                    if isinstance(e, KeepAlivePing):
                        print(f"ping: read {e.read_tokens} tokens for ${e.cost:.5f}")
            print(f"{ka.pings} pings, ${ka.spent:.5f} in all (cap ${ka.max_spend})")
            async for e in s.send("I'm back. Where were we?"):
                if isinstance(e, UsageReport):
                    print(f"after 20 idle minutes: {e.usage.cache_read} cached tokens read")
                    break


if __name__ == "__main__":
    asyncio.run(main())
