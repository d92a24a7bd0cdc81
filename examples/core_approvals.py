"""Human approval: a tool declared `@tool(requires_approval=True)` stops the turn with the
pending call, the caller approves or denies it, and `s.resume()` continues the turn with the
deps it was sent with. `require_approval(name)` marks more tools (a name the prefix lacks is an
error naming the tools it has). Offline, on the emulator's scripted model."""

from __future__ import annotations

from prefixlock import (
    Agent,
    ApprovalRequired,
    FrozenPrefix,
    RunContext,
    TextDelta,
    ToolResult,
    UserError,
    tool,
)
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step


class Books:
    """The caller's dependency: what `pay` writes to (never sent to the model)."""

    def __init__(self) -> None:
        self.paid: list[str] = []


@tool(requires_approval=True)
def pay(ctx: RunContext[Books], number: str) -> str:
    """Pay an invoice."""
    ctx.deps.paid.append(number)
    return f"paid {number}"


@tool
def lookup(number: str) -> int:
    """Look up an invoice total in cents."""
    return 12_345


SCRIPT = Script(
    rules=[
        Rule(
            match="pay",
            steps=[
                Step(text="Paying it.", tool="pay", input={"number": "INV-7"}),
                Step(text="Done: INV-7 is paid."),
            ],
        )
    ]
)


def main() -> None:
    books = Books()
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system="You pay invoices.", tools=[pay, lookup]),
            model="gpt-5",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
        )
        with agent.sync_session() as s:
            try:
                s.require_approval("Lookup")  # a typo: refused, never silently ignored
            except UserError as exc:
                print(f"refused: {exc}")
            for event in s.send("pay INV-7", deps=books):
                if isinstance(event, ApprovalRequired):
                    for call in event.calls:
                        print(f"approve {call.name}({call.input})? yes")
                        s.approve(call.id)
            for event in s.resume():  # the turn's deps: `books`
                if isinstance(event, ToolResult):
                    print(f"{event.name} -> {event.content}")
                elif isinstance(event, TextDelta):
                    print(event.text, end="")
            print()
    print(f"paid: {books.paid}")
    assert books.paid == ["INV-7"]


if __name__ == "__main__":
    main()
