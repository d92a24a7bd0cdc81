"""The agent loop: `Agent` (prefix + model + settings) and `Session` (one conversation).

`Session.send(text)` builds the next request from the frozen prefix and the transcript, streams
it, records usage in the ledger, runs the tool calls the model made (sync or async functions; a
tool that raises, or one that does not exist, becomes an `is_error` tool result, never a crash),
and loops until the model answers without tools or a limit (requests per turn, dollars) stops it.
Everything the caller sees is a typed event (`prefixlock.events`); nothing prints.

Nothing reaches the transcript before its request succeeded: the user's message and the tool
results go in together with the model's reply, so a retried or failed request can neither
duplicate nor lose an entry. Tool results whose follow-up request failed (or hit a limit) are
kept and sent in front of the next `send()`.

Seams for the other parts of the SDK (small methods, overridable or wrapped): the cache guard's
prediction (`_before_send`) and comparison (`_after_response`), budget checks (`_limit_reached`),
store writes (`_record_turn`), model and prefix switches (`_use_provider`, `_use_prefix`), and
tools that are not Python functions of the prefix (`tool_handlers`, e.g. `delegate`).
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from decimal import Decimal
from types import TracebackType
from typing import Any, TypeVar

from .clock import Clock, SystemClock
from .errors import ConfigError, PrefixError, ProviderError, UserError
from .events import Event, ToolCall, ToolResult, TurnComplete, UsageReport
from .guard.cacheguard import caches_whole_prompts
from .guard.session import GuardedSession, refuse_stored_id, resume_session
from .ledger import Ledger, LedgerRow
from .prefix import FrozenPrefix
from .prices import PriceTable
from .providers import (
    Reply,
    SDKProvider,
    SessionInfo,
    Sleep,
    StreamProgress,
    make_provider,
    resolve_route,
)
from .settings import Settings
from .transcript import Message, Transcript, text_block, thaw, tool_result_block
from .wire import WireRequest

ToolHandler = Callable[[Mapping[str, Any]], Awaitable[str]]
_T = TypeVar("_T")


class Agent:
    """A frozen prefix, a model and settings: the factory of sessions."""

    def __init__(
        self,
        prefix: FrozenPrefix,
        model: str = "claude-opus-4-7",
        api_key: str | None = None,
        base_url: str | None = None,
        clock: Clock | None = None,
        prices: PriceTable | None = None,
        settings: Settings | None = None,
        *,
        http_client: Any = None,
        sleep: Sleep | None = None,
        store: Any = None,
        budget: Any = None,
        delegator: Any = None,
    ) -> None:
        if not isinstance(prefix, FrozenPrefix):  # Agent("You are...") fails here, not at send
            raise PrefixError(
                f"the prefix must be a FrozenPrefix, got {type(prefix).__name__}: build it with "
                "FrozenPrefix(system=..., tools=[...])",
                where="prefix",
            )
        self.prefix = prefix
        self.prices = prices or PriceTable.default()
        self.settings = settings or Settings()
        self.clock: Clock = clock or SystemClock()
        self.base_url = base_url
        self.route = resolve_route(model, base_url, self.prices)  # unknown ids fail here
        self.model = self.route.model
        if self.settings.max_dollars is not None and self.prices.lookup(self.model) is None:
            # The dollar limit reads the ledger, which never prices an unknown model: it
            # would silently never stop the loop.
            raise ConfigError(
                f"model {self.model!r} is not in the price table, so the dollar limit cannot "
                "be kept: add it with a prices file (PREFIXLOCK_PRICES) or drop max_dollars",
                where="settings.max_dollars",
            )
        self.store = store  # prefixlock.store.database.SessionStore (GUARD+STORE)
        self.budget = budget  # prefixlock.guard.cacheguard.CacheBudget (GUARD+STORE)
        self.delegator = delegator
        self._api_key = api_key
        self._http_client = http_client
        self._sleep = sleep

    def __repr__(self) -> str:  # the key stays out
        return f"Agent({self.route.label}, {self.prefix!r})"

    def provider(self, model: str | None = None, base_url: str | None = None) -> SDKProvider:
        """A provider for `model` (default: the agent's); MissingKeyError names the variable.

        The `api_key` given to the agent is its provider's: a model of another provider (a
        switch, a resumed session stored on it) takes its key from that provider's variable,
        so an Anthropic key is never sent to OpenAI. With a `base_url` (a gateway, the
        emulator) one key serves every model, as given."""
        api_key = self._api_key
        if (
            model is not None
            and api_key
            and self.base_url is None
            and base_url is None
            and resolve_route(model, None, self.prices).key_var != self.route.key_var
        ):
            api_key = None
        return make_provider(
            model or self.route.label,
            api_key=api_key,
            base_url=base_url if base_url is not None else self.base_url,
            prices=self.prices,
            settings=self.settings,
            http_client=self._http_client,
            sleep=self._sleep,
        )

    def session(self, session_id: str | None = None, *, resume: str | None = None) -> Session:
        """A new session (use `async with`). Needs the API key now, not at the first send.
        `resume=ID` continues a stored session instead (see `resume`)."""
        if resume is not None:
            return self.resume(resume)
        if session_id is not None:
            refuse_stored_id(self, session_id)  # a stored id is continued with resume()
        return Session(self, session_id or uuid.uuid4().hex, self.provider())

    def resume(self, session_id: str) -> Session:
        """Continue stored session `session_id` from its last completed turn (GUARD+STORE):
        its next request is rebuilt byte-identical from the store, so it reads the cache."""
        session: Session = resume_session(self, session_id, Session)
        return session

    def sync_session(self, session_id: str | None = None) -> SyncSession:
        return SyncSession(self.session(session_id))

    def run_sync(self, text: str, *, volatile: Sequence[str] = ()) -> RunResult:
        """One task in a fresh session, from a script: the answer and the session's ledger."""
        with self.sync_session() as s:
            events = s.send(text, volatile=volatile)
            return RunResult(s.last_text, s.ledger, events, s.session)


