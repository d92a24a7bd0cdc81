"""Typed events of the agent loop. The CLI, the TUI and user code consume the same stream;
nothing prints from inside the core."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .billing.usage import Usage

if TYPE_CHECKING:  # the guard's quote imports this module's events
    from .guard.quote import Quote


@dataclass(frozen=True)
class Event:
    """Base class of everything a session yields."""


@dataclass(frozen=True)
class TextDelta(Event):
    """A piece of the model's text as it streams (joined, they are the reply's text)."""

    text: str


@dataclass(frozen=True)
class ToolCall(Event):
    """The model calls tool `name` with `input` (call `id`); its `ToolResult` follows, or an
    `ApprovalRequired` when the tool waits for the caller."""

    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolResult(Event):
    """What tool call `id` returned to the model (`content`; `is_error`: it failed, was
    denied or is unknown, and the model is told so)."""

    id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class UsageReport(Event):
    """One request's usage, its cost, and the guard's prediction for it."""

    turn: int
    request: int  # index of the request within the session
    model: str
    usage: Usage
    cost: Decimal | None  # None: the model is unpriced
    cost_without_cache: Decimal | None
    predicted_read: int | None = None


@dataclass(frozen=True)
class CacheBreak(Event):
    """A request that read less than it could have, with the cause and what it cost."""

    request: int
    cause: str  # model | tools | system | messages | ttl | below_minimum | unexplained | ...
    tokens_rebilled: int
    dollars: Decimal | None
    detail: str = ""
    provider_verdict: str | None = None


@dataclass(frozen=True)
class SwitchWarning(Event):
    """A priced action (model switch, tool change, compaction) was quoted before it happened."""

    action: str
    quote: Quote


@dataclass(frozen=True)
class SubagentStart(Event):
    """A subagent (`name`, on `model`, `depth` levels down) starts on `task`."""

    name: str
    model: str
    task: str
    depth: int = 1
    # Tells apart runs of the same agent at the same depth (parallel delegations): unique
    # within the parent session, the same in the run's SubagentEvent wrappers and its finish.
    run_id: str = ""


@dataclass(frozen=True)
class SubagentFinish(Event):
    """A subagent finished: its summary (what the parent gets), usage, cost, hit rate and
    compression; `error` names why it stopped short (None: it succeeded)."""

    name: str
    model: str
    summary: str
    usage: Usage
    cost: Decimal | None
    hit_rate: float
    compression: float  # tokens consumed / tokens of summary returned
    error: str | None = None
    depth: int = 1  # as in the matching SubagentStart
    run_id: str = ""  # as in the matching SubagentStart


@dataclass(frozen=True)
class SubagentEvent(Event):
    """An event a subagent yielded in its own stream (a text delta, a tool call, its usage, its
    own subagents' start and finish), passed up live to its parent's stream. The wrapper keeps
    it apart from the parent's own events: a consumer that ignores it counts nothing twice (the
    subagent's usage and cost reach the parent in SubagentFinish). Nested deeper subagents'
    events arrive as one wrapper each, tagged with the depth of the subagent that yielded them."""

    name: str  # the subagent's agent definition
    depth: int  # 1: a subagent of the top-level session, 2: its subagent, ...
    event: Event
    run_id: str = ""  # the run that yielded it (as in its SubagentStart)


@dataclass(frozen=True)
class StoreWriteFailed(Event):
    """The session store could not be written (a full disk, a read-only file): what was
    billed stays in memory (`pending` writes) and is written, in order, once the store takes
    writes again (tried after every turn). Said once per failure, not every turn."""

    message: str
    pending: int


@dataclass(frozen=True)
class ProviderFault(Event):
    """A provider fault: retried (`retrying`) or final.

    When a request is retried after its stream had begun, the `TextDelta`s already yielded
    were a partial answer that is dropped: the retry streams the answer again from its start
    (nothing of the failed attempt reaches the transcript; `TurnComplete.text` is the final
    answer). A live display should clear the partial text when `retrying` is true."""

    status: int | None
    message: str
    attempt: int
    retrying: bool


@dataclass(frozen=True)
class ContextWindowWarning(Event):
    """The next request would not fit the model's context window (its tokens plus the output
    cap): the provider will refuse it. Yielded before it is sent; compact or start afresh."""

    model: str
    tokens: int
    output_cap: int
    window: int


@dataclass(frozen=True)
class KeepAlivePing(Event):
    """A keep-alive ping was sent: the tokens it read from the cache and what it cost."""

    read_tokens: int
    cost: Decimal | None


@dataclass(frozen=True)
class PrefixChanged(Event):
    """The session moved to a new frozen prefix (compaction, tool change) or model."""

    reason: str
    old_fingerprint: str
    new_fingerprint: str
    model: str


@dataclass(frozen=True)
class ResumedPrefixDiffers(Event):
    """A resumed session runs on its stored prefix (that is what reads its cache), and the
    agent that resumed it has another. Yielded once, by the first send after the resume, before
    its request. `quote` prices moving to the agent's prefix (None if it could not be priced);
    it was made at the resume, so apply a fresh one:
    `s.change_prefix(s.agent_prefix, quote=s.quote_prefix(s.agent_prefix))`."""

    stored_fingerprint: str
    agent_fingerprint: str
    quote: Quote | None


@dataclass(frozen=True)
class ModelFallback(Event):
    """The provider failed (after its retries) and the session moved to the next model of the
    agent's fallback chain: a model switch, priced by the guard like any other (`quote`), and
    the request is sent again on `model`."""

    failed_model: str
    model: str
    error: str
    quote: Quote


@dataclass(frozen=True)
class FinalOutput(Event):
    """A turn's structured output, validated (`send(..., output_type=Model)`): `output` is an
    instance of the output type; `tool` is the output tool the model called."""

    output: Any
    tool: str


@dataclass(frozen=True)
class ApprovalRequired(Event):
    """The turn stopped: these tool calls wait for the caller's decision (`s.approve(id)` /
    `s.deny(id, reason)`, then `s.resume()`). Calls of the same reply that need no approval
    already ran."""

    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class TurnComplete(Event):
    """The turn ended: its number, the final text and `stop_reason` ("end_turn", "output"
    for a structured output in `meta["output"]`, "approval" for calls waiting, "limit" with
    `limit_hit`, or the provider's reason)."""

    turn: int
    text: str
    stop_reason: str
    limit_hit: str | None = None  # "turns" | "dollars" when a limit ended the loop
    meta: dict[str, Any] = field(default_factory=dict)
