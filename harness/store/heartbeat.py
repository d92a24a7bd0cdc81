"""The lease heartbeat: renewed on a timer while a store holds a session's lease.

A lease held on another host is known to be alive only by its heartbeat (see
`leases.LEASE_STALE_S`). Writes renew it, but a chat left open and idle writes nothing: without
a timer, another host would take it over after LEASE_STALE_S and the open chat's next turn
would be refused. `Heartbeat` renews every `every` seconds of the store's clock, from a daemon
thread that wakes every `poll` real seconds (so it works under a TUI, a script's event loop or a
plain thread alike). Tests drive it without threads or sleeps: `tick()` after moving a
ManualClock, or `run(stop)` with a `stop` whose `wait` moves the clock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Protocol

from ..clock import Clock
from ..errors import UserError

LEASE_RENEW_S = 60.0  # clock seconds between renewals; LEASE_STALE_S is 15 times that
POLL_S = 10.0  # real seconds between the timer thread's looks at the clock


class Stop(Protocol):
    def wait(self, timeout: float | None = None) -> bool:
        """Block up to `timeout` seconds; True once the timer is to stop."""
        ...


class Heartbeat:
    """Calls `renew` every `every` seconds of `clock` until stopped."""

    def __init__(
        self,
        renew: Callable[[], object],
        clock: Clock,
        *,
        every: float = LEASE_RENEW_S,
        poll: float = POLL_S,
    ) -> None:
        self.renew = renew
        self.clock = clock
        self.every = every
        self.poll = poll
        self.last: float = clock.now()  # a lease is taken with a fresh heartbeat
        self.renewals: int = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> bool:
        """Renew if `every` seconds have passed since the last renewal; True if it did."""
        now = self.clock.now()
        if self._stop.is_set() or now - self.last < self.every:
            return False
        self.last = now
        try:
            self.renew()
        except ReferenceError:  # what it renewed for is gone
            self._stop.set()
            return False
        except (sqlite3.Error, UserError):
            # A full disk, a lock held too long, a closed store: the next tick tries again,
            # and a write that cannot renew says so itself.
            return False
        self.renewals += 1
        return True

    def run(self, stop: Stop) -> None:
        """The timer's loop (the thread's body): a tick each time `stop.wait` times out."""
        while not stop.wait(self.poll):
            self.tick()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self.run,
                args=(self._stop,),
                name="prefixlock-lease-heartbeat",
                daemon=True,
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop renewing. Not joined: the thread may be waiting for the store's lock, held by
        whoever stops it; it sees the flag at its next look and ends."""
        self._stop.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stop.is_set()
