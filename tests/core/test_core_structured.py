"""Structured output, dependencies and approvals, through the official SDKs over HTTP to the
emulator: the output tool is in the frozen prefix (a structured turn reads the cache a plain
turn wrote), an invalid object is retried with pydantic's errors, `deps` reach a tool's
RunContext and never a request, and a tool that needs approval stops the turn until the caller
decides."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from prefixlock import (
    Agent,
    ApprovalRequired,
    FinalOutput,
    FrozenPrefix,
    OutputError,
    RunContext,
    Settings,
    ToolResult,
    TurnComplete,
    UsageReport,
    UserError,
    output_tool,
    tool,
)
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step

SYSTEM = "You extract invoice data and answer in the requested form.\n" * 120


class Invoice(pydantic.BaseModel):
    """An invoice's number and total."""

    number: str
    total_cents: int = pydantic.Field(ge=0)


class Ledger:
    """A user's dependency: what the tool reads and writes (never serialized)."""

    def __init__(self) -> None:
        self.rows = {"INV-7": 12_345}
        self.secret = "db-password-xyz"


@tool
def lookup(ctx: RunContext[Ledger], number: str) -> int:
    """Look up an invoice total in cents.

    Args:
        number: the invoice number.
    """
    return ctx.deps.rows[number]


@tool
def pay(number: str) -> str:
    """Pay an invoice."""
    return f"paid {number}"


GOOD: dict[str, Any] = {"number": "INV-7", "total_cents": 12_345}
SCRIPT = Script(
    rules=[
        Rule(
            match="extract",
            steps=[
                Step(text="Looking it up.", tool="lookup", input={"number": "INV-7"}),
                Step(text="", tool="final_Invoice", input={"number": "INV-7", "total_cents": -5}),
                Step(text="", tool="final_Invoice", input=GOOD),
            ],
        ),
        Rule(match="chatty", steps=[Step(text="The total is 123.45.")]),
        Rule(
            match="calling the tool final_Invoice", steps=[Step(tool="final_Invoice", input=GOOD)]
        ),
        Rule(
            match="pay",
            steps=[
                Step(text="Paying.", tool="pay", input={"number": "INV-7"}),
                Step(text="Payment done."),
            ],
        ),
    ]
)


def agent_for(emu: Emulator, model: str) -> Agent:
    prefix = FrozenPrefix(system=SYSTEM, tools=[lookup, pay, output_tool(Invoice)])
    return Agent(
        prefix,
        model=model,
        base_url=emu.base_url,
        api_key="test-key",
        clock=emu.clock,
        settings=Settings(max_turns=6),
    )


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5"])
async def test_run_returns_a_validated_object_and_keeps_the_cache(model: str) -> None:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        async with agent_for(emu, model).session() as s:
            await s.ask("hello")  # a plain turn first: it writes the prefix to the cache
            ledger = Ledger()
            events = [e async for e in s.send("extract INV-7", output_type=Invoice, deps=ledger)]
            reports = [e for e in events if isinstance(e, UsageReport)]
            results = [e for e in events if isinstance(e, ToolResult)]
            final = next(e for e in events if isinstance(e, FinalOutput))
            done = events[-1]
            # Plain turn again: the output tool's result goes in front of it.
            await s.ask("thanks")
        bodies = [json.dumps(r.body) for r in emu.requests]
    assert isinstance(final.output, Invoice) and final.output == Invoice(**GOOD)
    assert isinstance(done, TurnComplete) and done.stop_reason == "output"
    assert done.meta["output"] is final.output
    # The tool got the deps; the retry carried pydantic's error back to the model.
    assert results[0].content == "12345" and not results[0].is_error
    assert results[1].is_error and "total_cents" in results[1].content
    assert not results[2].is_error
    # The structured turn's first request read everything the plain turn cached.
    assert reports[0].usage.cache_read > 2_000
    # deps are never serialized; the prefix (tools included) is the same on every request.
    assert all(ledger.secret not in b and "Ledger" not in b for b in bodies)
    assert all("final_Invoice" in b for b in bodies)


async def test_text_instead_of_the_tool_is_reminded_then_given_up() -> None:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        async with agent_for(emu, "claude-sonnet-4-6").session() as s:
            value = await s.run("chatty please", Invoice)  # reminded once, then it calls it
            assert value == Invoice(**GOOD)
            with pytest.raises(OutputError, match="no valid Invoice after 1 attempts"):
                await s.run("chatty again", Invoice, output_retries=0)
            assert await s.ask("still there?")  # the session goes on


async def test_output_type_without_its_tool_in_the_prefix_is_refused() -> None:
    class Other(pydantic.BaseModel):
        x: int

    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        async with agent_for(emu, "claude-sonnet-4-6").session() as s:
            with pytest.raises(UserError, match=r"add output_tool\(Other\) to FrozenPrefix"):
                s.send("extract", output_type=Other)
        assert not emu.requests


def test_run_context_is_not_in_the_schema() -> None:
    assert set(lookup.spec.input_schema["properties"]) == {"number"}
    assert lookup.context_param == "ctx"


