"""Human approval for any tool: the turn stops with the pending call, the caller approves or
denies it, and `s.resume()` continues. Offline, on the emulator's scripted model."""

from __future__ import annotations

from prefixlock import Agent, ApprovalRequired, FrozenPrefix, TextDelta, ToolResult, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step


@tool
def pay(number: str) -> str:
    """Pay an invoice."""
    return f"paid {number}"


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
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system="You pay invoices.", tools=[pay]),
            model="gpt-5",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
        )
        with agent.sync_session() as s:
            s.require_approval("pay")
            for event in s.send("pay INV-7"):
                if isinstance(event, ApprovalRequired):
                    for call in event.calls:
                        print(f"approve {call.name}({call.input})? yes")
                        s.approve(call.id)
            for event in s.resume():
                if isinstance(event, ToolResult):
                    print(f"{event.name} -> {event.content}")
                elif isinstance(event, TextDelta):
                    print(event.text, end="")
            print()


if __name__ == "__main__":
    main()
