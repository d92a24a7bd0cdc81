"""Price a model switch before making it, on the local emulator (no key, no network).

A 12-turn session on an Opus-class model, then a switch to a Sonnet-class one: the quote says
how many cached tokens the switch re-bills, what the next turn costs both ways, the break-even,
how long the cache stays warm, and the cheaper alternatives. The switch is refused without it.
"""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix, tool
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step
from prefixlock.events import CacheBreak, SwitchWarning, UsageReport
from prefixlock.guard.quote import QuoteRequired

SCRIPT = Script(
    rules=[
        Rule(
            match=".",
            steps=[
                Step(text="Reading it.", tool="read_file", input={"path": "src/app.py"}),
                Step(text="Done: the loop exits early on an empty list."),
            ],
        )
    ]
)


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace."""
    return "\n".join(f"def f{i}(x): return x + {i}  # {path}" for i in range(60))


async def main() -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 400, tools=[read_file])
    clock = ManualClock()  # advanced by hand below: no real waiting
    with Emulator.start(clock=clock, script=SCRIPT) as emu:
        agent = Agent(
            prefix,
            model="claude-opus-4-7",
            api_key="emulator",
            base_url=emu.base_url,
            clock=emu.clock,
        )
        async with agent.session() as s:
            for i in range(12):
                await s.ask(f"Turn {i}: what does f{i} do?")
                clock.advance(20)
            quote = s.quote_switch("claude-sonnet-4-6")
            print(quote.summary())
            try:
                s.switch_model("claude-sonnet-4-6")
            except QuoteRequired as exc:
                print("refused without the quote:", exc)
            s.switch_model("claude-sonnet-4-6", quote=quote)
            async for e in s.send("Turn 12: and f12?"):
                if isinstance(e, SwitchWarning):
                    print("warning:", e.quote.tokens_rebilled, "tokens re-billed")
                elif isinstance(e, CacheBreak):
                    print(f"miss: {e.cause}, {e.tokens_rebilled} tokens, ${e.dollars:.4f}")
                elif isinstance(e, UsageReport):
                    print(f"{e.model}: read {e.usage.cache_read}, wrote {e.usage.cache_write}")
            # The default policy holds the history at 1h, so only past the hour is the cache
            # cold and a switch costs nothing extra.
            clock.advance(3601)
            cold = s.quote_switch("claude-opus-4-7")
            print("after an idle hour:", cold.summary())
            s.switch_model("claude-opus-4-7")  # no quote needed on a cold cache


if __name__ == "__main__":
    asyncio.run(main())
