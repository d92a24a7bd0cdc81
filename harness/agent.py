"""The agent: `Agent` (a frozen prefix, a model and settings: the factory of sessions), and the
script-facing wrappers `SyncSession` and `RunResult`.

The conversation itself, `Session` and its loop, is `prefixlock.session`; a stored one is
continued through `prefixlock.store.resume`. `Session` is importable from here too.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import pydantic

from .billing.ledger import Ledger
from .billing.prices import PriceTable
from .cache.keys import KeyShards
from .clock import Clock, SystemClock
from .delegation import DelegationResult
from .errors import ConfigError, PrefixError, UserError
from .events import Event
from .guard.actions import PricedActionMethods
from .guard.compaction import DEFAULT_INSTRUCTION, SummaryPlacement
from .guard.policy import CachePolicy
from .guard.quote import Quote
from .media import UserPart
from .output import DEFAULT_RETRIES
from .prefix import FrozenPrefix
from .providers import SDKProvider, Sleep, make_provider, resolve_route
from .providers.registry import Route
from .session import ApprovalMethods, OutputT, Session
from .settings import Settings
from .state import StateField
from .store.database import SessionStore
from .store.leases import Lease
from .store.resume import refuse_stored_id, resume_session
from .transcript import Transcript

if TYPE_CHECKING:
    import httpx2
    from opentelemetry.trace import Tracer

    from .approvals import Approvals
    from .delegation import Delegator
    from .guard.actions import PricedActions
    from .guard.budget import CacheBudget
    from .state import SessionState

__all__ = ["Agent", "RunResult", "Session", "SyncSession"]

_T = TypeVar("_T")
P = ParamSpec("P")


class Agent:
    """A frozen prefix, a model and settings: the factory of sessions.

    - `prefix`: the `FrozenPrefix` every session starts on (system prompt and tools).
    - `model`: a model id (`claude-*`, `gpt-*`, `o*`, `deepseek-*`, a price-table alias) or
      `api:model` (`anthropic:`, `openai:`, `openai-responses:`, `openai-compat:`); the
      provider comes from it. Unknown ids raise UnknownModelError here.
    - `api_key`: the key (None: ANTHROPIC_API_KEY, OPENAI_API_KEY, DEEPSEEK_API_KEY, or
      PREFIXLOCK_API_KEY with a custom `base_url`; missing: MissingKeyError).
    - `base_url`: where requests go (None: the provider's API; the emulator's `base_url`).
    - `clock`: the time sessions read (`SystemClock`; `ManualClock` in tests).
    - `prices`: the price table (the built-in dated one, or PREFIXLOCK_PRICES).
    - `settings`: `Settings` (TTLs, limits, effort, compaction...).
    - `http_client`: the SDKs' own `httpx2.AsyncClient` (a proxy, custom TLS, TestModel's).
    - `sleep`: what retries wait with (tests pass one that records instead of sleeping).
    - `store`: a `SessionStore` or its path: turns are recorded and `resume(id)` works.
    - `budget`: a `CacheBudget` (the cache-miss budget enforced before each request).
    - `delegator`: what runs `delegate` (default: prefixlock.agents' subagents, if installed).
    - `fallback`: models to move to, in order, when a request fails after its retries (each a
      priced model switch: `ModelFallback`).
    - `tracer`: an OpenTelemetry `Tracer` for spans per turn, request and tool (extra `otel`).
    - `policy`: the `CachePolicy` that decides idle gaps, switches and tool changes (default:
      `CachePolicy()`, whose turn end writes the conversation at 1h when this user's gaps say
      it pays; docs/savings.md).
    """

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
        policy: CachePolicy | None = None,
    ) -> None:
        if not isinstance(prefix, FrozenPrefix):  # Agent("You are...") fails here, not at send
            raise PrefixError(
                f"the prefix must be a FrozenPrefix, got {type(prefix).__name__}: build it with "
                "FrozenPrefix(system=..., tools=[...])",
                where="prefix",
            )
        self.prefix = prefix
        self.prices: PriceTable = prices or PriceTable.default()
        self.settings: Settings = settings or Settings()
        self.clock: Clock = clock or SystemClock()
        self.base_url = base_url
        self.route: Route = resolve_route(model, base_url, self.prices)  # unknown ids fail here
        self.model: str = self.route.model
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
        # What every session does at cache-costly events unless told otherwise.
        self.policy: CachePolicy = policy or CachePolicy()
        self.key_shards: KeyShards = KeyShards()  # OpenAI cache keys of this agent's sessions
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
        """A blocking session for scripts (`with agent.sync_session() as s`): the same priced
        actions and approvals as the async one."""
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
    """`agent.run_sync(task)`'s answer: the final text, the session's ledger, the turn's
    events and the (closed) session."""

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


class SyncSession(PricedActionMethods, ApprovalMethods):
    """A session for scripts: the same loop, run to completion on a private event loop.

    It shares its session's state and collaborators, so what needs no request is the session's
    own code: the priced actions (`quote_switch`, `switch_model`, ... `quote_compaction`:
    `prefixlock.guard.actions.PricedActionMethods`), approvals (`require_approval`, `approve`,
    `deny`, `pending_approvals`) and the state's `id`, `ledger`, `transcript` and `last_text`.
    The methods that send requests (`ask`, `run`, `delegate`, `compact`, `keepalive_tick`)
    are `Session`'s, run to completion."""

    id: StateField[str] = StateField[str]("The session's id (the store's key: `agent.resume(id)`).")
    ledger: StateField[Ledger] = StateField[Ledger](
        "Usage and cost of every request, and of the subagents."
    )
    transcript: StateField[Transcript] = StateField[Transcript]("The conversation so far.")
    last_text: StateField[str] = StateField[str]("The text of the last reply.")

    def __init__(self, session: Session) -> None:
        self.session = session
        self.state: SessionState = session.state
        self.actions: PricedActions = session.actions
        self.approvals: Approvals = session.approvals
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
        """Close the session (its client, its store lease) and the event loop it runs on."""
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

    # Each method below is `Session`'s, run to completion on this session's loop; written out
    # (not wrapped) so that type checkers and editors see their signatures.
    def ask(self, text: str | Sequence[UserPart], *, volatile: Sequence[str] = ()) -> str:
        """`Session.ask`, run to completion: send a turn, drop the events, return the text."""
        return self._run(self.session.ask(text, volatile=volatile))

    def run(
        self,
        text: str | Sequence[UserPart],
        output_type: type[OutputT],
        *,
        deps: object = None,
        volatile: Sequence[str] = (),
        output_retries: int = DEFAULT_RETRIES,
    ) -> OutputT:
        """`Session.run`, run to completion: the turn's validated `output_type` object."""
        return self._run(
            self.session.run(
                text, output_type, deps=deps, volatile=volatile, output_retries=output_retries
            )
        )

    def delegate(
        self, task: str, agent: str = "explorer", model: str | None = None
    ) -> DelegationResult:
        """`Session.delegate`, run to completion: `task` in an isolated subagent."""
        return self._run(self.session.delegate(task, agent, model))

    def compact(
        self,
        *,
        instruction: str = DEFAULT_INSTRUCTION,
        quote: Quote | None = None,
        policy: str | None = None,
        placement: SummaryPlacement | None = None,
    ) -> list[Event]:
        """`Session.compact`, run to completion: summarize, then move to the compacted
        prefix (`placement` None: the wire API's own, as `Session.compact`)."""
        return self._run(
            self.session.compact(
                instruction=instruction, quote=quote, policy=policy, placement=placement
            )
        )

    def keepalive_tick(self) -> list[Event]:
        """`Session.keepalive_tick`, run to completion: a ping if one is due and pays."""
        return self._run(self.session.keepalive_tick())
