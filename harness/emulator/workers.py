"""A capped pool of worker threads for the emulator's connections.

The server's accept loop reserves a worker before it accepts a connection, so a burst of clients
beyond the cap waits in the kernel's listen backlog (not in a queue of this process) until a
worker is free. Threads are made as they are first needed, up to `size`, and then reused: an
emulator serving one client runs one worker, one serving 300 at once runs 300, and no more than
`size` ever exist.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable

__all__ = ["WorkerPool"]

Job = Callable[[], None]


class WorkerPool:
    """At most `size` daemon threads, each running one job at a time.

    Use: `reserve()` (blocks while all `size` are taken), then `run(job)` with that reservation
    or `cancel()` to give it back unused. A job's reservation ends when the job returns.
    """

    def __init__(self, size: int, name: str = "worker") -> None:
        if size < 1:
            raise ValueError("a worker pool needs at least one worker")
        self.size = size
        self._name = name
        self._slots = threading.BoundedSemaphore(size)
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._waiting = 0  # threads waiting for a job that no `run` has claimed yet
        self._closed = False

    @property
    def threads(self) -> int:
        """Worker threads made so far (never more than `size`)."""
        with self._lock:
            return len(self._threads)

    def reserve(self, timeout: float | None = None) -> bool:
        """Take a worker for the next `run`; False if none came free within `timeout`."""
        return self._slots.acquire(timeout=timeout)

    def cancel(self) -> None:
        """Give back a reservation that no job used (the accept failed)."""
        self._slots.release()

    def run(self, job: Job) -> None:
        """Run `job` on an idle worker, or on a new one while fewer than `size` exist.

        The caller holds a reservation, so at most `size` jobs are queued or running: a job
        never waits for a worker here.
        """
        with self._lock:
            if self._closed:
                self._slots.release()
                raise RuntimeError("the worker pool is closed")
            if self._waiting:
                self._waiting -= 1
            else:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            self._jobs.put(job)

    def close(self) -> None:
        """Let every worker end once its current job (if any) returns. Jobs still running keep
        their connection: as with the daemon threads of a threading server, a process ending
        does not wait for them."""
        with self._lock:
            self._closed = True
            for _ in self._threads:
                self._jobs.put(None)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception:
                # A job reports its own errors (the server's handle_error); one that escapes is
                # printed, and must not take its worker with it.
                traceback.print_exc()
            finally:
                with self._lock:
                    self._waiting += 1
                self._slots.release()
