"""gpt-5.6 prompt caching on the emulator: why the stable boundary needs a breakpoint.

gpt-5.6 and later write cache entries only at breakpoints and match them exactly. By default
OpenAI places one at the end of the newest input message; when that message changes every turn
(here: the current time, sent as volatile text), the long system prompt before it is never read
back and is written again, at 1.25x the input price, every turn. prefixlock marks the end of the
system prompt (and the last stable message) with `prompt_cache_breakpoint`; in explicit mode
OpenAI's own breakpoint is dropped too, so the volatile text is never written. The same 8-turn
session runs in the three modes, offline, through the official `openai` SDK.
"""

from __future__ import annotations

import asyncio

from prefixlock import Agent, FrozenPrefix
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import CacheBreak
from prefixlock.settings import Settings

SYSTEM = " ".join(
    f"Rule {i}: cite files, keep answers short, never edit generated code." for i in range(300)
)
SCRIPT = Script(rules=[Rule(match=".", steps=[Step(text="Done: the list was empty.")])])
MODES = {
    "implicit only (OpenAI's default)": Settings(openai_breakpoints=False),
    "hybrid (prefixlock's default)": Settings(),
    "explicit": Settings(openai_cache_mode="explicit"),
}


async def run(settings: Settings) -> str:
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system=SYSTEM),
            model="gpt-5.6-terra",
            api_key="any-key",
            base_url=emu.base_url,
            clock=clock,
            settings=settings,
        )
        causes: set[str] = set()
        async with agent.session() as s:
            for turn in range(8):
                async for event in s.send(
                    f"Turn {turn}: check f{turn}.", volatile=[f"Now: 12:{turn:02d}"]
                ):
                    if isinstance(event, CacheBreak):
                        causes.add(event.cause)
                clock.advance(60)
            rows = s.ledger.rows
            read = sum(r.usage.cache_read for r in rows)
            written = sum(r.usage.cache_write for r in rows)
            uncached = sum(r.usage.uncached_input for r in rows)
            cost = s.ledger.cost
    why = f"  misses: {', '.join(sorted(causes))}" if causes else ""
    return (
        f"read {read:6d}  written {written:6d}  uncached {uncached:4d}  "
        f"hit {s.ledger.hit_rate:6.1%}  ${cost:.5f}{why}"
    )


async def main() -> None:
    for name, settings in MODES.items():
        print(f"{name:34s} {await run(settings)}")


if __name__ == "__main__":
    asyncio.run(main())
