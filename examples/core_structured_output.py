"""Structured output and dependencies: `s.run(text, Invoice)` returns a validated pydantic
object, and a tool that takes `RunContext[Deps]` reads the caller's dependencies. The output
tool is part of the frozen prefix, so the structured turn reads the cache the plain turn wrote;
the deps never leave the process. Offline, on the emulator's scripted model."""

from __future__ import annotations

import asyncio

import pydantic

from prefixlock import Agent, FrozenPrefix, RunContext, output_tool, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step


class Invoice(pydantic.BaseModel):
    """An invoice's number and total."""

    number: str
    total_cents: int = pydantic.Field(ge=0)


class Books:
    """The caller's dependency: a stand-in for a database handle."""

    def __init__(self) -> None:
        self.totals = {"INV-7": 12_345}


@tool
def lookup(ctx: RunContext[Books], number: str) -> int:
    """Look up an invoice's total in cents.

    Args:
        number: the invoice number.
    """
    return ctx.deps.totals[number]


SCRIPT = Script(
    rules=[
        Rule(
            match="extract",
            steps=[
                Step(text="Looking it up.", tool="lookup", input={"number": "INV-7"}),
                Step(
                    tool="final_Invoice", input={"number": "INV-7", "total_cents": -1}
                ),  # invalid: retried
                Step(tool="final_Invoice", input={"number": "INV-7", "total_cents": 12_345}),
            ],
        )
    ]
)
SYSTEM = "You extract invoice data.\n" * 200


async def main() -> None:
    prefix = FrozenPrefix(system=SYSTEM, tools=[lookup, output_tool(Invoice)])
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        agent = Agent(
            prefix,
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
        )
        async with agent.session() as s:
            await s.ask("Hello")
            invoice = await s.run("extract INV-7", Invoice, deps=Books())
            print(f"{invoice!r} (a validated {type(invoice).__name__})")
            print(s.ledger.summary())


if __name__ == "__main__":
    asyncio.run(main())
