"""The provider's own cache-miss verdict beside prefixlock's, on the local emulator.

With `Settings(cache_diagnostics=True)` every request names the previous response and the
provider says why it missed (Anthropic's cache-diagnostics beta; OpenAI's comparison id). The
emulator answers those fields, so a tool added mid-session shows both causes: ours ("tools") and
the provider's ("tools_changed"). The beta field names are in prefixlock.providers.diagnostics.
"""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix, Settings, tool
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import CacheBreak


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace."""
    return f"contents of {path}"


@tool
def grep(pattern: str) -> str:
    """Search the workspace for a pattern."""
    return f"no match for {pattern}"


async def main() -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 400, tools=[read_file])
    clock = ManualClock()  # advanced by hand below: no real waiting
    with Emulator.start(clock=clock) as emu:
        agent = Agent(
            prefix,
            model="claude-opus-4-7",
            api_key="emulator",
            base_url=emu.base_url,
            clock=emu.clock,
            settings=Settings(cache_diagnostics=True),
        )
        async with agent.session() as s:
            for i in range(3):
                await s.ask(f"Question {i}: what is in README.md?")
                clock.advance(20)
            s.change_tools(add=[grep], policy="allow")  # a new tool re-bills everything
            async for e in s.send("Now search for TODO."):
                if isinstance(e, CacheBreak):
                    print(
                        f"miss: ours={e.cause!r}, provider's={e.provider_verdict!r}, "
                        f"{e.tokens_rebilled:,} tokens re-billed"
                    )


if __name__ == "__main__":
    asyncio.run(main())