@dataclass
class RunResult:
    text: str
    ledger: Ledger
    events: list[Event]
    session: Session


@dataclass
class _TurnState:
    turn: int
    requests: int = 0
    text: str = ""
    volatile: Sequence[str] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    settled: bool = False  # stopped and already stored by a later send (see _settle_stream)


@dataclass
class _OpenStream:
    """The request whose stream is being read: what to ledger if it stops early."""

    request: WireRequest
    progress: StreamProgress
    started_at: float
    state: _TurnState
    pending: Sequence[Message]


class Session(GuardedSession):
    """One conversation on a frozen prefix. Use `async with agent.session() as s`."""

    def __init__(self, agent: Agent, session_id: str, provider: SDKProvider) -> None:
        self.agent = agent
        self.id = session_id
        self.info = SessionInfo(session_id)
        self.prefix = agent.prefix
        self.settings = agent.settings
        self.clock = agent.clock
        self.provider = provider
        self.model = provider.model
        self.transcript = Transcript()
        self.ledger = Ledger(agent.prices)
        self.requests: list[WireRequest] = []
        self.turn = 0
        self.last_text = ""
        # Tool handlers that are not runners of the prefix (e.g. `delegate`), by tool name.
        self.tool_handlers: dict[str, ToolHandler] = {}
        self._pending_results: list[dict[str, Any]] = []
        self.closed = False  # aclose() ran: the session sends nothing more
        self._sends: weakref.WeakSet[AsyncGenerator[Event, None]] = weakref.WeakSet()
        self._open_stream: _OpenStream | None = None  # a request streaming (or abandoned)
        self._guard_init()  # cache guard, store, keep-alive (prefixlock.guard.session)
        # Events produced while tools run (a subagent's start, its nested events, its finish):
        # `emit` queues them and `_run_tools` yields them live, before the tool results.
        self.side_events: list[Event] = []
        self._side_wake: asyncio.Event | None = None
        if agent.delegator is not None and "delegate" in self.prefix.tool_names():
            from .delegation import delegate_tool_handler

            self.tool_handlers["delegate"] = delegate_tool_handler(self)

    def __repr__(self) -> str:
        return f"Session({self.id}, {self.provider.route.label}, {len(self.transcript)} messages)"

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
        self.closed = True
        self._settle_stream("stopped", stopped_turn=True)  # a turn left half-read is billed
        await self._close_retired()  # providers left behind by switch_model (GUARD+STORE)
        await self.provider.aclose()

    @property
    def previous_request(self) -> WireRequest | None:
        """The last request sent (what the cache guard compares the next one with)."""
        return self.requests[-1] if self.requests else None

    # ---- the loop ------------------------------------------------------------------------

    def send(self, text: str, *, volatile: Sequence[str] = ()) -> AsyncGenerator[Event, None]:
        """Send a user turn and yield events until the model's final answer or a limit.

        `volatile` text (a date, a one-off reminder) is appended to the newest user turn. Where
        the cache keeps breakpoints or token blocks (Anthropic, OpenAI) it goes on the wire only,
        after the cached part, and never enters the transcript. Where the cache stores whole
        prompts (DeepSeek) it becomes part of this turn's user message, in the transcript as
        sent: see `_volatile_in_history`.

        One turn at a time: a send started while another is still waiting on the provider or
        its tools (two tasks on one session) raises UserError. A turn whose events the caller
        stopped reading does not count.
        """
        if self.closed:  # its client was closed; a new one would be left open
            raise UserError(
                f"session {self.id} is closed: continue it in a new session "
                "(agent.resume(id) with a store) or start one (agent.session())"
            )
        if isinstance(volatile, str):  # one text, not its letters (a str is a Sequence[str])
            volatile = (volatile,)
        _check_text(text, "text")
        for i, extra in enumerate(volatile):
            _check_text(extra, f"volatile[{i}]")
        turn = self._send(text, volatile)
        self._sends.add(turn)
        return turn

    async def _send(self, text: str, volatile: Sequence[str]) -> AsyncGenerator[Event, None]:
        # Two turns built from the same transcript would both be appended to it, each after
        # the other, though neither request held the other's messages. (The one running is
        # this one: hence more than one.)
        if len([t for t in self._sends if getattr(t, "ag_running", False)]) > 1:
            raise UserError(
                f"session {self.id} is busy: another send() is still running on it; await it "
                "before sending again (one session per concurrent conversation)"
            )
        # Keep-alive pings never overlap a turn: a ping in flight makes the turn wait, and no
        # ping starts while the turn runs (prefixlock.guard.session).
        async with self._guard_turn():
            # A turn the caller stopped reading (a break) is closed only when its generator is
            # collected, maybe after this send: its billed request is ledgered now, before
            # this turn is predicted.
            self._settle_stream("stopped", stopped_turn=True)
            in_history = bool(volatile) and self._volatile_in_history()
            blocks = [*self._pending_results, *self._unanswered_calls()]
            if text:
                blocks.append(text_block(text))
            if in_history:
                blocks.extend(text_block(t) for t in volatile)
            if not blocks:  # a request with no new user content: providers refuse it (400)
                raise UserError(
                    "nothing to send: the message is empty (and no tool results are waiting)",
                    where="text",
                )
            self.turn += 1
            state = _TurnState(self.turn, volatile=() if in_history else tuple(volatile))
            self._pending_results = []
            pending = [Message.user(blocks)]
            try:
                while True:
                    limit = self._limit_reached(state)
                    if limit is not None:
                        self._keep_unsent(pending)
                        self._guard_turn_done()
                        yield TurnComplete(state.turn, state.text, "limit", limit_hit=limit)
                        return
                    request = self._build_next_request(pending, state.volatile)
                    for event in self._before_send(request):
                        yield event
                    started_at = self.clock.now()
                    reply: Reply | None = None
                    progress = StreamProgress()
                    self._open_stream = _OpenStream(request, progress, started_at, state, pending)
                    try:
                        async for item in self.provider.stream(request, progress):
                            if isinstance(item, Reply):
                                reply = item
                            else:
                                yield item
                    except BaseException as exc:  # ledgered as billed; unsent results kept
                        open_ = self._open_stream
                        if open_ is not None and open_.state is state:  # not settled yet
                            self._settle_stream(_stop_reason(exc))
                        raise
                    self._open_stream = None
                    retried: list[Event] = []
                    if progress.unfinished():  # began, then a fault, and retried: billed
                        for attempt in progress.unfinished():
                            self._guard_abandoned(request, attempt, started_at, "retried")
                        retried, self.queued_events = self.queued_events, []
                    if reply is None:  # the transport always ends with a Reply or raises
                        raise ProviderError("stream ended without a reply", retryable=True)
                    state.requests += 1
                    row, events = self._after_response(request, reply, started_at)
                    self._record_turn(request, pending, reply, row)
                    events = [*retried, *events]  # their reports, after the reply is recorded
                    for event in events:
                        yield event
                    state.text = reply.text
                    self.last_text = reply.text
                    calls = reply.tool_uses()
                    if not calls:
                        self._guard_turn_done()
                        yield TurnComplete(state.turn, reply.text, reply.stop_reason)
                        return
                    results: list[dict[str, Any]] = []
                    async for event in self._run_tools(calls, results):
                        yield event
                    pending = [Message.user(results)]
            except BaseException:  # a fault, a cancellation, or the caller stopped iterating
                # Requests of this turn that did succeed were billed and are in the transcript:
                # the store gets them too, as it does after a turn stopped at a limit.
                if not state.settled:  # a later send (or aclose) stored it already
                    self._guard_turn_stopped()
                raise

    # ---- seams ---------------------------------------------------------------------------

    def _volatile_in_history(self) -> bool:
        """Does volatile text stay in the history on this session's provider?

        DeepSeek's cache (FACTS.md) stores whole prompts: a hit needs a full match of a unit
        stored at the end of a request's input and of its output. Both end after volatile text
        sent on the wire only, so dropping it next turn leaves nothing but the fixed prefix to
        match and the conversation is re-billed every request. Kept in the user message, each
        request is the previous one plus its reply plus new turns, and the stored unit matches.
        Anthropic reads through breakpoints placed before the volatile text and OpenAI caches
        token blocks, so there dropping it loses nothing and keeps the history short. Decided by
        the guard's own rule (api plus the price table's provider: openai-compat to anything
        but OpenAI), so the requests sent and the guard's predictions follow the same model,
        also after a model switch."""
        return caches_whole_prompts(
            self.provider.api, self.agent.prices.lookup(self.model), self.model
        )

    def _build_next_request(
        self, pending: Sequence[Message], volatile: Sequence[str] = ()
    ) -> WireRequest:
        """The next request: the transcript plus the not-yet-sent messages. Pure."""
        return self.provider.build_request(
            self.prefix, self.transcript, self.settings, self.info, volatile, pending
        )

    def _before_send(self, request: WireRequest) -> list[Event]:
        """Hook before a request goes out (the guard predicts here). Returns events to yield."""
        return self._guard_before(request)  # may raise CacheBudgetExceeded: nothing is sent

    def _after_response(
        self, request: WireRequest, reply: Reply, started_at: float
    ) -> tuple[LedgerRow, list[Event]]:
        """Record usage in the ledger and report it (the guard compares here)."""
        cause, predicted, guard_events = self._guard_after(request, reply, started_at)
        row = self.ledger.record(
            request,
            reply.usage,
            time=started_at,
            previous=self.previous_request,
            cause=cause,
            predicted_read=predicted,
        )
        report = UsageReport(
            turn=self.turn,
            request=row.seq,
            model=request.model,
            usage=reply.usage,
            cost=row.cost,
            cost_without_cache=row.cost_without_cache,
            predicted_read=row.predicted_read,
        )
        return row, [report, *guard_events]

    def _record_turn(
        self, request: WireRequest, pending: Sequence[Message], reply: Reply, row: LedgerRow
    ) -> None:
        """The request succeeded: now, and only now, the transcript grows (store writes here)."""
        self.transcript.extend(pending)
        if reply.blocks:
            self.transcript.append(Message.assistant(reply.blocks))
        self.requests.append(request)
        self._guard_record(request, reply, row)  # written to the store when the turn completes

    def _limit_reached(self, state: _TurnState) -> str | None:
        """'turns' or 'dollars' when the loop must stop before the next request."""
        if state.requests >= self.settings.max_turns:
            return "turns"
        cap = self.settings.max_dollars
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
        (`_guard_abandoned`); the tool results it carried wait for the next send. Its user
        message and partial answer never enter the transcript. `stopped_turn`: settled from
        outside the turn (a later send, aclose), which then also stores the turn's requests."""
        open_, self._open_stream = self._open_stream, None
        if open_ is None:
            return
        attempts = open_.progress.unfinished()
        for i, attempt in enumerate(attempts):
            why = reason if i == len(attempts) - 1 else "retried"
            self._guard_abandoned(open_.request, attempt, open_.started_at, why)
        self._keep_unsent(open_.pending)
        if stopped_turn:
            open_.state.settled = True
            self._guard_turn_stopped()

    def _keep_unsent(self, pending: Sequence[Message]) -> None:
        """Tool results that were not delivered go in front of the next turn (the model's
        tool calls are in the transcript and need their results)."""
        for message in pending:
            self._pending_results.extend(
                thaw(b) for b in message.blocks if b.get("type") == "tool_result"
            )

    def _unanswered_calls(self) -> list[dict[str, Any]]:
        """Error results for tool calls of the last assistant message that never got one (the
        caller stopped iterating while tools ran): every tool_use needs its tool_result."""
        if not len(self.transcript) or self.transcript[-1].role != "assistant":
            return []
        answered = {b.get("tool_use_id") for b in self._pending_results}
        return [
            tool_result_block(str(c["id"]), "Error: interrupted before the tool returned", True)
            for c in self.transcript[-1].tool_uses()
            if c["id"] not in answered
        ]

    def _use_provider(self, provider: SDKProvider) -> None:
        """Move the session to another provider/model (the guard prices this first)."""
        self.provider = provider
        self.model = provider.model

    def _use_prefix(self, prefix: FrozenPrefix) -> None:
        """Move the session to another frozen prefix (the guard prices this first)."""
        self.prefix = prefix

    # ---- tools ---------------------------------------------------------------------------

    async def _run_tools(
        self, calls: Sequence[Mapping[str, Any]], results: list[dict[str, Any]]
    ) -> AsyncIterator[Event]:
        """Run the model's tool calls concurrently; results and events in call order."""
        for call in calls:
            yield ToolCall(str(call["id"]), str(call["name"]), dict(thaw(call.get("input", {}))))
        from .delegation import session_scope

        wake = self._side_wake = asyncio.Event()
        with session_scope(self):  # the tools' tasks copy it: `delegate` finds its parent
            running = asyncio.gather(*(self._run_tool(c) for c in calls))
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

    async def _run_tool(self, call: Mapping[str, Any]) -> tuple[str, bool]:
        name = str(call["name"])
        arguments = dict(thaw(call.get("input", {})))
        handler = self.tool_handlers.get(name)
        runner = self.prefix.runner(name)
        try:
            if handler is not None:
                return _valid_text(await handler(arguments)), False
            if runner is None:
                return f"Error: unknown tool {name!r}", True
            return _valid_text(await runner.invoke(arguments)), False
        except Exception as exc:  # a tool's failure is the model's to handle, not a crash
            return _valid_text(f"Error: {type(exc).__name__}: {exc}"), True

    # ---- conveniences --------------------------------------------------------------------

    async def delegate(
        self, task: str, agent: str = "explorer", model: str | None = None
    ) -> str:
        """Run `task` in an isolated subagent (prefixlock.delegation) and return its summary.

        The prefix is untouched; the transcript gets the call and the summary as a message
        pair; the subagent's cost goes to `ledger.subagents`. Never raises for the subagent's
        own failures (they come back as an error summary)."""
        from .delegation import delegate_from_session

        return (await delegate_from_session(self, task, agent=agent, model=model)).summary

    async def ask(self, text: str, *, volatile: Sequence[str] = ()) -> str:
        """Send a turn, drop the events, return the final text."""
        final = ""
        async for event in self.send(text, volatile=volatile):
            if isinstance(event, TurnComplete):
                final = event.text
        return final

    @property
    def cost(self) -> Decimal | None:
        return self.ledger.cost


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


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a stopped future's outcome as seen (asyncio logs unseen exceptions)."""
    if not future.cancelled():
        future.exception()


