"""How a session is used, right and wrong: one turn at a time, and what a tool may return.

Two tasks sending on one session at once used to both succeed, each request built from the same
transcript, and both turns were appended to it one after the other: the transcript then held a
conversation that no request had sent. The second send now raises UserError. A send whose
event stream the caller abandoned does not count (the next send works, as before).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from prefixlock import Agent, FrozenPrefix, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step
from prefixlock.errors import UserError

SCRIPT = Script(
    rules=[
        Rule(
            match="wait",
            steps=[Step(text="Waiting.", tool="wait", input={}), Step(text="Waited.")],
        )
    ],
    default="Done.",
)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as e:
        yield e


def make_agent(emu: Emulator, gate: asyncio.Event, entered: asyncio.Event) -> Agent:
    @tool
    async def wait() -> str:
        """Wait until the test opens the gate."""
        entered.set()
        await gate.wait()
        return "opened"

    prefix = FrozenPrefix(system="You are terse. " * 200, tools=[wait])
    return Agent(prefix, model="claude-sonnet-4-6", api_key="test-key", base_url=emu.base_url)


async def test_a_second_send_while_one_runs_is_refused(emu: Emulator) -> None:
    gate, entered = asyncio.Event(), asyncio.Event()
    async with make_agent(emu, gate, entered).session() as s:
        first = asyncio.create_task(s.ask("Please wait for the gate."))
        await entered.wait()  # the first turn is inside its tool
        with pytest.raises(UserError, match="busy"):
            await s.ask("Something else.")
        gate.set()
        assert await first == "Waited."
        assert [m.role for m in s.transcript] == ["user", "assistant", "user", "assistant"]
        # Once the first is done, sending works again and follows the first turn.
        assert await s.ask("Something else.") == "Done."
        assert len(s.requests[-1].body["messages"]) == 5


async def test_a_send_the_caller_stopped_reading_does_not_block_the_next(emu: Emulator) -> None:
    async with make_agent(emu, asyncio.Event(), asyncio.Event()).session() as s:
        async for _event in s.send("Hello."):
            break  # abandoned at its first event, its generator not closed
        assert await s.ask("Again.") == "Done."


async def test_a_turn_cancelled_while_its_tool_runs_leaves_no_task_behind(emu: Emulator) -> None:
    gate, entered = asyncio.Event(), asyncio.Event()
    async with make_agent(emu, gate, entered).session() as s:
        first = asyncio.create_task(s.ask("Please wait for the gate."))
        await entered.wait()
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        await asyncio.sleep(0)  # the cancelled tool's own task ends
        # The turn's waiter for its tools' side events used to stay pending ("Task was
        # destroyed but it is pending!" at exit).
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert left == []
        gate.set()
        assert await s.ask("Something else.")  # the interrupted tool call gets an error result
        results = [b for b in s.transcript[2].blocks if b["type"] == "tool_result"]
        assert len(results) == 1 and results[0]["is_error"]


async def test_a_closed_session_refuses_to_send_and_closes_twice_quietly(emu: Emulator) -> None:
    s = make_agent(emu, asyncio.Event(), asyncio.Event()).session()
    async with s:
        assert await s.ask("Hello.") == "Done."
    await s.aclose()  # twice: nothing happens
    n = len(emu.requests)
    # It used to open a new client (never closed) and send.
    with pytest.raises(UserError, match="is closed"):
        await s.ask("Hello again.")
    assert len(emu.requests) == n and s.turn == 1
