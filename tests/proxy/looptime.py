"""An event loop whose clock a test moves on: the proxy's deadlines (a request head's, a body's,
an idle connection's) are timers on its loop, so moving the loop's time passes them at once,
without the test sleeping through them."""

from __future__ import annotations

import asyncio
import threading


class SkippingLoop(asyncio.SelectorEventLoop):
    """`time()` is the monotonic clock plus what `skip` added."""

    def __init__(self) -> None:
        super().__init__()
        self._offset = 0.0

    def time(self) -> float:
        return super().time() + self._offset

    def skip(self, seconds: float) -> None:
        """Move this loop's time on by `seconds` (from any thread) and let it run what is due."""
        done = threading.Event()

        def forward() -> None:
            self._offset += seconds
            done.set()

        self.call_soon_threadsafe(forward)
        done.wait(10)
        self.settle()

    def settle(self, rounds: int = 10) -> None:
        """Let the loop run `rounds` iterations (from another thread): what the kernel has
        delivered by now (a connection, a byte) is handled before this returns."""

        async def spin() -> None:
            for _ in range(rounds):
                await asyncio.sleep(0)

        asyncio.run_coroutine_threadsafe(spin(), self).result(10)


class Loops:
    """A loop factory for `Proxy(loop_factory=)` that keeps the loop it made."""

    def __init__(self) -> None:
        self.loop: SkippingLoop | None = None

    def __call__(self) -> SkippingLoop:
        self.loop = SkippingLoop()
        return self.loop
