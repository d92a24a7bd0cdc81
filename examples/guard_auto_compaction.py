"""Context windows: compact automatically at a threshold, and a warning before a prompt too long.

`Settings(compact_at=0.8)` compacts (cache-aligned, quoted and budgeted like `s.compact()`)
before the turn whose requests would fill 80% of the model's context window (the last request,
its reply and what a turn adds), as coding agents auto-compact, when compacting gets the
context under the threshold (a prompt past it alone is never compacted). A tiny threshold here
makes it happen on the second turn.
Without it, a request that would not fit gets a `ContextWindowWarning` before it is sent.
"""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import PrefixChanged, UsageReport
from prefixlock.settings import Settings


async def main() -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 40)
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            prefix,
            model="claude-haiku-4-5",
            api_key="emulator",
            base_url=emu.base_url,
            clock=emu.clock,
            settings=Settings(compact_at=0.004),
        )  # 800 of haiku's 200,000 tokens: compacting must get the context under it
        price = agent.prices.require("claude-haiku-4-5")
        print(f"context window {price.context_window:,} ({price.context_window_source})")
        async with agent.session() as s:
            await s.ask("Explain the invoice module. " * 100)
            async for e in s.send("And the tax module?"):
                if isinstance(e, PrefixChanged):
                    print(
                        f"compacted before the turn: {e.reason}, new prefix "
                        f"{e.new_fingerprint[:12]}"
                    )
                elif isinstance(e, UsageReport):
                    print(f"request of {e.usage.input_total} input tokens")
            print(f"compactions: {s.compactions}")
            # The example's claim, checked where the test suite runs it.
            assert s.compactions == 1, "the second turn should have compacted"


if __name__ == "__main__":
    asyncio.run(main())
