"""What the default `Agent` writes at 1 hour: the model's last reply, on every request that read
its predecessor (docs/savings.md#held-history), on the emulator's controlled clock.

Three turns of a tool loop, then the user is away 40 minutes. Anthropic bills a 1-hour mark only
past the entry the request read, so each request pays 2x on the reply alone and its entry holds
the whole conversation for an hour; the next turn re-writes only what came after it. The same
session with `CachePolicy(idle="off")` (5 minutes everywhere) writes it all again.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import UsageReport
from prefixlock.guard.policy import CachePolicy


async def session(policy: CachePolicy) -> Decimal:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 600)
    clock = ManualClock()  # advanced by hand below: no real waiting
    with Emulator.start(clock=clock) as emu:
        agent = Agent(
            prefix,
            model="claude-sonnet-4-6",
            api_key="emulator",
            base_url=emu.base_url,
            clock=clock,
            policy=policy,
        )
        async with agent.session() as s:
            for i in range(3):
                async for e in s.send(f"Step {i}: look at src/app.py and tell me what f{i} does."):
                    if isinstance(e, UsageReport) and e.usage.cache_write_1h:
                        print(f"  held at 1h: {e.usage.cache_write_1h} tokens (the reply)")
                clock.advance(20)
            clock.advance(40 * 60)  # the user walks away
            async for e in s.send("I'm back. Where were we?"):
                if isinstance(e, UsageReport):
                    u = e.usage
                    print(f"  after 40 minutes: read {u.cache_read}, wrote {u.cache_write}")
                    break
            cost = s.ledger.total_cost
            assert cost is not None
            return cost


async def main() -> None:
    print("default CachePolicy():")
    held = await session(CachePolicy())
    print(f"  session ${held:.4f}")
    print('CachePolicy(idle="off"), 5 minutes everywhere:')
    off = await session(CachePolicy(idle="off"))
    print(f"  session ${off:.4f}")


if __name__ == "__main__":
    asyncio.run(main())