@pytest.mark.parametrize("decision", ["approve", "deny"])
async def test_a_tool_that_needs_approval_stops_the_turn(decision: str) -> None:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        async with agent_for(emu, "gpt-5").session() as s:
            s.require_approval("pay")
            events = [e async for e in s.send("pay INV-7")]
            asked = next(e for e in events if isinstance(e, ApprovalRequired))
            assert [c.name for c in asked.calls] == ["pay"]
            assert events[-1] == TurnComplete(s.turn, "Paying.", "approval")
            assert not any(isinstance(e, ToolResult) for e in events)  # nothing ran
            with pytest.raises(UserError, match="still waiting for a decision"):
                [e async for e in s.resume()]
            call_id = s.pending_approvals[0].id
            if decision == "approve":
                s.approve(call_id)
            else:
                s.deny(call_id, "not this month")
            resumed = [e async for e in s.resume()]
        last_body = json.dumps(emu.requests[-1].body)
    result = resumed[0]
    assert isinstance(result, ToolResult) and result.id == call_id
    if decision == "approve":
        assert result.content == "paid INV-7" and not result.is_error
    else:
        assert result.is_error and result.content == "Denied by the user: not this month"
    assert result.content in last_body  # the model got the decision's result
    done = resumed[-1]
    assert isinstance(done, TurnComplete) and done.text == "Payment done."


TWO_INVOICES = Script(
    rules=[
        Rule(
            match="extract INV-7",
            steps=[
                Step(text="Looking it up.", tool="lookup", input={"number": "INV-7"}),
                Step(tool="final_Invoice", input=GOOD),
            ],
        ),
        Rule(
            match="extract INV-8",
            steps=[Step(tool="final_Invoice", input={"number": "INV-8", "total_cents": 800})],
        ),
        Rule(match="thanks", steps=[Step(text="You are welcome.")]),
    ]
)


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5", "openai-responses:gpt-5"])
async def test_a_structured_turn_after_a_structured_turn(model: str) -> None:
    """The output tool's result rides in front of the next user text (one Anthropic message, a
    tool message then a user message on OpenAI): the emulator reads that text as a new turn, as
    the real APIs do, so a second `run` is answered by its own rule."""
    with Emulator.start(clock=ManualClock(), script=TWO_INVOICES) as emu:
        async with agent_for(emu, model).session() as s:
            first = await s.run("extract INV-7", Invoice, deps=Ledger())
            second = await s.run("extract INV-8", Invoice)
            third = await s.ask("thanks")
    assert first == Invoice(**GOOD)
    assert second == Invoice(number="INV-8", total_cents=800)
    assert third == "You are welcome."


async def test_text_instead_of_the_output_tool_names_the_reply() -> None:
    """The error says what the model did (its text), not only that the tool was not called."""
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        async with agent_for(emu, "claude-sonnet-4-6").session() as s:
            with pytest.raises(OutputError, match=r"final_Invoice: .The total is 123\.45\."):
                await s.run("chatty again", Invoice, output_retries=0)


class Books:
    """A dependency the approved tool writes to."""

    def __init__(self) -> None:
        self.paid: list[str] = []


@tool(requires_approval=True)
def settle(ctx: RunContext[Books], number: str) -> str:
    """Settle an invoice (always asks first)."""
    ctx.deps.paid.append(number)
    return f"settled {number}"


SETTLE = Script(
    rules=[
        Rule(
            match="settle",
            steps=[
                Step(text="Settling.", tool="settle", input={"number": "INV-7"}),
                Step(text="Settled."),
            ],
        )
    ]
)


def settle_agent(emu: Emulator, model: str) -> Agent:
    prefix = FrozenPrefix(system=SYSTEM, tools=[lookup, pay, settle, output_tool(Invoice)])
    return Agent(prefix, model=model, base_url=emu.base_url, api_key="test-key", clock=emu.clock)


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5"])
async def test_approval_declared_on_the_tool_and_resume_keeps_the_turns_deps(model: str) -> None:
    """`@tool(requires_approval=True)` stops the turn with no `require_approval` call, and
    `resume()` with no arguments runs the approved call with the deps the turn was sent with."""
    books = Books()
    with Emulator.start(clock=ManualClock(), script=SETTLE) as emu:
        async with settle_agent(emu, model).session() as s:
            events = [e async for e in s.send("settle INV-7", deps=books)]
            assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "approval"
            assert books.paid == []  # nothing ran before the decision
            s.approve(s.pending_approvals[0].id)
            resumed = [e async for e in s.resume()]
    result = next(e for e in resumed if isinstance(e, ToolResult))
    assert result.content == "settled INV-7" and not result.is_error
    assert books.paid == ["INV-7"]
    assert isinstance(resumed[-1], TurnComplete) and resumed[-1].text == "Settled."


async def test_require_approval_refuses_a_name_the_prefix_lacks() -> None:
    """A typo would let the tool run unasked: the name is checked and the error names the
    tools there are."""
    with Emulator.start(clock=ManualClock(), script=SETTLE) as emu:
        async with settle_agent(emu, "claude-sonnet-4-6").session() as s:
            with pytest.raises(UserError, match=r"no tool 'Pay'.*did you mean 'pay'.*lookup"):
                s.require_approval("Pay")
            s.require_approval("pay", "*")  # known names and "every tool" are accepted
            assert {"pay", "*"} <= s.approvals.required
