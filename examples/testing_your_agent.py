"""Testing your own agent: `prefixlock.testing.TestModel` is a scripted model answering the
official SDKs in this process (no server, no port, no key), with the emulator's cache rules, so
an agent's answers, tool calls and cache figures can be asserted in a unit test."""

from __future__ import annotations

import asyncio

from prefixlock import FrozenPrefix, tool
from prefixlock.testing import Rule, Script, Step, TestModel


@tool
def lookup(number: str) -> str:
    """Look up an order."""
    return f"order {number}: 2 items, paid"


def my_agent_prefix() -> FrozenPrefix:  # the code under test
    return FrozenPrefix(system="You handle refunds. Be brief.\n" * 150, tools=[lookup])


async def main() -> None:
    model = TestModel(
        Script(
            rules=[
                Rule(
                    match="refund",
                    steps=[
                        Step(text="Checking.", tool="lookup", input={"number": "A-1"}),
                        Step(text="Refund approved."),
                    ],
                )
            ]
        )
    )
    agent = model.agent(my_agent_prefix(), model="claude-sonnet-4-6")
    async with agent.session() as s:
        answer = await s.ask("refund order A-1")
        assert answer == "Refund approved.", answer
        await s.ask("thanks")
        print(f"answer: {answer}")
        print(f"{len(model.requests)} requests answered in process; {s.ledger.summary()}")
        assert s.ledger.hit_rate > 0.5


if __name__ == "__main__":
    asyncio.run(main())
