"""The delegation protocol: how a session hands a task to a subagent without importing `agents`.

`Session.delegate(task, agent=..., model=...)` and the `delegate` tool both go through a
`Delegator`: an object found either explicitly (`Agent(..., delegator=...)`) or through the entry
point group `prefixlock.delegators` (the `agents` package registers its implementation there).
`harness` only defines the shapes: the result of one delegation, the events it produced, what a
delegation needs of its parent session (`ParentSession`; `prefixlock.session.Session` is one),
and the context variable that tells a tool which session is calling it.

The contract a delegator keeps: the parent's prefix bytes never change; the parent's transcript
receives only the call and the summary; a subagent's failure or limit comes back as a result with
`error` set and an error summary, never as an exception in the parent.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .billing.usage import Usage
from .errors import ConfigError
from .events import Event, SubagentFinish, SubagentStart

if TYPE_CHECKING:  # the ledger holds a SubagentSection: it imports this module
    from .billing.ledger import Ledger
    from .prefix import FrozenPrefix

ENTRY_POINT_GROUP = "prefixlock.delegators"


@dataclass(frozen=True)
class DelegationResult:
    """What one subagent run gave back, and what it cost (charged to the parent)."""

    name: str  # the agent definition's name
    model: str
    task: str
    summary: str  # what reaches the parent (capped; an error summary when `error` is set)
    usage: Usage = field(default_factory=Usage)  # the subagent's tokens, all requests together
    # Dollars charged to the parent: this subagent's requests and those of its own subagents
    # (None: a model on the way is unpriced). `usage` and the hit rate are its own only.
    cost: Decimal | None = None
    requests: int = 0
    turns: int = 0
    summary_tokens: int = 0
    error: str | None = None  # "turns" | "dollars" | "depth" | a failure message
    depth: int = 1
    session_id: str = ""
    events: tuple[Event, ...] = ()  # SubagentStart, SubagentFinish (for the parent's stream)
    run_id: str = ""  # this run's id in its events (tells parallel runs of one agent apart)

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
        """Did the subagent finish its task (no `error`)?"""
        return self.error is None

    def finish_event(self) -> SubagentFinish:
        """The `SubagentFinish` event that reports this result."""
        return SubagentFinish(
            name=self.name,
            model=self.model,
            summary=self.summary,
            usage=self.usage,
            cost=self.cost,
            hit_rate=self.hit_rate,
            compression=self.compression,
            error=self.error,
            depth=self.depth,
            run_id=self.run_id,
        )

    def start_event(self) -> SubagentStart:
        """The `SubagentStart` event of this run."""
        return SubagentStart(
            name=self.name, model=self.model, task=self.task, depth=self.depth, run_id=self.run_id
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready; money as strings)."""
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
            "run_id": self.run_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DelegationResult:
        """A result as `to_dict` wrote it (a stored session's subagent run; no events)."""
        cost = data.get("cost")
        return cls(
            name=str(data.get("name", "")),
            model=str(data.get("model", "")),
            task=str(data.get("task", "")),
            summary=str(data.get("summary", "")),
            usage=Usage.from_dict(data.get("usage") or {}),
            cost=None if cost is None else Decimal(str(cost)),
            requests=int(data.get("requests", 0)),
            turns=int(data.get("turns", 0)),
            summary_tokens=int(data.get("summary_tokens", 0)),
            error=None if data.get("error") is None else str(data["error"]),
            depth=int(data.get("depth", 1)),
            session_id=str(data.get("session_id", "")),
            run_id=str(data.get("run_id", "")),  # "" in runs stored before it was kept
        )


class ParentSession(Protocol):
    """What a delegation needs of the session that delegates (`prefixlock.session.Session`):
    its prefix and model (a subagent's tools are a subset of the parent's; its model defaults
    to the parent's), its ledger (the subagent's cost is charged to its subagent section), its
    delegator, a sink for the events a subagent produces while the parent's tools run, and a
    way to add a delegation made from code as a turn of its own."""

    @property
    def prefix(self) -> FrozenPrefix: ...
    @property
    def model(self) -> str: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def delegator(self) -> Delegator | None: ...

    def emit(self, event: Event) -> None:
        """Yield `event` live in the parent's stream (while its tools run)."""
        ...

    def record_delegation(self, call: str, result: DelegationResult) -> None:
        """Append the call and the summary as a message pair, charge the result, store the
        pair as a completed turn."""
        ...


@runtime_checkable
class Delegator(Protocol):
    """Runs a task in an isolated subagent on behalf of a parent session."""

    async def delegate(
        self,
        parent: ParentSession,
        task: str,
        *,
        agent: str = "explorer",
        model: str | None = None,
    ) -> DelegationResult:
        """Run `task` with agent definition `agent` (on `model`, or the definition's model).

        `parent` is the calling session. Never raises for a subagent's failure or limit: those
        come back as a result with `error` set.

        A delegator may also take `on_event: Callable[[Event], None] | None = None`: the tool
        path then passes the parent's `emit`, and the delegator calls it with SubagentStart when
        the subagent begins, SubagentEvent for each event of the subagent's own stream, and
        SubagentFinish when it ends (see `delegate_for_tool`).
        """
        ...