class SyncSession:
    """A session for scripts: the same loop, run to completion on a private event loop."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._loop = asyncio.new_event_loop()

    def __enter__(self) -> SyncSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _run(self, work: Awaitable[_T]) -> _T:
        """Run `work` to completion on the private loop; inside a running loop (Jupyter,
        async code) that cannot be done: say what to use instead."""
        if self._loop.is_closed():
            if isinstance(work, Coroutine):
                work.close()
            raise UserError("this sync session is closed: open a new one (agent.sync_session())")
        if _loop_running():
            if isinstance(work, Coroutine):
                work.close()  # never awaited, on purpose: no "was never awaited" warning
            raise RuntimeError(
                "the sync session is for scripts, and an event loop is already running here "
                "(Jupyter, async code): use `async with agent.session() as s` and "
                "`await s.ask(...)` / `async for event in s.send(...)`"
            )
        return self._loop.run_until_complete(work)

    def close(self) -> None:
        if not self._loop.is_closed():
            if not _loop_running():  # else nothing ran here: there is nothing to close
                self._loop.run_until_complete(self.session.aclose())
            self._loop.close()

    def send(self, text: str, *, volatile: Sequence[str] = ()) -> list[Event]:
        """All events of one turn, in order."""

        async def collect() -> list[Event]:
            return [e async for e in self.session.send(text, volatile=volatile)]

        return self._run(collect())

    def iter_send(self, text: str, *, volatile: Sequence[str] = ()) -> Iterator[Event]:
        """Events of one turn as they come (the loop runs between them)."""
        agen = self.session.send(text, volatile=volatile).__aiter__()
        while True:
            try:
                yield self._run(agen.__anext__())
            except StopAsyncIteration:
                return

    def ask(self, text: str, *, volatile: Sequence[str] = ()) -> str:
        return self._run(self.session.ask(text, volatile=volatile))

    def delegate(self, task: str, agent: str = "explorer", model: str | None = None) -> str:
        """`Session.delegate` for scripts: run `task` in a subagent, return its summary."""
        return self._run(self.session.delegate(task, agent, model))

    def compact(self, **kwargs: Any) -> list[Event]:
        """`Session.compact` for scripts (GUARD+STORE); quote/switch methods are sync already:
        use `sync.session.quote_switch(...)` / `switch_model(...)`."""
        return self._run(self.session.compact(**kwargs))

    def keepalive_tick(self) -> list[Event]:
        """`Session.keepalive_tick` for scripts (GUARD+STORE)."""
        return self._run(self.session.keepalive_tick())

    @property
    def ledger(self) -> Ledger:
        return self.session.ledger

    @property
    def transcript(self) -> Transcript:
        return self.session.transcript

    @property
    def last_text(self) -> str:
        return self.session.last_text

    @property
    def id(self) -> str:
        return self.session.id
