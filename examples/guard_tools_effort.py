"""Price a tool-set change and an effort change before making them, on the local emulator.

Tools come first in what the cache sees, so adding one re-bills the whole context: the quote says
how much, and without it (or policy="allow") the change is refused while the cache is warm. An
effort change re-keys only the conversation: the tools and system prompt still read. A setting
that the cache does not see (the output limit) needs no quote at all.
"""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix, tool
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import CacheBreak, UsageReport
from prefixlock.guard.quote import QuoteRequired


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace."""
    return f"contents of {path}"


@tool
def grep(pattern: str) -> str:
    """Search the workspace for a pattern."""
    return f"no match for {pattern}"


async def main() -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 600, tools=[read_file])
    clock = ManualClock()
    with Emulator.start(clock=clock) as emu:
        agent = Agent(
            prefix, model="claude-opus-4-7", api_key="emulator", base_url=emu.base_url, clock=clock
        )
        async with agent.session() as s:
            for i in range(3):
                await s.ask(f"Question {i}: what is in README.md?")
                clock.advance(20)

            quote = s.quote_tools(add=[grep])
            print(quote.summary())
            try:
                s.change_tools(add=[grep])  # no quote: refused, nothing sent, nothing changed
            except QuoteRequired as exc:
                print(f"declined: {exc.where}; tools still {s.prefix.tool_names()}")

            effort = s.quote_effort(effort="high")
            print(effort.summary())
            s.change_effort(effort="high", quote=effort)
            async for e in s.send("Think harder: is README.md up to date?"):
                if isinstance(e, UsageReport):
                    print(f"read {e.usage.cache_read:,} (predicted {e.predicted_read:,})")
                elif isinstance(e, CacheBreak):
                    print(f"miss: {e.cause}, {e.tokens_rebilled:,} tokens re-billed")

            free = s.change_effort(max_tokens=1000)  # not part of the cached prefix
            print(f"max_tokens change: warns={free.warns}, re-bills {free.tokens_rebilled}")


if __name__ == "__main__":
    asyncio.run(main())