# The session whose tool loop is running now: the `delegate` tool reads it to find its parent.
current_session: ContextVar[ParentSession | None] = ContextVar(
    "prefixlock_current_session", default=None
)


@contextmanager
def session_scope(session: ParentSession) -> Iterator[None]:
    """Mark `session` as the caller of the tools run inside this block."""
    token = current_session.set(session)
    try:
        yield
    finally:
        current_session.reset(token)


@dataclass
class SubagentSection:
    """The parent ledger's subagent section: one entry per delegation, charged to the parent
    but kept apart from the parent's own requests (whose hit rate it must not blur)."""

    results: list[DelegationResult] = field(default_factory=list)

    def record(self, result: DelegationResult) -> None:
        self.results.append(result)

    def __len__(self) -> int:
        return len(self.results)

    @property
    def usage(self) -> Usage:
        return sum((r.usage for r in self.results), Usage())

    @property
    def hit_rate(self) -> float:
        return self.usage.hit_rate

    @property
    def cost(self) -> Decimal | None:
        """Dollars of all subagents; None when one of them ran on an unpriced model."""
        total = Decimal(0)
        for r in self.results:
            if r.cost is None:
                return None
            total += r.cost
        return total

    @property
    def summary_tokens(self) -> int:
        return sum(r.summary_tokens for r in self.results)

    @property
    def compression(self) -> float:
        """Tokens the subagents consumed per token of summary the parent received."""
        return sum(r.consumed_tokens for r in self.results) / max(self.summary_tokens, 1)

    def rows(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.results]


def subagent_section(session: ParentSession) -> SubagentSection:
    """The subagent section of `session`'s ledger."""
    return session.ledger.subagents


def call_text(task: str, agent: str, model: str | None) -> str:
    """The user-side half of the message pair a code-path delegation appends."""
    on = f" on {model}" if model else ""
    return f"[delegated to subagent {agent}{on}] {task}"


async def delegate_from_session(
    session: ParentSession, task: str, *, agent: str = "explorer", model: str | None = None
) -> DelegationResult:
    """What `Session.delegate` does: run the task through the session's delegator, append the
    call and the summary to the transcript (a user/assistant pair after the last turn, tool
    results still owed to the model first, as `send()` would send them; the prefix is
    untouched), and charge the result to the session's ledger (`record_delegation`).

    The pair counts as a turn of its own and, with a session store, is written at once in the
    turn's one transaction (as a completed `send()` is), so a session that ends right after
    the delegation resumes with the pair and its next request reads the cache."""
    delegator = find_delegator(session.delegator)
    result = await delegator.delegate(session, task, agent=agent, model=model)
    session.record_delegation(call_text(result.task, agent, model), result)
    return result


def delegate_tool_handler(
    session: ParentSession, delegator: Delegator | None = None
) -> Callable[[Mapping[str, Any]], Awaitable[str]]:
    """A `tool_handlers["delegate"]` for `session`: the model's `delegate` calls run here, and
    the result reaches the parent only as the tool_result (the summary)."""

    async def handle(arguments: Mapping[str, Any]) -> str:
        found = find_delegator(delegator or session.delegator)
        raw_model = arguments.get("model")
        raw_agent = arguments.get("agent")
        result = await delegate_for_tool(
            session,
            found,
            str(arguments.get("task", "")),
            agent=str(raw_agent) if raw_agent else None,  # None: the delegator's default
            model=str(raw_model) if raw_model else None,
        )
        return result.summary

    return handle


async def delegate_for_tool(
    session: ParentSession,
    delegator: Delegator,
    task: str,
    *,
    agent: str | None = None,
    model: str | None = None,
) -> DelegationResult:
    """One `delegate` tool call of `session`'s model, run while its tools run.

    The subagent's SubagentStart, its own events (as SubagentEvent) and its SubagentFinish go
    live into the session's stream through `session.emit`, so they arrive before the call's
    ToolResult; a delegator that cannot stream has its start/finish pair emitted at the end.
    The result is charged to the session's ledger (its subagent section)."""
    options: dict[str, Any] = {"model": model}
    if agent is not None:
        options["agent"] = agent
    live = _accepts_on_event(delegator)
    if live:
        options["on_event"] = session.emit
    with session_scope(session):
        result = await delegator.delegate(session, task, **options)
    subagent_section(session).record(result)
    if not live:
        for event in result.events:
            session.emit(event)
    return result


def _accepts_on_event(delegator: Delegator) -> bool:
    """Does `delegator.delegate` take the optional `on_event` sink (or any keyword)?"""
    try:
        params = inspect.signature(delegator.delegate).parameters
    except (TypeError, ValueError):
        return False
    return "on_event" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    )


def subagent_prefix(
    delegator: Delegator, agent: str, parent_prefix: FrozenPrefix | None = None
) -> FrozenPrefix | None:
    """The frozen prefix `delegator` gives a subagent of `agent` under a parent with
    `parent_prefix` (its system prompt and tools, what every sibling of that agent sends first),
    or None when the delegator cannot say. A delegator may offer it as
    `prefix_of(agent, parent_prefix)` (the `agents` package does)."""
    from .prefix import FrozenPrefix

    method = getattr(delegator, "prefix_of", None)
    if method is None:
        return None
    found = method(agent, parent_prefix)
    return found if isinstance(found, FrozenPrefix) else None


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
