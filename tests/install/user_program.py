"""A user's program, type-checked by `.ci/install-check` against the installed package (py.typed)
with `mypy --strict`, outside this checkout. It also runs there, on the emulator."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from prefixlock import Agent, FrozenPrefix, Settings, tool
from prefixlock.emulator import Emulator
from prefixlock.events import TextDelta, UsageReport


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


async def main() -> None:
    prefix = FrozenPrefix(system="You count words. " * 1500, tools=[word_count])
    with Emulator.start() as emu:
        agent = Agent(
            prefix,
            model="claude-haiku-4-5",
            base_url=emu.base_url,
            api_key="test-key",
            settings=Settings(),
        )
        async with agent.session() as s:
            for question in ("How many words in 'a b c'?", "And in 'd e'?"):
                async for event in s.send(question):
                    if isinstance(event, TextDelta):
                        pass
                    elif isinstance(event, UsageReport):
                        read: int = event.usage.cache_read
                        assert read >= 0
            cost: Decimal | None = s.ledger.cost
            hit_rate: float = s.ledger.hit_rate
            print(f"hit rate {hit_rate:.1%}, cost {cost}")
            assert hit_rate > 0.4, "the second turn reads the first turn's cache"


if __name__ == "__main__":
    asyncio.run(main())
