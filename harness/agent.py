"""The agent: `Agent` (a frozen prefix, a model and settings: the factory of sessions), and the
script-facing wrappers `SyncSession` and `RunResult`.

The conversation itself, `Session` and its loop, is `prefixlock.session`; a stored one is
continued through `prefixlock.store.resume`. `Session` is importable from here too.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar, Unpack

import pydantic

from .billing.ledger import Ledger
from .billing.prices import PriceTable
from .clock import Clock, SystemClock
from .errors import ConfigError, PrefixError, UserError
from .events import Event, ToolCall
from .guard.compaction import DEFAULT_INSTRUCTION, SummaryPlacement
from .media import UserPart
from .output import DEFAULT_RETRIES
from .prefix import FrozenPrefix
from .providers import SDKProvider, Sleep, make_provider, resolve_route
from .session import Session
from .settings import Settings, SettingsChanges
from .store.database import SessionStore
from .store.leases import Lease
from .store.resume import refuse_stored_id, resume_session
from .transcript import Transcript

if TYPE_CHECKING:
    import httpx2
    from opentelemetry.trace import Tracer

    from .delegation import DelegationResult, Delegator
    from .guard.budget import CacheBudget
    from .guard.economics import TaskProfile
    from .guard.quote import Quote
    from .tools import Tool, ToolLike, ToolSpec

__all__ = ["Agent", "RunResult", "Session", "SyncSession"]

_T = TypeVar("_T")
OutputT = TypeVar("OutputT", bound=pydantic.BaseModel)


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
        http_client: httpx2.AsyncClient | None = None,
        sleep: Sleep | None = None,
        store: SessionStore | str | os.PathLike[str] | None = None,
        budget: CacheBudget | None = None,
        delegator: Delegator | None = None,
        fallback: Sequence[str] = (),
        tracer: Tracer | None = None,
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
        self.store = store  # a SessionStore, or its path (opened by open_store)
        self.budget = budget  # the cache-miss budget of each session (prefixlock.guard.budget)
        self.delegator = delegator
        self.tracer = tracer  # OpenTelemetry spans per turn, request, tool (prefixlock.telemetry)
        if isinstance(fallback, str):  # one model, not its letters
            fallback = (fallback,)
        # Each fallback model must resolve now (an unknown id fails here, not mid-outage).
        self.fallback: tuple[str, ...] = tuple(
            resolve_route(m, base_url, self.prices).label for m in fallback
        )
        self._api_key = api_key
        self._http_client = http_client
        self._sleep = sleep

    def __repr__(self) -> str:  # the key stays out
        return f"Agent({self.route.label}, {self.prefix!r})"

    @property
    def api_key(self) -> str | None:
        """The key this agent was given (None: each provider's comes from its variable).
        Read-only; never in `repr`, logs or the store."""
        return self._api_key

    def open_store(self) -> SessionStore | None:
        """The agent's store (None: it has none), opened once when it was given as a path."""
        if isinstance(self.store, (str, os.PathLike)):
            self.store = SessionStore(self.store, clock=self.clock)
        return self.store

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

    def resume(
        self,
        session_id: str,
        *,
        fork: bool | str = False,
        wait: float = 0.0,
        on_wait: Callable[[Lease | None], object] | None = None,
    ) -> Session:
        """Continue stored session `session_id` from its last completed turn (GUARD+STORE):
        its next request is rebuilt byte-identical from the store, so it reads the cache.
        One process writes a session at a time: while another has it open this raises
        SessionBusyError (after waiting up to `wait` seconds of the agent's clock;
        `on_wait(holder)` is called once when the wait starts); `fork=True` (or a new id)
        continues a copy of its history under a new id instead."""
        return resume_session(self, session_id, fork=fork, wait=wait, on_wait=on_wait)

    def sync_session(self, session_id: str | None = None) -> SyncSession:
        return SyncSession(self.session(session_id))

    def run_sync(
        self, text: str | Sequence[UserPart], *, volatile: Sequence[str] = ()
    ) -> RunResult:
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


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


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

    def send(
        self,
        text: str | Sequence[UserPart],
        *,
        volatile: Sequence[str] = (),
        output_type: type[pydantic.BaseModel] | None = None,
        deps: object = None,
    ) -> list[Event]:
        """All events of one turn, in order."""

        async def collect() -> list[Event]:
            turn = self.session.send(text, volatile=volatile, output_type=output_type, deps=deps)
            return [e async for e in turn]

        return self._run(collect())

    def run(
        self,
        text: str | Sequence[UserPart],
        output_type: type[OutputT],
        *,
        deps: object = None,
        volatile: Sequence[str] = (),
        output_retries: int = DEFAULT_RETRIES,
    ) -> OutputT:
        """`Session.run`: a turn's validated `output_type` object."""
        return self._run(
            self.session.run(
                text, output_type, deps=deps, volatile=volatile, output_retries=output_retries
            )
        )

    def require_approval(self, *tools: str) -> None:
        """`Session.require_approval`: calls of these tools wait for approve/deny."""
        self.session.require_approval(*tools)

    @property
    def pending_approvals(self) -> list[ToolCall]:
        return self.session.pending_approvals

    def approve(self, call_id: str) -> None:
        self.session.approve(call_id)

    def deny(self, call_id: str, reason: str = "") -> None:
        self.session.deny(call_id, reason)

    def resume(
        self, *, output_type: type[pydantic.BaseModel] | None = None, deps: object = None
    ) -> list[Event]:
        """`Session.resume`: run the decided calls and continue the turn; all its events."""

        async def collect() -> list[Event]:
            return [e async for e in self.session.resume(output_type=output_type, deps=deps)]

        return self._run(collect())

    def iter_send(
        self, text: str | Sequence[UserPart], *, volatile: Sequence[str] = ()
    ) -> Iterator[Event]:
        """Events of one turn as they come (the loop runs between them)."""
        agen = self.session.send(text, volatile=volatile).__aiter__()
        while True:
            try:
                yield self._run(agen.__anext__())
            except StopAsyncIteration:
                return

    def ask(self, text: str | Sequence[UserPart], *, volatile: Sequence[str] = ()) -> str:
        return self._run(self.session.ask(text, volatile=volatile))

    def delegate(
        self, task: str, agent: str = "explorer", model: str | None = None
    ) -> DelegationResult:
        """`Session.delegate` for scripts: run `task` in a subagent; its result (`ok`,
        `summary`, `cost`, `error`)."""
        return self._run(self.session.delegate(task, agent, model))

    def compact(
        self,
        *,
        instruction: str = DEFAULT_INSTRUCTION,
        quote: Quote | None = None,
        policy: str | None = None,
        placement: SummaryPlacement = "system",
    ) -> list[Event]:
        """`Session.compact` for scripts (GUARD+STORE)."""
        return self._run(
            self.session.compact(
                instruction=instruction, quote=quote, policy=policy, placement=placement
            )
        )

    # The priced actions are synchronous on `Session` already; these pass them through so a
    # script needs no `.session` (same arguments, same quotes, same errors).

    def quote_switch(
        self, model: str, *, next_message: str | None = None, task: TaskProfile | None = None
    ) -> Quote:
        """`Session.quote_switch`: price moving to `model` before doing it."""
        return self.session.quote_switch(model, next_message=next_message, task=task)

    def switch_model(
        self, model: str, *, quote: Quote | None = None, policy: str | None = None
    ) -> Quote:
        """`Session.switch_model`: a warm cache needs the quote (or policy='allow')."""
        return self.session.switch_model(model, quote=quote, policy=policy)

    def quote_tools(
        self,
        tools: Iterable[ToolLike] | None = None,
        *,
        add: Iterable[ToolLike] | Tool | ToolSpec = (),
        remove: Iterable[str] | str = (),
        next_message: str | None = None,
    ) -> Quote:
        """`Session.quote_tools`: price a new tool set."""
        return self.session.quote_tools(tools, add=add, remove=remove, next_message=next_message)

    def change_tools(
        self,
        tools: Iterable[ToolLike] | None = None,
        *,
        add: Iterable[ToolLike] | Tool | ToolSpec = (),
        remove: Iterable[str] | str = (),
        quote: Quote | None = None,
        policy: str | None = None,
    ) -> Quote:
        """`Session.change_tools`: move to a new tool set."""
        return self.session.change_tools(tools, add=add, remove=remove, quote=quote, policy=policy)

    def quote_prefix(self, prefix: FrozenPrefix, *, next_message: str | None = None) -> Quote:
        """`Session.quote_prefix`: price moving to another frozen prefix."""
        return self.session.quote_prefix(prefix, next_message=next_message)

    def change_prefix(
        self, prefix: FrozenPrefix, *, quote: Quote | None = None, policy: str | None = None
    ) -> Quote:
        """`Session.change_prefix`: move to `prefix`."""
        return self.session.change_prefix(prefix, quote=quote, policy=policy)

    def quote_effort(
        self, *, next_message: str | None = None, **changes: Unpack[SettingsChanges]
    ) -> Quote:
        """`Session.quote_effort`: price a settings change."""
        return self.session.quote_effort(next_message=next_message, **changes)

    def change_effort(
        self,
        *,
        quote: Quote | None = None,
        policy: str | None = None,
        **changes: Unpack[SettingsChanges],
    ) -> Quote:
        """`Session.change_effort`: apply a settings change."""
        return self.session.change_effort(quote=quote, policy=policy, **changes)

    def quote_compaction(
        self, *, placement: SummaryPlacement = "system", next_message: str | None = None
    ) -> Quote:
        """`Session.quote_compaction`: price compacting now."""
        return self.session.quote_compaction(placement=placement, next_message=next_message)

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
