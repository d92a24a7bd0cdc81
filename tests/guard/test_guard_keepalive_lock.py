"""Keep-alive pings never run concurrently with a turn of the same session: a ping in flight
makes the turn wait, and a ping that would start while a turn is in flight is skipped.

The emulator's latency fault on a ManualClock holds a request in flight until the test advances
the clock, so each overlap is set up deterministically."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import KeepAlivePing, TurnComplete
from tests.helpers.guardkit import agent, of, run_turns, sent, start_emulator, turn


async def _until_held(emu: Emulator, arrived: int) -> None:
    """Let the event loop run until request number `arrived` reached the emulator and is held
    there (requests are recorded on arrival; bounded)."""
    deadline = time.monotonic() + 10
    while (len(emu.requests) < arrived or emu.in_flight < 1) and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    assert len(emu.requests) == arrived and emu.in_flight == 1


async def _settle(emu: Emulator, rounds: int = 50) -> None:
    """Give any request that is not held back every chance to reach the emulator and finish."""
    for _ in range(rounds):
        await asyncio.sleep(0.002)


def _clock(emu: Emulator) -> ManualClock:
    assert isinstance(emu.clock, ManualClock)
    return emu.clock


async def test_a_turn_waits_for_the_ping_in_flight() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            s.enable_keepalive()
            _clock(emu).advance(255)  # the ping is due (30 s before the 5-minute expiry)
            n = sent(emu)  # every earlier request finished
            emu.inject("latency", seconds=5)  # holds the next request: the ping
            ping = asyncio.create_task(s.keepalive_tick())
            await _until_held(emu, n + 1)
            send = asyncio.create_task(turn(s, "Turn 4: look at src/app.py again."))
            await _settle(emu)
            # The turn has sent nothing while the ping is in flight (requests count on arrival).
            assert emu.in_flight == 1 and len(emu.requests) == n + 1 and not send.done()
            assert s.pings.turn_in_flight
            _clock(emu).advance(5)
            assert len(of(await ping, KeepAlivePing)) == 1
            events = await send
            assert of(events, TurnComplete)
            kinds = [bool(r.body.get("max_tokens") == 0) for r in emu.requests[n:]]
            assert kinds == [True, False, False]  # the ping, then the turn's two requests
            assert not s.pings.turn_in_flight


async def test_a_ping_is_skipped_while_a_turn_is_in_flight() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            s.enable_keepalive()
            _clock(emu).advance(255)
            n = sent(emu)  # every earlier request finished
            emu.inject("latency", seconds=5)  # holds the turn's first request
            send = asyncio.create_task(turn(s, "Turn 4: look at src/app.py again."))
            await _until_held(emu, n + 1)
            assert await s.keepalive_tick() == []  # skipped: nothing sent
            await _settle(emu)
            assert emu.in_flight == 1 and len(emu.requests) == n + 1  # the turn only
            _clock(emu).advance(5)
            await send
            assert all(r.body.get("max_tokens") != 0 for r in emu.requests[n:])
            assert s.pings.keepalive is not None and s.pings.keepalive.pings == 0
            # Once the turn is over, pings go out again when due.
            _clock(emu).advance(275)
            assert len(of(await s.keepalive_tick(), KeepAlivePing)) == 1


async def test_a_turn_stream_left_half_read_does_not_block_the_next_turn() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 2)
            left = s.send("Turn 3: look at src/app.py again.")
            assert isinstance(left, AsyncGenerator)
            await left.__anext__()  # the caller reads one event, keeps the stream, moves on
            assert s.pings.turn_in_flight
            events = await asyncio.wait_for(turn(s, "Turn 4: and f4?"), timeout=10)
            assert of(events, TurnComplete)
            await left.aclose()
            assert not s.pings.turn_in_flight
