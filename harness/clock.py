"""Clocks. Everything that reasons about TTLs takes a clock, so tests and the demo move time
forward without sleeping: the emulator, the session and the cache guard can share one
`ManualClock` in a process."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What a session reads the time from: `SystemClock` (the default) or `ManualClock` (tests,
    the emulator's controlled time)."""

    def now(self) -> float:
        """Seconds since the epoch (or since any fixed origin)."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> float:
        """The wall-clock time, in seconds since the epoch."""
        return time.time()


class ManualClock:
    """A clock that only moves when told to. Thread-safe (the emulator serves from threads)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        """The clock's current time, in seconds."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock forward by `seconds`."""
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, when: float) -> None:
        """Set the clock to `when` (ValueError if that is in its past)."""
        with self._lock:
            if when < self._now:
                raise ValueError("a clock does not go backwards")
            self._now = when


def pause(clock: Clock, seconds: float) -> None:
    """Let `seconds` pass on `clock`, blocking (a bounded wait's step). The wall clock is slept;
    a ManualClock (tests, the demo) is moved on at once, so a wait measured on it ends without
    sleeping, and whatever shares that clock sees the time pass."""
    if seconds <= 0:
        return
    if isinstance(clock, ManualClock):
        clock.advance(seconds)
    else:
        time.sleep(seconds)
