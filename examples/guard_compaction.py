"""Cache-aligned compaction on the emulator: the summary request reads the whole cached history.

The summary request is the session's next request with the compaction instruction appended, so
it reads everything the last turn cached; the session then moves to a new frozen prefix.
"""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import PrefixChanged, UsageReport


async def main() -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 500)
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
            for i in range(6):
                await s.ask(f"Step {i}: keep going with the task.")
                clock.advance(15)
            quote = s.quote_compaction()
            print(quote.summary())
            for e in await s.compact(quote=quote):
                if isinstance(e, UsageReport):
                    u = e.usage
                    print(f"summary request: read {u.cache_read} of {u.input_total} input tokens")
                elif isinstance(e, PrefixChanged):
                    print(f"new prefix {e.new_fingerprint[:12]} (was {e.old_fingerprint[:12]})")
            print(await s.ask("Continue from the summary."))


if __name__ == "__main__":
    asyncio.run(main())
