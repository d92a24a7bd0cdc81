"""Clocks. Everything that reasons about TTLs takes a clock, so tests and the demo move time
forward without sleeping: the emulator, the session and the cache guard can share one
`ManualClock` in a process."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (or since any fixed origin)."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that only moves when told to. Thread-safe (the emulator serves from threads)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, when: float) -> None:
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
