"""Fault injection decisions: which request gets which fault, and what that fault does to it.

Pure: a FaultQueue is plain state (the server holds it under its lock), and `plan_fault` turns
the fault a request drew into what the server does instead of, or to, the normal response.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .apierror import ApiError, retry_headers
from .config import FaultSpec

DEFAULT_RETRY_AFTER_S = 0.01

# How a served response reaches the client: whole, cut off halfway (the connection dropped), or
# half its stream followed by an SSE error event.
Delivery = Literal["full", "cut", "sse-error"]

_MESSAGES = {
    429: "Number of requests has exceeded your rate limit",
    529: "Overloaded",
    500: "Internal server error",
}


@dataclass
class _Active:
    spec: FaultSpec
    remaining: int
    skip: int


class FaultQueue:
    """The faults still to fire, in the order they were added."""

    def __init__(self, specs: Iterable[FaultSpec] = ()) -> None:
        self._active: list[_Active] = []
        for spec in specs:
            self.add(spec)

    def add(self, spec: FaultSpec) -> None:
        """Queue `spec`'s fault for its next `count` requests."""
        # `count` requests get each fault: a count of 0 is a fault that never fires.
        if spec.count:
            self._active.append(_Active(spec, spec.count, spec.after))

    def clear(self) -> None:
        self._active.clear()

    def take(self, path: str) -> FaultSpec | None:
        """The fault a request to `path` gets (None: none). The first live fault whose path
        matches counts the request: it skips it (`after`) or fires, using up one of its count."""
        for active in self._active:
            if active.spec.path and not path.startswith(active.spec.path):
                continue
            if active.skip > 0:
                active.skip -= 1
                continue
            active.remaining -= 1
            if active.remaining <= 0:
                self._active.remove(active)
            return active.spec
        return None


@dataclass(frozen=True)
class FaultPlan:
    """What a fault does to one request."""

    kind: str | None = None  # the fault, as recorded (None: no fault)
    error: ApiError | None = None  # answer this error instead of serving the request
    delay: float = 0.0  # seconds on the emulator's clock before the response starts
    delivery: Delivery = "full"


NO_FAULT = FaultPlan()


def plan_fault(spec: FaultSpec | None, *, stream: bool) -> FaultPlan:
    """The plan for a request that drew `spec`; `stream` says whether it asked for a stream.

    429 and 529 carry `retry-after` (the fault's, else 10 ms), 500 none. An `sse-error` on a
    request that did not ask for a stream cannot fail mid-stream: it gets a 529 instead.
    """
    if spec is None:
        return NO_FAULT
    kind = spec.kind
    if kind == "sse-error" and not stream:
        error = ApiError(529, "Overloaded", headers=retry_headers(DEFAULT_RETRY_AFTER_S))
        return FaultPlan(kind, error)
    if kind in ("429", "529", "500"):
        status = int(kind)
        wait = DEFAULT_RETRY_AFTER_S if spec.retry_after is None else spec.retry_after
        headers = retry_headers(wait) if status != 500 else {}
        return FaultPlan(kind, ApiError(status, _MESSAGES[status], headers=headers))
    if kind == "latency":
        return FaultPlan(kind, delay=spec.seconds)
    if kind == "cut":
        return FaultPlan(kind, delivery="cut")
    return FaultPlan(kind, delivery="sse-error")
