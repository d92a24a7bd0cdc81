"""What a session is at a moment, and what it needs of the agent that made it.

`SessionState` is the one place a session's changing parts live: the prefix, the provider (and
so the model), the settings, the transcript, the ledger, the requests sent, the turn count, the
tool results still owed to the model, the compactions and the events waiting for the next send.
The session (`prefixlock.session.Session`) owns one and hands it to its collaborators (the guard
tracker, the store recorder, the keep-alive runner, the priced actions) when it makes them, so
they read and change it explicitly and none of them reaches back into the session.

`StateField` shows a field of the state on the object that holds it: `s.prefix` is
`s.state.prefix`, on `Session` and `SyncSession` alike, with no property written for each.

`SessionAgent` is what a session needs of its agent (`prefixlock.agent.Agent` is one), and so
what resume needs to rebuild a session from the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Never, Protocol, Self, TypeVar, overload

from .billing.ledger import Ledger
from .billing.prices import PriceTable
from .canonical import canonical_bytes, fingerprint
from .clock import Clock
from .events import Event
from .prefix import FrozenPrefix
from .providers import SDKProvider, SessionInfo
from .settings import Settings, settings_dict
from .transcript import Transcript
from .wire import WireRequest

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from .cache.keys import KeyShards
    from .delegation import Delegator
    from .guard.budget import CacheBudget
    from .guard.policy import CachePolicy
    from .store.database import SessionStore


class SessionAgent(Protocol):
    """What a session needs of the agent that made it: the prefix it starts on, prices,
    settings and clock, the cache-miss budget, the delegator, the store, and providers (a
    switch, a resumed session's stored route)."""

    @property
    def prefix(self) -> FrozenPrefix:
        """The prefix new sessions start on."""
        ...

    @property
    def prices(self) -> PriceTable:
        """The price table sessions are billed with."""
        ...

    @property
    def settings(self) -> Settings:
        """The settings sessions start with."""
        ...

    @property
    def clock(self) -> Clock:
        """The clock sessions read."""
        ...

    @property
    def base_url(self) -> str | None:
        """Where requests go (None: the provider's own API)."""
        ...

    @property
    def budget(self) -> CacheBudget | None:
        """The cache-miss budget sessions start with."""
        ...

    @property
    def delegator(self) -> Delegator | None:
        """What runs `delegate` (None: no subagents)."""
        ...

    @property
    def key_shards(self) -> KeyShards:
        """The OpenAI cache-key shards of the agent's sessions (prefixlock.cache.keys)."""
        ...

    @property
    def policy(self) -> CachePolicy:
        """What the session does at cache-costly events with no other setting (the end of a
        turn: prefixlock.guard.turn_end)."""
        ...

    @property
    def fallback(self) -> tuple[str, ...]:
        """Models to move to, in order, when the provider fails after its retries."""
        ...

    @property
    def tracer(self) -> Tracer | None:
        """OpenTelemetry tracer for the session's spans (None: off; prefixlock.telemetry)."""
        ...

    @property
    def api_key(self) -> str | None:
        """The key given to the agent (None: read from the environment); a subagent on the
        same provider authenticates with it."""
        ...

    def open_store(self) -> SessionStore | None:
        """The agent's session store, opened once (None: the agent has none)."""
        ...

    def provider(self, model: str | None = None, base_url: str | None = None) -> SDKProvider:
        """A provider for `model` (default: the agent's)."""
        ...


@dataclass(eq=False)
class SessionState:
    """A session's changing parts. Changed only by the session's loop and its collaborators."""

    id: str
    clock: Clock
    prices: PriceTable
    prefix: FrozenPrefix
    settings: Settings
    provider: SDKProvider
    info: SessionInfo = field(init=False)
    transcript: Transcript = field(default_factory=Transcript)
    ledger: Ledger = field(init=False)
    requests: list[WireRequest] = field(default_factory=list)  # the requests sent, in order
    # Requests sent but no longer in `requests` (Session.keep_requests): their records are in
    # the store. `sent` counts both.
    requests_dropped: int = 0
    turn: int = 0
    # Tool results not delivered yet (their request failed or hit a limit): sent in front of
    # the next user message.
    pending_results: list[dict[str, Any]] = field(default_factory=list)
    compactions: int = 0
    # Events for the caller that arose outside a turn's stream (a warning of a priced action,
    # an abandoned request's report): yielded before the next request.
    queued_events: list[Event] = field(default_factory=list)
    last_text: str = ""  # the text of the last reply

    def __post_init__(self) -> None:
        self.info = SessionInfo(self.id)
        self.ledger = Ledger(self.prices)

    @property
    def model(self) -> str:
        return self.provider.model

    @property
    def sent(self) -> int:
        """Requests sent so far, those `requests` no longer holds included."""
        return self.requests_dropped + len(self.requests)

    @property
    def previous_request(self) -> WireRequest | None:
        return self.requests[-1] if self.requests else None

    def take_queued(self) -> list[Event]:
        events, self.queued_events = self.queued_events, []
        return events

    def take_pending(self) -> list[dict[str, Any]]:
        pending, self.pending_results = self.pending_results, []
        return pending

    def fingerprint(self) -> str:
        """What a quote is valid for: requests sent, messages, route, prefix, settings and
        compactions. Any of them changing makes a quote stale."""
        data = canonical_bytes(
            [
                self.sent,
                len(self.transcript),
                self.provider.route.label,
                self.prefix.fingerprint,
                settings_dict(self.settings),
                self.compactions,
            ]
        )
        return fingerprint(data)


T = TypeVar("T")


class _HoldsState(Protocol):
    """What a `StateField` reads through: an object holding a `SessionState`."""

    @property
    def state(self) -> SessionState: ...


class StateField(Generic[T]):
    """A read-only attribute that is the holder's `state` field (or property) of the same
    name: `prefix = StateField[FrozenPrefix]("...")` in a class body makes `s.prefix` read
    `s.state.prefix`. `T` is that field's type (tests/core/test_core_exports.py checks it);
    assigning raises AttributeError, as a property without a setter does."""

    def __init__(self, doc: str | None = None) -> None:
        self.__doc__ = doc
        self.name: str = ""

    def __set_name__(self, owner: type, name: str) -> None:
        if name not in SessionState.__dataclass_fields__ and not hasattr(SessionState, name):
            raise TypeError(f"{owner.__name__}.{name}: SessionState has no {name!r}")
        self.name = name

    @overload
    def __get__(self, holder: None, owner: type) -> Self: ...
    @overload
    def __get__(self, holder: _HoldsState, owner: type) -> T: ...
    def __get__(self, holder: _HoldsState | None, owner: type) -> T | Self:
        if holder is None:
            return self
        value: T = getattr(holder.state, self.name)
        return value

    def __set__(self, holder: _HoldsState, value: Never) -> None:
        raise AttributeError(f"{type(holder).__name__}.{self.name} is read-only")


class WritableStateField(StateField[T]):
    """A `StateField` that may be assigned: `s.transcript = fork` sets `s.state.transcript`."""

    def __set__(self, holder: _HoldsState, value: T) -> None:
        setattr(holder.state, self.name, value)
