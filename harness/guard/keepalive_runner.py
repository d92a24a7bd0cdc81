"""Keep-alive for one session: sends the pings that `keepalive.plan_ping` decides on, and keeps
them apart from the session's turns.

A ping holds the runner's lock while it is sent, and a turn (or a compaction) waits for it
before sending; a count of the turns running or waiting keeps a ping from starting meanwhile. A
turn holds no lock while it runs (a caller that abandons a turn's event stream half-way must not
block the next turn). A ping is ledgered (kind "ping"), observed by the guard and written to the
store at once; its spend counts toward the cap of the whole session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Protocol

from ..billing.money import parse_dollars
from ..errors import ProviderError, UserError
from ..events import Event, KeepAlivePing
from ..state import SessionState
from ..store.recorder import Recorder
from ..wire import WireRequest
from .keepalive import KeepAlive, plan_ping
from .tracker import GuardTracker


class SealSource(Protocol):
    """What the runner asks of a turn end's planned write (TurnEndRunner)."""

    def due_at(self) -> float | None: ...

    async def tick(self) -> list[Event]: ...


class KeepAliveRunner:
    """Pings that keep one session's cache warm while it is idle, never during a turn."""

    def __init__(self, state: SessionState, tracker: GuardTracker, recorder: Recorder) -> None:
        self.state = state
        self.tracker = tracker
        self.recorder = recorder
        self.keepalive: KeepAlive | None = None  # None: pings are off
        self._send_lock = asyncio.Lock()
        self._turns_running = 0
        # The end of a turn's planned 1-hour write (prefixlock.guard.turn_end_runner), sent
        # by the same ticks as the pings, never together with one.
        self.turn_end: SealSource | None = None

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Run a turn apart from pings: a ping in flight finishes first, and no ping starts
        until the turn has ended (however it ends)."""
        self._turns_running += 1
        try:
            async with self._send_lock:
                pass  # a ping in flight has finished; none can start while the count is up
            yield
        finally:
            self._turns_running -= 1

    @property
    def turn_in_flight(self) -> bool:
        return self._turns_running > 0

    def active_again(self, now: float) -> None:
        """A real request goes out: a new idle stretch starts."""
        if self.keepalive is not None:
            self.keepalive.active_again(now)

    def enable(
        self, max_spend: Decimal | float | str, margin: float, max_idle: float | None
    ) -> KeepAlive:
        """Turn pings on. The cap is for the whole session: pings already in the ledger (a
        resumed session's restored rows included) count toward it."""
        cap = parse_dollars(max_spend, "keepalive.max_spend")
        if margin < 0 or (max_idle is not None and max_idle < 0):
            raise UserError(
                "keep-alive margin and max_idle are seconds >= 0", where="keepalive.margin"
            )
        ka = self.keepalive = KeepAlive(cap, margin, max_idle)
        for row in self.state.ledger.rows:
            if row.meta.get("kind") == "ping":
                ka.record(row.time, row.usage.cache_read, row.cost or Decimal(0))
        folded = self.state.ledger.folded.get("ping")  # a bounded ledger's older pings
        if folded is not None:
            ka.pings += folded.count
            ka.read_tokens += folded.usage.cache_read
            ka.spent += folded.priced_cost
        ka.idle_spent = Decimal(0)  # an idle stretch starts now (as it did before)
        ka.last_active = self.tracker.guard.last_time
        return ka

    def next_ping_at(self) -> float | None:
        """When the next ping, or the turn end's planned 1-hour write, is due (None: none)."""
        seal = None if self.turn_end is None else self.turn_end.due_at()
        if self.keepalive is None:
            return seal
        now = self.state.clock.now()
        due = plan_ping(self.tracker.guard, self._ping_base(), self.keepalive, now).due_at
        return min((t for t in (seal, due) if t is not None), default=None)

    def _ping_base(self) -> WireRequest | None:
        """The request a ping repeats: the last one, if it still has the session's prefix and
        model (after a compaction or a switch there is nothing worth keeping warm yet)."""
        s = self.state
        if not s.requests:
            return None
        last = s.requests[-1]
        fp = last.meta.get("prefix")
        if last.model != s.model or (fp is not None and fp != s.prefix.fingerprint):
            return None
        if last.meta.get("kind") == "summary":
            return None
        return last

    async def tick(self) -> list[Event]:
        """Send the turn end's 1-hour write if it is due, else a ping if one is due now and
        still pays; returns its KeepAlivePing event."""
        if self.turn_in_flight or self._send_lock.locked():
            return []  # a turn is in flight (it keeps the cache warm itself) or a ping is
        if self.turn_end is not None:
            sealed = await self.turn_end.tick()
            if sealed:
                return sealed
        ka = self.keepalive
        if ka is None or self.turn_in_flight or self._send_lock.locked():
            return []
        async with self._send_lock:
            return await self._ping(ka)

    async def _ping(self, ka: KeepAlive) -> list[Event]:
        """Plan and send one ping (the send lock is held)."""
        guard = self.tracker.guard
        now = self.state.clock.now()
        last = self._ping_base()
        plan = plan_ping(guard, last, ka, now)
        if not plan.send or plan.request is None or last is None:
            return []
        ping = plan.request
        pred = guard.predict(ping, now)
        events: list[Event] = []
        try:
            reply = await self.state.provider.complete(ping, events)
        except ProviderError:
            # Reported to the caller once; no ping is retried every tick until the session
            # sends again (a real request shows whether the provider is back).
            ka.stopped = "failed"
            raise
        row = self.tracker.pinged(ping, pred, reply.usage, now, previous=last)
        cost = row.cost if row.cost is not None else Decimal(0)
        ka.record(now, reply.usage.cache_read, cost)
        self.recorder.ping(ping, row)
        events.append(KeepAlivePing(reply.usage.cache_read, row.cost))
        return events

    async def run(self, stop: asyncio.Event, poll: float = 5.0) -> None:
        """Ping until `stop` is set (real time; tests use `tick`)."""
        while not stop.is_set():
            await self.tick()
            try:
                await asyncio.wait_for(stop.wait(), timeout=poll)
            except TimeoutError:
                continue
