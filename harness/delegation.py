"""The delegation protocol: how a session hands a task to a subagent without importing `agents`.

`Session.delegate(task, agent=..., model=...)` and the `delegate` tool both go through a
`Delegator`: an object found either explicitly (`Agent(..., delegator=...)`) or through the entry
point group `prefixlock.delegators` (the `agents` package registers its implementation there).
`harness` only defines the shapes: the result of one delegation, the events it produced, and the
context variable that tells a tool which session is calling it.

The contract a delegator keeps: the parent's prefix bytes never change; the parent's transcript
receives only the call and the summary; a subagent's failure or limit comes back as a result with
`error` set and an error summary, never as an exception in the parent.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from .errors import ConfigError
from .events import Event, SubagentFinish, SubagentStart
from .usage import Usage

ENTRY_POINT_GROUP = "prefixlock.delegators"


@dataclass(frozen=True)
class DelegationResult:
    """What one subagent run gave back, and what it cost (charged to the parent)."""

    name: str  # the agent definition's name
    model: str
    task: str
    summary: str  # what reaches the parent (capped; an error summary when `error` is set)
    usage: Usage = field(default_factory=Usage)  # the subagent's tokens, all requests together
    cost: Decimal | None = None  # None: the subagent's model is unpriced
    requests: int = 0
    turns: int = 0
    summary_tokens: int = 0
    error: str | None = None  # "turns" | "dollars" | "depth" | a failure message
    depth: int = 1
    session_id: str = ""
    events: tuple[Event, ...] = ()  # SubagentStart, SubagentFinish (for the parent's stream)

    @property
    def hit_rate(self) -> float:
        """The subagent's own cache hit rate: read / all input, over its requests."""
        return self.usage.hit_rate

    @property
    def consumed_tokens(self) -> int:
        """Tokens the subagent processed: all input of all its requests plus its output."""
        return self.usage.input_total + self.usage.output

    @property
    def compression(self) -> float:
        """Tokens consumed per token of summary returned (how much the parent was spared)."""
        return self.consumed_tokens / max(self.summary_tokens, 1)

    @property
    def ok(self) -> bool:
        return self.error is None

    def finish_event(self) -> SubagentFinish:
        return SubagentFinish(
            name=self.name,
            model=self.model,
            summary=self.summary,
            usage=self.usage,
            cost=self.cost,
            hit_rate=self.hit_rate,
            compression=self.compression,
            error=self.error,
        )

    def start_event(self) -> SubagentStart:
        return SubagentStart(name=self.name, model=self.model, task=self.task, depth=self.depth)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "task": self.task,
            "summary": self.summary,
            "usage": self.usage.to_dict(),
            "cost": None if self.cost is None else str(self.cost),
            "requests": self.requests,
            "turns": self.turns,
            "summary_tokens": self.summary_tokens,
            "consumed_tokens": self.consumed_tokens,
            "hit_rate": self.hit_rate,
            "compression": self.compression,
            "error": self.error,
            "depth": self.depth,
            "session_id": self.session_id,
        }


@runtime_checkable
class Delegator(Protocol):
    """Runs a task in an isolated subagent on behalf of a parent session."""

    async def delegate(
        self,
        parent: Any,
        task: str,
        *,
        agent: str = "explorer",
        model: str | None = None,
    ) -> DelegationResult:
        """Run `task` with agent definition `agent` (on `model`, or the definition's model).

        `parent` is the calling session (harness.agent.Session). Never raises for a subagent's
        failure or limit: those come back as a result with `error` set.
        """
        ...


# The session whose tool loop is running now: the `delegate` tool reads it to find its parent.
current_session: ContextVar[Any] = ContextVar("prefixlock_current_session", default=None)


@contextmanager
def session_scope(session: Any) -> Iterator[None]:
    """Mark `session` as the caller of the tools run inside this block."""
    token = current_session.set(session)
    try:
        yield
    finally:
        current_session.reset(token)


def find_delegator(explicit: Delegator | None = None) -> Delegator:
    """The explicit delegator, else the first one registered under `prefixlock.delegators`."""
    if explicit is not None:
        return explicit
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        obj = ep.load()
        # The entry point names a delegator instance or a zero-argument factory (a class).
        candidate = obj if isinstance(obj, Delegator) and not isinstance(obj, type) else obj()
        if isinstance(candidate, Delegator):
            return candidate
    raise ConfigError(
        "no delegator: pass Agent(..., delegator=...) or install one under the entry point "
        f"group {ENTRY_POINT_GROUP!r} (the `agents` package provides it)",
        where="delegator",
    )
