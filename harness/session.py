"""The agent loop: `Session`, one conversation on a frozen prefix.

`Session.send(text)` builds the next request from the frozen prefix and the transcript, streams
it, records usage in the ledger, runs the tool calls the model made (sync or async functions; a
tool that raises, or one that does not exist, becomes an `is_error` tool result, never a crash),
and loops until the model answers without tools or a limit (requests per turn, dollars) stops it.
Everything the caller sees is a typed event (`prefixlock.events`); nothing prints.

Nothing reaches the transcript before its request succeeded: the user's message and the tool
results go in together with the model's reply, so a retried or failed request can neither
duplicate nor lose an entry. Tool results whose follow-up request failed (or hit a limit) are
kept and sent in front of the next `send()`.

A session owns its state (`prefixlock.state.SessionState`) and collaborators that work on it:
- `tracker` (`prefixlock.guard.tracker.GuardTracker`): predicts each request, enforces the
  miss budget, ledgers what came back and names misses;
- `recorder` (`prefixlock.store.recorder.Recorder`): writes turns, pings and moves to the store;
- `pings` (`prefixlock.guard.keepalive_runner.KeepAliveRunner`): keep-alive pings, never during
  a turn;
- `turn_end` (`prefixlock.guard.turn_end_runner.TurnEndRunner`): what a turn's end writes for
  the gap to the next turn (the agent's `CachePolicy`: a 1-hour write, pings or nothing);
- `actions` (`prefixlock.guard.actions.PricedActions`): quotes and applies model switches, tool,
  prefix and settings changes and compaction; the session's `quote_*`, `switch_model` and
  `change_*` come from `PricedActionMethods` (written once there for this class and
  `prefixlock.agent.SyncSession`), `compact` is its own (it sends the summary request);
- `approvals` (`prefixlock.approvals.Approvals`): tool calls waiting for the caller;
  `require_approval`, `approve`, `deny` and `pending_approvals` come from `ApprovalMethods`,
  shared with `SyncSession` the same way.
What the session is now (`prefix`, `model`, `transcript`, `ledger`, `requests`...) is its
state's, read through `prefixlock.state.StateField`s; the rest of the state and what the
collaborators hold are reached through them (`s.state.settings`, `s.pings.keepalive`,
`s.recorder.store`, `s.actions.quotes`).
A session is made by an agent (`prefixlock.state.SessionAgent`, `prefixlock.agent.Agent`);
`prefixlock.store.resume` rebuilds one from the store. Tools that are not Python functions of
the prefix go in `tool_handlers` (e.g. `delegate`, `prefixlock.delegation`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from decimal import Decimal
from types import TracebackType
from typing import Any, TypeVar

import pydantic

from .approvals import Approvals, StoppedTurn, check_required
from .billing.ledger import Ledger, LedgerRow
from .context import RunContext
from .delegation import (
    DelegationResult,
    Delegator,
    delegate_from_session,
    delegate_tool_handler,
    session_scope,
)
from .errors import ProviderError, UserError
from .events import (
    ApprovalRequired,
    Event,
    FinalOutput,
    ModelFallback,
    ToolCall,
    ToolResult,
    TurnComplete,
)
from .guard.actions import PricedActionMethods, PricedActions, SendAside
from .guard.budget import CacheBudget
from .guard.cacheguard import CacheGuard, caches_whole_prompts
from .guard.compaction import (
    DEFAULT_INSTRUCTION,
    SummaryPlacement,
    compaction_due,
    shrinks_below,
    turn_growth,
)
from .guard.keepalive import KeepAlive
from .guard.keepalive_runner import KeepAliveRunner
from .guard.quote import Quote
from .guard.tracker import GuardTracker
from .guard.turn_end_runner import TurnEndRunner
from .media import UserPart, user_blocks
from .output import DEFAULT_RETRIES, OutputRun
from .prefix import FrozenPrefix, base_system
from .providers import AttemptProgress, Reply, SDKProvider, SessionInfo, StreamProgress
from .released_bodies import drop_oldest, keep_newest
from .state import SessionAgent, SessionState, StateField, WritableStateField
from .store.recorder import Recorder, recorder_for
from .telemetry import Telemetry
from .tokenizer import count_tokens
from .transcript import Message, Transcript, text_block, thaw, tool_result_block
from .turn import Turn
from .wire import WireRequest

ToolHandler = Callable[[Mapping[str, Any]], Awaitable[str]]
OutputT = TypeVar("OutputT", bound=pydantic.BaseModel)


@dataclass
class _TurnState:
    turn: int
    requests: int = 0
    text: str = ""
    volatile: Sequence[str] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    deps: object = None  # given to tools that take a RunContext; never serialized
    output: OutputRun[Any] | None = None  # the structured output asked for, if any
    span: Any = None  # the turn's OpenTelemetry span (None: tracing is off)
    stop_reason: str | None = None
    settled: bool = False  # stopped and already stored by a later send (see _settle_stream)


@dataclass
class _OpenStream:
    """The request whose stream is being read: what to ledger if it stops early."""

    request: WireRequest
    progress: StreamProgress
    started_at: float
    state: _TurnState
    pending: Sequence[Message]


class ApprovalMethods:
    """Tool approval as a session offers it (prefixlock.approvals), written once: `Session` and
    `prefixlock.agent.SyncSession` inherit these, and `approvals` is the session's (a sync
    session's is its session's)."""

    approvals: Approvals

    state: SessionState

    def require_approval(self, *tools: str) -> None:
        """Calls of these tools (any tool of the prefix: its own, `delegate`, MCP ones; "*"
        for all) wait for `approve`/`deny` and `resume()`. A name that is not a tool of the
        prefix raises UserError naming the known tools (`@tool(requires_approval=True)`
        declares it on the tool instead)."""
        self.approvals.require(check_required(tools, self.state.prefix))

    @property
    def pending_approvals(self) -> list[ToolCall]:
        """The tool calls waiting for a decision, in call order."""
        return list(self.approvals.pending.values())

    def approve(self, call_id: str) -> None:
        """Let waiting call `call_id` run at the next `resume()`."""
        self.approvals.decide(call_id, True)

    def deny(self, call_id: str, reason: str = "") -> None:
        """Answer waiting call `call_id` with an error result saying `reason`, at `resume()`."""
        self.approvals.decide(call_id, False, reason)


class Session(PricedActionMethods, ApprovalMethods):
    """One conversation on a frozen prefix. Use `async with agent.session() as s`."""

    # What the session is now: its state's fields (prefixlock.state), read-only but for the
    # transcript (assigning a fork is the only way to edit the past).
    id: StateField[str] = StateField[str]("The session's id (the store's key: `agent.resume(id)`).")
    prefix: StateField[FrozenPrefix] = StateField[FrozenPrefix](
        "The prefix the session runs on (changed only by a priced action or a compaction)."
    )
    model: StateField[str] = StateField[str](
        "The model the session runs on (changed by `switch_model`)."
    )
    transcript: WritableStateField[Transcript] = WritableStateField[Transcript](
        "The conversation so far."
    )
    ledger: StateField[Ledger] = StateField[Ledger](
        "Usage and cost of every request, and of the subagents."
    )
    requests: StateField[list[WireRequest]] = StateField[list[WireRequest]](
        "The requests sent, in order."
    )
    previous_request: StateField[WireRequest | None] = StateField[WireRequest | None](
        "The last request sent (what the cache guard compares the next one with)."
    )
    turn: StateField[int] = StateField[int](
        "User turns so far (a resumed session counts from its stored ones)."
    )
    compactions: StateField[int] = StateField[int]("How many times the history was compacted.")
    last_text: StateField[str] = StateField[str]("The text of the last reply.")

    def __init__(self, agent: SessionAgent, session_id: str, provider: SDKProvider) -> None:
        self.agent = agent
        self.state: SessionState = SessionState(
            session_id, agent.clock, agent.prices, agent.prefix, agent.settings, provider
        )
        # OpenAI's prompt_cache_key: the agent's prefix family, one shard per session running
        # at once (prefixlock.cache.keys).
        self._family = agent.prefix.fingerprint
        shard = agent.key_shards.take(self._family, session_id, agent.clock.now())
        self.state.info = SessionInfo(session_id, self._family, shard)
        self.tracker: GuardTracker = GuardTracker(
            self.state, CacheGuard(agent.prices, budget=agent.budget)
        )
        self.recorder: Recorder = recorder_for(agent.open_store(), self.state)
        self.pings: KeepAliveRunner = KeepAliveRunner(self.state, self.tracker, self.recorder)
        self.turn_end: TurnEndRunner = TurnEndRunner(
            self.state, self.tracker, self.recorder, self.pings, agent
        )
        self.actions: PricedActions = PricedActions(
            self.state, agent, self.tracker, self.recorder, self.turn_end.choose
        )
        # Tool handlers that are not runners of the prefix (e.g. `delegate`), by tool name.
        self.tool_handlers: dict[str, ToolHandler] = {}
        self.closed: bool = False  # aclose() ran: the session sends nothing more
        self._sends: weakref.WeakSet[AsyncGenerator[Event, None]] = weakref.WeakSet()
        self._open_stream: _OpenStream | None = None  # a request streaming (or abandoned)
        # Set by a resume (prefixlock.store.resume): continued from the store, and whether the
        # stored prefix and transcript rebuilt the last stored request byte for byte (None: not
        # resumed, or nothing was sent on the current prefix).
        self.resumed = False
        self.resume_verified: bool | None = None
        # Events produced while tools run (a subagent's start, its nested events, its finish):
        # `emit` queues them and `_run_tools` yields them live, before the tool results.
        self.side_events: list[Event] = []
        self._side_wake: asyncio.Event | None = None
        # What tools that take a RunContext get as `deps` when a send passes none (never
        # serialized: not in the prefix, a request, the store or a trace).
        self.deps: object = None
        # Tools whose calls wait for the caller's approval (prefixlock.approvals).
        self.approvals: Approvals = Approvals()
        # The agent's fallback chain, consumed in order as the provider fails (a session that
        # fell back stays on the model it moved to).
        self.fallbacks: list[str] = list(agent.fallback)
        self.telemetry: Telemetry = Telemetry(agent.tracer, session_id)
        # How many of the newest requests keep their body in `requests` (None: all). Each body
        # holds the whole conversation so far, so a long session that keeps every one grows
        # with the square of its length; an older request keeps its record (model, cache key,
        # meta, input tokens) and its body is in the store (prefixlock.released_bodies).
        self._keep_request_bodies: int | None = None
        self._bodies_released = 0  # requests before this index are released already
        # How many of the newest request records `requests` holds (None: all); the older ones
        # are in the store (`state.requests_dropped` counts them).
        self._keep_requests: int | None = None
        if agent.delegator is not None and "delegate" in self.prefix.tool_names():
            self.tool_handlers["delegate"] = delegate_tool_handler(self)

    @property
    def keep_request_bodies(self) -> int | None:
        """How many of the newest requests in `requests` keep their body (None, the default:
        all). The older ones keep their record; reading their body raises BodyReleased. The
        session itself reads only the newest body (quotes, compaction, keep-alive, the
        turn-end write) or the store (resume), so any bound >= 1 is safe for it; the default
        keeps all because a session without a store has no other copy of them."""
        return self._keep_request_bodies

    @keep_request_bodies.setter
    def keep_request_bodies(self, keep: int | None) -> None:
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            # The newest body is what the guard, keep-alive and compaction read.
            raise UserError(
                f"must be None or a whole number >= 1, not {keep!r}", where="keep_request_bodies"
            )
        self._keep_request_bodies = keep
        self._bodies_released = keep_newest(self.state.requests, keep, self._bodies_released)

    @property
    def keep_requests(self) -> int | None:
        """How many of the newest requests `requests` holds at all (None, the default: every
        one). Past it, the oldest records leave the list (the store keeps them); the session
        itself reads only the newest request, so any bound >= 1 is safe for it. A long-running
        session sets it with `keep_request_bodies` to stay flat in memory."""
        return self._keep_requests

    @keep_requests.setter
    def keep_requests(self, keep: int | None) -> None:
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            raise UserError(
                f"must be None or a whole number >= 1, not {keep!r}", where="keep_requests"
            )
        self._keep_requests = keep
        self._drop_old_requests()

    def _drop_old_requests(self) -> None:
        gone = drop_oldest(self.state.requests, self._keep_requests)
        self.state.requests_dropped += gone
        self._bodies_released = max(self._bodies_released - gone, 0)

    def __repr__(self) -> str:
        label = self.state.provider.route.label
        return f"Session({self.id}, {label}, {len(self.transcript)} messages)"

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the session: a turn left half-read is billed, the store lease released, the
        client closed."""
        self.closed = True
        self.agent.key_shards.release(self._family, self.id)
        try:
            try:
                self._settle_stream("stopped", stopped_turn=True)  # a turn left half-read is billed
            finally:
                # Another process may write the session now; raises StoreWriteLost when billed
                # work could not be stored (the providers are closed all the same).
                self.recorder.release()
        finally:
            await self.actions.close_retired()  # providers left behind by switch_model
            await self.state.provider.aclose()

    # ---- what the session is beyond its state ----------------------------------------------

    @property
    def guard(self) -> CacheGuard:
        """The cache guard that predicts each request and names every miss."""
        return self.tracker.guard

    @property
    def budget(self) -> CacheBudget:
        """The cache-miss budget, enforced before each request and action (assignable)."""
        return self.tracker.guard.budget

    @budget.setter
    def budget(self, value: CacheBudget) -> None:
        self.tracker.guard.budget = value

    @property
    def delegator(self) -> Delegator | None:
        """The agent's delegator (what `delegate` runs subagents with; a ParentSession's)."""
        return self.agent.delegator

    @property
    def agent_prefix(self) -> FrozenPrefix:
        """The prefix of the agent this session was made by (`prefix` is the one it runs on:
        a resumed session keeps its stored one, see `resumed_prefix_differs`)."""
        return self.agent.prefix

    @property
    def resumed_prefix_differs(self) -> bool:
        """True while a resumed session runs on its stored prefix and the agent's differs:
        moving costs what `quote_prefix(agent_prefix)` says (`change_prefix` applies it)."""
        return self.resumed and self.prefix.fingerprint != self.agent_prefix.fingerprint

    # ---- the loop ------------------------------------------------------------------------

    def send(
        self,
        text: str | Sequence[UserPart],
        *,
        volatile: Sequence[str] = (),
        output_type: type[pydantic.BaseModel] | None = None,
        deps: object = None,
        output_retries: int = DEFAULT_RETRIES,
    ) -> AsyncGenerator[Event, None]:
        """Send a user turn and yield events until the model's final answer or a limit.

        `volatile` text (a date, a one-off reminder) is appended to the newest user turn. Where
        the cache keeps breakpoints or token blocks (Anthropic, OpenAI) it goes on the wire only,
        after the cached part, and never enters the transcript. Where the cache stores whole
        prompts (DeepSeek) it becomes part of this turn's user message, in the transcript as
        sent: see `_volatile_in_history`.

        `text` may be a list of parts: text, `Image` and `Document` (prefixlock.media), sent
        as one user message in that order and cached like text.

        One turn at a time: a send started while another is still waiting on the provider or
        its tools (two tasks on one session) raises UserError. A turn whose events the caller
        stopped reading does not count.

        `output_type` (a pydantic model whose `output_tool` is in the prefix): the turn ends
        with a validated object (`FinalOutput`, see prefixlock.output); `deps` goes to tools
        that take a `RunContext` (default: `s.deps`).
        """
        if self.closed:  # its client was closed; a new one would be left open
            raise UserError(
                f"session {self.id} is closed: continue it in a new session "
                "(agent.resume(id) with a store) or start one (agent.session())"
            )
        if isinstance(volatile, str):  # one text, not its letters (a str is a Sequence[str])
            volatile = (volatile,)
        content = _user_content(text)
        for i, extra in enumerate(volatile):
            _check_text(extra, f"volatile[{i}]")
        output = (
            None
            if output_type is None
            else OutputRun.start(output_type, self.prefix.tool_names(), output_retries)
        )
        turn = self._send(content, volatile, output, self.deps if deps is None else deps)
        self._sends.add(turn)
        return Turn(turn)  # `await s.send()` says how to use it

    async def _send(
        self,
        content: list[dict[str, Any]],
        volatile: Sequence[str],
        output: OutputRun[Any] | None,
        deps: object,
    ) -> AsyncGenerator[Event, None]:
        # Two turns built from the same transcript would both be appended to it, each after
        # the other, though neither request held the other's messages. (The one running is
        # this one: hence more than one.)
        if len([t for t in self._sends if getattr(t, "ag_running", False)]) > 1:
            raise UserError(
                f"session {self.id} is busy: another send() is still running on it; await it "
                "before sending again (one session per concurrent conversation)"
            )
        s = self.state
        if self._compaction_due():
            # Auto-compaction (Settings.compact_at): priced and budgeted as any compaction.
            for event in await self._auto_compact():
                yield event
        # Keep-alive pings never overlap a turn: a ping in flight makes the turn wait, and no
        # ping starts while the turn runs (prefixlock.guard.keepalive_runner).
        async with self.pings.turn():
            # A turn the caller stopped reading (a break) is closed only when its generator is
            # collected, maybe after this send: its billed request is ledgered now, before
            # this turn is predicted.
            self._settle_stream("stopped", stopped_turn=True)
            in_history = bool(volatile) and self._volatile_in_history()
            blocks = [*s.pending_results, *self._unanswered_calls(), *content]
            if in_history:
                blocks.extend(text_block(t) for t in volatile)
            if not blocks:  # a request with no new user content: providers refuse it (400)
                raise UserError(
                    "nothing to send: the message is empty (and no tool results are waiting)",
                    where="text",
                )
            s.turn += 1
            self.turn_end.turn_started(s.clock.now())
            self.approvals.clear()  # calls left undecided got their error result above
            state = _TurnState(
                s.turn, volatile=() if in_history else tuple(volatile), deps=deps, output=output
            )
            state.span = self.telemetry.turn(state.turn, self.model)
            s.pending_results = []
            pending = [Message.user(blocks)]
            failure: BaseException | None = None
            try:
                while True:
                    limit = self._limit_reached(state)
                    if limit is not None:
                        self._keep_unsent(pending)
                        self.recorder.turn_done()
                        state.stop_reason = "limit"
                        yield TurnComplete(state.turn, state.text, "limit", limit_hit=limit)
                        return
                    request = self._build_next_request(pending, state.volatile)
                    for event in self._before_send(request):
                        yield event
                    started_at = s.clock.now()
                    reply: Reply | None = None
                    progress = StreamProgress()
                    self._open_stream = _OpenStream(request, progress, started_at, state, pending)
                    span = self.telemetry.request(
                        state.span,
                        s.provider.api,
                        s.model,
                        s.sent,
                        s.provider.route.base_url,
                    )
                    try:
                        async for item in s.provider.stream(request, progress):
                            if isinstance(item, Reply):
                                reply = item
                            else:
                                yield item
                    except ProviderError as exc:
                        self.telemetry.end_request(span, None, exc)
                        open_ = self._open_stream
                        if open_ is not None and open_.state is state:
                            self._settle_stream("failed")
                        fallback = self._fall_back(exc)
                        if fallback is None:
                            raise
                        s.pending_results.clear()  # `pending` is sent again, on the new model
                        yield fallback
                        continue
                    except BaseException as exc:  # ledgered as billed; unsent results kept
                        self.telemetry.end_request(span, None, exc)
                        open_ = self._open_stream
                        if open_ is not None and open_.state is state:  # not settled yet
                            self._settle_stream(_stop_reason(exc))
                        raise
                    self._open_stream = None
                    retried: list[Event] = []
                    if progress.unfinished():  # began, then a fault, and retried: billed
                        for attempt in progress.unfinished():
                            self._abandoned(request, attempt, started_at, "retried")
                        retried = s.take_queued()
                    if reply is None:  # the transport always ends with a Reply or raises
                        raise ProviderError("stream ended without a reply", retryable=True)
                    state.requests += 1
                    row, events = self.tracker.completed(request, reply, started_at)
                    self.telemetry.end_request(span, row, reply=reply)
                    self._record_turn(request, pending, reply, row)
                    events = [*retried, *events]  # their reports, after the reply is recorded
                    for event in events:
                        yield event
                    state.text = reply.text
                    s.last_text = reply.text
                    calls = reply.tool_uses()
                    if not calls and state.output is not None:
                        # Text instead of the output tool: remind it (counts as an attempt).
                        pending = [Message.user([text_block(state.output.reminder(reply.text))])]
                        continue
                    if not calls:
                        self.recorder.turn_done()
                        state.stop_reason = reply.stop_reason
                        self.turn_end.meet_next_turn()
                        for event in s.take_queued():  # a store write that failed
                            yield event
                        yield TurnComplete(state.turn, reply.text, reply.stop_reason)
                        return
                    results: list[dict[str, Any]] = []
                    async for event in self._run_tools(calls, results, state):
                        yield event
                    pending = [Message.user(results)]
                    stop = self._stop_after_tools(state)
                    if stop:
                        # The results go in front of the next send, as a limit's do.
                        self._keep_unsent(pending)
                        self.recorder.turn_done()
                        state.stop_reason = "output" if state.output is not None else "approval"
                        for event in stop:
                            yield event
                        return
            except BaseException as exc:  # a fault, a cancellation, or the caller stopped
                # Requests of this turn that did succeed were billed and are in the transcript:
                # the store gets them too, as it does after a turn stopped at a limit.
                failure = exc
                if not state.settled:  # a later send (or aclose) stored it already
                    self.recorder.turn_stopped()
                raise
            finally:
                self.telemetry.end_turn(state.span, state.stop_reason, failure)

    def _volatile_in_history(self) -> bool:
        """Does volatile text stay in the history on this session's provider?

        DeepSeek's cache (docs/providers.md#deepseek-cache-units): a hit is a full match of a unit
        stored at the end of a request's input and of its output. Both end after volatile text
        sent on the wire only, so dropping it next turn leaves nothing but the fixed prefix to
        match and the conversation is re-billed every request. Kept in the user message, each
        request is the previous one plus its reply plus new turns, and the stored unit matches.
        Anthropic reads through breakpoints placed before the volatile text and OpenAI caches
        token blocks, so there dropping it loses nothing and keeps the history short. Decided by
        the guard's own rule (api plus the price table's provider: openai-compat to anything
        but OpenAI), so the requests sent and the guard's predictions follow the same model,
        also after a model switch."""
        s = self.state
        return caches_whole_prompts(s.provider.api, self.agent.prices.lookup(s.model), s.model)

    def _build_next_request(
        self, pending: Sequence[Message], volatile: Sequence[str] = ()
    ) -> WireRequest:
        """The next request: the transcript plus the not-yet-sent messages, with the TTLs the
        policy chooses for it (`TurnEndRunner.build`). Pure."""
        return self.turn_end.build(pending, volatile)

    async def _auto_compact(self) -> list[Event]:
        """The due compaction, on the model of the last request: after the user switched
        models the new one's cache is cold, while the one that answered holds the history, so
        the summary reads it there instead of writing the whole context on the new model."""
        s = self.state
        last = s.requests[-1]
        route = f"{last.api}:{last.model}"  # the wire API too (Chat or Responses)
        # Where the summary goes is the session's wire API's choice, made in one place for
        # this and the manual compaction (no placement: `compaction.resolve_placement`).
        if route == s.provider.route.label or self.agent.prices.lookup(last.model) is None:
            return await self.compact(quote=self.quote_compaction())
        here = self.actions.summary_dollars(s.provider.api, s.model)
        there = self.actions.summary_dollars(last.api, last.model)
        if here is not None and there is not None and here <= there:
            # Back from an excursion: this model's cache still holds the history before it.
            return await self.compact(quote=self.quote_compaction())
        # Priced on that route inside `compact` (the budget applies); the session's own rule
        # decided it, as the quotes above do for the other two cases.
        return await self.compact(route=route, policy="allow")

    def _compaction_due(self) -> bool:
        """Does the context the next request carries fill `Settings.compact_at` of the model's
        context window: the last request and the reply it got, now in the transcript?"""
        s = self.state
        at = s.settings.compact_at
        if at is None or not s.requests or not s.transcript.messages:
            return False
        last = s.requests[-1]
        if last.meta.get("kind") == "summary":
            return False  # just compacted: the summary request read the old, long history
        price = self.agent.prices.lookup(self.model)
        window = price.context_window if price is not None else None
        if window is None:
            return False
        # The last request alone lags a reply behind what the next one sends: a context past
        # the threshold would wait a whole turn, its requests all over it, before compacting
        # (LangChain's SummarizationMiddleware counts the messages it is about to send).
        reply = s.transcript.messages[-1]
        context = last.input_tokens + (reply.tokens if reply.role == "assistant" else 0)
        growth = turn_growth(s.transcript.messages)
        if not compaction_due(context, at * window, lambda: self._history_cold(last), growth):
            return False
        # Only when compacting gets the context under the threshold (a prefix past it alone
        # would compact, and pay a summary, before every turn).
        summary = s.prefix.system[len(base_system(s.prefix)) :]
        history = s.transcript.tokens + sum(count_tokens(t) for t in summary)
        return shrinks_below(context, history, at * window)

    def _history_cold(self, last: WireRequest) -> bool:
        """Would `last`, sent again now, read none of the conversation from the cache (by the
        guard's model of it: a resume, a gap past every entry's life)?"""
        prefix_end = max((u.end for u in last.units if u.section != "messages"), default=0)
        return self.tracker.guard.predict(last, self.state.clock.now()).read <= prefix_end

    def _before_send(self, request: WireRequest) -> list[Event]:
        """`request` goes out now: the guard predicts it (CacheBudgetExceeded: nothing is
        sent), an idle stretch of keep-alive ends, and the queued events come first."""
        now = self.state.clock.now()
        self.tracker.before(request, now)
        self.pings.active_again(now)
        self.agent.key_shards.sent(self._family, self.id, now)
        return self.state.take_queued()

    def _send_aside(self, provider: SDKProvider) -> SendAside:
        """What sends a request outside a turn (a compaction's summary) through `provider`, as
        a turn's request goes: apart from pings, predicted and budgeted first. The sender
        returns its reply and when it went."""

        async def send(request: WireRequest, events: list[Event]) -> tuple[Reply, float]:
            async with self.pings.turn():
                events.extend(self._before_send(request))
                started = self.state.clock.now()
                return await provider.complete(request, events), started

        return send

    def _record_turn(
        self, request: WireRequest, pending: Sequence[Message], reply: Reply, row: LedgerRow
    ) -> None:
        """The request succeeded: now, and only now, the transcript grows (the store gets the
        request with its turn)."""
        self.transcript.extend(pending)
        if reply.blocks:
            self.transcript.append(Message.assistant(reply.blocks))
        self.requests.append(request)
        self._bodies_released = keep_newest(
            self.state.requests, self.keep_request_bodies, self._bodies_released
        )
        self._drop_old_requests()
        self.recorder.keep(request, row, "turn", self.tracker.last_break)

    def _abandoned(
        self, request: WireRequest, attempt: AttemptProgress, started_at: float, reason: str
    ) -> None:
        """An attempt that stopped before its Reply was billed: ledgered by the guard tracker,
        reported before the next request, stored with its turn."""
        observed = self.tracker.abandoned(request, attempt, started_at, reason)
        if observed is not None:
            row, events = observed
            self.state.queued_events.extend(events)
            self.recorder.keep(request, row, "abandoned", self.tracker.last_break)

    def _limit_reached(self, state: _TurnState) -> str | None:
        """'turns' or 'dollars' when the loop must stop before the next request."""
        settings = self.state.settings
        if state.requests >= settings.max_turns:
            return "turns"
        cap = settings.max_dollars
        if cap is not None and self._dollars_spent() >= cap:
            return "dollars"
        return None

    def _dollars_spent(self) -> Decimal:
        """What the dollar limit counts: the session's priced requests and what its subagents
        cost (charged to the session: `ledger.total_cost`)."""
        subagents = (r.cost for r in self.ledger.subagents.results if r.cost is not None)
        return self.ledger.priced_cost + sum(subagents, Decimal(0))

    def _settle_stream(self, reason: str, *, stopped_turn: bool = False) -> None:
        """The open request's stream stopped before its Reply: each attempt the provider had
        started was billed, so it is ledgered, stored and observed by the guard
        (`_abandoned`); the tool results it carried wait for the next send. Its user message
        and partial answer never enter the transcript. `stopped_turn`: settled from outside
        the turn (a later send, aclose), which then also stores the turn's requests."""
        open_, self._open_stream = self._open_stream, None
        if open_ is None:
            return
        attempts = open_.progress.unfinished()
        for i, attempt in enumerate(attempts):
            why = reason if i == len(attempts) - 1 else "retried"
            self._abandoned(open_.request, attempt, open_.started_at, why)
        self._keep_unsent(open_.pending)
        if stopped_turn:
            open_.state.settled = True
            self.recorder.turn_stopped()

    def _keep_unsent(self, pending: Sequence[Message]) -> None:
        """Tool results that were not delivered go in front of the next turn (the model's
        tool calls are in the transcript and need their results)."""
        for message in pending:
            self.state.pending_results.extend(
                thaw(b) for b in message.blocks if b.get("type") == "tool_result"
            )

    def _unanswered_calls(self) -> list[dict[str, Any]]:
        """Error results for tool calls of the last assistant message that never got one (the
        caller stopped iterating while tools ran): every tool_use needs its tool_result."""
        if not len(self.transcript) or self.transcript[-1].role != "assistant":
            return []
        answered = {b.get("tool_use_id") for b in self.state.pending_results}
        return [
            tool_result_block(str(c["id"]), "Error: interrupted before the tool returned", True)
            for c in self.transcript[-1].tool_uses()
            if c["id"] not in answered
        ]

    # ---- tools ---------------------------------------------------------------------------

    async def _run_tools(
        self,
        calls: Sequence[Mapping[str, Any]],
        results: list[dict[str, Any]],
        state: _TurnState,
    ) -> AsyncIterator[Event]:
        """Run the model's tool calls concurrently; results and events in call order. Calls
        of tools that need approval are deferred (no result: they wait for the caller)."""
        runnable = []
        for call in calls:
            event = ToolCall(str(call["id"]), str(call["name"]), dict(thaw(call.get("input", {}))))
            yield event
            if self.approvals.needs(event.name, self.prefix) and not _is_output(state, event.name):
                self.approvals.defer(event)
            else:
                runnable.append(call)
        calls = runnable
        wake = self._side_wake = asyncio.Event()
        with session_scope(self):  # the tools' tasks copy it: `delegate` finds its parent
            running = asyncio.gather(*(self._run_tool(c, state) for c in calls))
        try:
            while True:  # what the tools emit meanwhile is yielded as it happens
                wake.clear()
                while self.side_events:
                    yield self.side_events.pop(0)
                if running.done():
                    break
                waiter = asyncio.ensure_future(wake.wait())
                either: set[asyncio.Future[Any]] = {running, waiter}
                try:
                    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                finally:  # also when the turn is cancelled here: no pending task left behind
                    waiter.cancel()
            outcomes = running.result()
        finally:
            self._side_wake = None
            if not running.done():  # the caller stopped iterating: stop the tools too
                running.cancel()
                running.add_done_callback(_retrieve)  # its CancelledError is expected
        for call, (content, is_error) in zip(calls, outcomes, strict=True):
            results.append(tool_result_block(str(call["id"]), content, is_error))
            yield ToolResult(str(call["id"]), str(call["name"]), content, is_error)

    def emit(self, event: Event) -> None:
        """Queue an event produced while tools run (e.g. a subagent's start, its nested events,
        its finish); `send()` yields it live, ahead of the tool results of that round."""
        self.side_events.append(event)
        if self._side_wake is not None:
            self._side_wake.set()

    async def _run_tool(self, call: Mapping[str, Any], state: _TurnState) -> tuple[str, bool]:
        span = self.telemetry.tool(state.span, str(call["name"]), str(call["id"]))
        outcome = ("", True)  # what the span reports if the call is cancelled or raises
        try:
            outcome = await self._invoke_tool(call, state)
            return outcome
        finally:
            self.telemetry.end_tool(span, outcome[1])

    async def _invoke_tool(self, call: Mapping[str, Any], state: _TurnState) -> tuple[str, bool]:
        name = str(call["name"])
        arguments = dict(thaw(call.get("input", {})))
        if state.output is not None and _is_output(state, name):
            accepted: tuple[str, bool] = state.output.accept(arguments)  # OutputError: retries
            return accepted
        handler = self.tool_handlers.get(name)
        runner = self.prefix.runner(name)
        try:
            if handler is not None:
                return _valid_text(await handler(arguments)), False
            if runner is None:
                return f"Error: unknown tool {name!r}", True
            context = None
            if runner.context_param is not None:
                context = RunContext(state.deps, self.id, state.turn, self.model, str(call["id"]))
            return _valid_text(await runner.invoke(arguments, context)), False
        except Exception as exc:  # a tool's failure is the model's to handle, not a crash
            return _valid_text(f"Error: {type(exc).__name__}: {exc}"), True

    def _fall_back(self, error: ProviderError) -> ModelFallback | None:
        """Move to the next model of the fallback chain (a priced model switch: the guard's
        quote, a SwitchWarning when the cache was warm), or None when none is left."""
        while self.fallbacks:
            model = self.fallbacks.pop(0)
            failed = self.state.provider.route.label
            if model == failed:
                continue
            quote = self.quote_switch(model)
            self.switch_model(model, quote=quote)
            return ModelFallback(failed, self.state.provider.route.label, str(error), quote)
        return None

    def _stop_after_tools(self, state: _TurnState) -> list[Event]:
        """The events that end the turn after its tools ran: a valid structured output, or
        calls waiting for approval (none: the loop goes on)."""
        if state.output is not None and state.output.done:
            value = state.output.value
            return [
                FinalOutput(value, state.output.tool_name),
                TurnComplete(state.turn, state.text, "output", meta={"output": value}),
            ]
        if self.approvals.pending:
            output = state.output
            self.approvals.stopped = StoppedTurn(
                state.deps,
                output.output_type if output is not None else None,
                output.retries if output is not None else DEFAULT_RETRIES,
            )
            return [
                ApprovalRequired(tuple(self.approvals.pending.values())),
                TurnComplete(state.turn, state.text, "approval"),
            ]
        return []

    # ---- structured output, approvals (prefixlock.output, prefixlock.approvals) ------------

    async def run(
        self,
        text: str | Sequence[UserPart],
        output_type: type[OutputT],
        *,
        deps: object = None,
        volatile: Sequence[str] = (),
        output_retries: int = DEFAULT_RETRIES,
    ) -> OutputT:
        """Send a turn and return its validated `output_type` object (its `output_tool` must
        be in the prefix). Raises OutputError when the model gives no valid one within
        `output_retries`, UserError when the turn stops without one (a limit, an approval)."""
        async for event in self.send(
            text,
            volatile=volatile,
            output_type=output_type,
            deps=deps,
            output_retries=output_retries,
        ):
            if isinstance(event, TurnComplete):
                value = event.meta.get("output")
                if isinstance(value, output_type):
                    return value
                raise UserError(
                    f"the turn ended ({event.stop_reason}"
                    + (f": {event.limit_hit} limit" if event.limit_hit else "")
                    + f") without a {output_type.__name__}"
                )
        raise UserError("the turn ended without completing")  # send always completes

    async def resume(
        self,
        *,
        output_type: type[pydantic.BaseModel] | None = None,
        deps: object = None,
        output_retries: int | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Continue a turn stopped for approval: run the approved calls, answer the denied
        ones with an error result (the reason), and send the results on (a new turn).

        The approved calls and the turn that goes on get the stopped turn's `deps` and output
        type (what its `send`/`run` was given) unless these arguments give others."""
        stopped = self.approvals.stopped or StoppedTurn(self.deps, None, DEFAULT_RETRIES)
        decided = self.approvals.take_decided()
        deps = stopped.deps if deps is None else deps
        if output_type is None:
            output_type = stopped.output_type
            output_retries = stopped.output_retries if output_retries is None else output_retries
        output_retries = DEFAULT_RETRIES if output_retries is None else output_retries
        state = _TurnState(self.turn, deps=deps)
        for d in decided:
            if d.approved:
                call = {"id": d.call.id, "name": d.call.name, "input": d.call.input}
                content, is_error = await self._run_tool(call, state)
            else:
                content = "Denied by the user" + (f": {d.reason}" if d.reason else "")
                is_error = True
            self.state.pending_results.append(tool_result_block(d.call.id, content, is_error))
            yield ToolResult(d.call.id, d.call.name, content, is_error)
        async for event in self.send(
            "", output_type=output_type, deps=deps, output_retries=output_retries
        ):
            yield event

    # ---- delegation ----------------------------------------------------------------------

    async def delegate(
        self, task: str, agent: str = "explorer", model: str | None = None
    ) -> DelegationResult:
        """Run `task` in an isolated subagent (prefixlock.delegation) and return its result:
        `ok`, `summary` (what the transcript got), `cost`, `error` ("turns", "dollars",
        "depth" or a failure message; None when it succeeded), usage and requests.

        The prefix is untouched; the transcript gets the call and the summary as a message
        pair; the subagent's cost goes to `ledger.subagents`. Never raises for the subagent's
        own failures (they come back as a result whose `ok` is false)."""
        return await delegate_from_session(self, task, agent=agent, model=model)

    def record_delegation(self, call: str, result: DelegationResult) -> None:
        """A delegation made from code, as a turn of its own: the call (after any tool results
        still owed to the model) and the summary are appended as a message pair, the result is
        charged to the ledger, and the turn is written to the store at once, so a session that
        ends right after it resumes with the pair."""
        pending = self.state.take_pending()
        self.transcript.append(Message.user([*pending, text_block(call)]))
        self.transcript.append(Message.assistant(result.summary))
        self.ledger.subagents.record(result)
        self.state.turn += 1  # the store numbers it as a turn; a resumed one counts from there
        self.recorder.turn_done()

    async def ask(self, text: str | Sequence[UserPart], *, volatile: Sequence[str] = ()) -> str:
        """Send a turn, drop the events, return the final text."""
        final = ""
        async for event in self.send(text, volatile=volatile):
            if isinstance(event, TurnComplete):
                final = event.text
        return final

    # ---- compaction (the other priced actions: PricedActionMethods) ------------------------

    async def compact(
        self,
        *,
        instruction: str = DEFAULT_INSTRUCTION,
        quote: Quote | None = None,
        policy: str | None = None,
        placement: SummaryPlacement | None = None,
        route: str | None = None,
    ) -> list[Event]:
        """Summarize with a request that reads the cache, then move to the compacted prefix.
        `placement` None (the default, the chat's /compact and the automatic compaction
        alike): where the session's wire API keeps the cached prefix whole, the messages on
        OpenAI (its instructions come before the tools), the system prompt on Anthropic
        (`compaction.resolve_placement`).

        A warm cache needs the quote (`quote_compaction()`) or policy='allow', as the other
        priced actions do (with `route`, the quote is made inside: pass policy='allow').
        `route` (a model or route label) sends the summary request to another model than the
        session's, one whose cache holds the history; the session stays on its own model.
        Returns the events (usage of the summary request, warnings,
        PrefixChanged).
        """
        if route is None:
            return await self.actions.compact(
                self._send_aside(self.state.provider),
                instruction=instruction,
                quote=quote,
                policy=policy,
                placement=placement,
            )
        provider = self.agent.provider(route)
        try:
            return await self.actions.compact(
                self._send_aside(provider),
                instruction=instruction,
                quote=quote,
                policy=policy,
                placement=placement,
                route=provider,
            )
        finally:
            await provider.aclose()

    # ---- keep-alive (prefixlock.guard.keepalive_runner) ----------------------------------

    def enable_keepalive(
        self,
        max_spend: Decimal | float | str = Decimal("0.50"),
        *,
        margin: float = 30.0,
        max_idle: float | None = None,
    ) -> KeepAlive:
        """Turn keep-alive pings on (drive them with `await keepalive_tick()`). The cap is
        for the whole session: pings already in the ledger (a resumed session's restored rows
        included) count toward it. `s.pings.keepalive` is the returned settings and totals
        (set it to None to stop); `s.pings.next_ping_at()` says when the next ping is due."""
        return self.pings.enable(max_spend, margin, max_idle)

    async def keepalive_tick(self) -> list[Event]:
        """Send a ping if one is due now and still pays; returns its KeepAlivePing event."""
        return await self.pings.tick()

    async def run_keepalive(self, stop: asyncio.Event, poll: float = 5.0) -> None:
        """Ping in the background until `stop` is set (real time; tests use keepalive_tick)."""
        await self.pings.run(stop, poll)


def _user_content(text: object) -> list[dict[str, Any]]:
    """A user turn's blocks: its text, or its parts (text, Image, Document) in order."""
    if not isinstance(text, (list, tuple)):
        _check_text(text, "text")  # a str, or the error that says what it is instead
        assert isinstance(text, str)
        return user_blocks(text)
    for i, part in enumerate(text):
        if isinstance(part, str):
            _check_text(part, f"text[{i}]")
    return user_blocks(text)


def _check_text(value: object, where: str) -> None:
    """What a user sends is text that UTF-8 can carry (a lone surrogate, e.g. from a file read
    with errors="surrogateescape", cannot go on the wire): say so, not UnicodeEncodeError."""
    if not isinstance(value, str):
        raise UserError(f"expected text (str), got {type(value).__name__}", where=where)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UserError(
            f"not valid Unicode text: a lone surrogate {value[exc.start]!r} at character "
            f"{exc.start}",
            where=where,
        ) from None


def _valid_text(text: str) -> str:
    """A tool's output as text UTF-8 can carry: surrogate pairs joined, lone surrogates turned
    into U+FFFD. (Tool output is data the model reads; one bad character must not fail the
    turn.)"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _stop_reason(exc: BaseException) -> str:
    """Why a stream stopped early, as its abandoned ledger row says."""
    if isinstance(exc, GeneratorExit):
        return "stopped"  # the caller stopped reading (break, aclose)
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    return "failed"  # a fault (a cut stream whose retries ran out, an error event)


def _is_output(state: _TurnState, tool_name: str) -> bool:
    return state.output is not None and tool_name == state.output.tool_name


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a stopped future's outcome as seen (asyncio logs unseen exceptions)."""
    if not future.cancelled():
        future.exception()
