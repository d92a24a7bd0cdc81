"""What a session writes to its store, and when.

A session's `Recorder` is told what happened (a request ledgered, a turn done or stopped, a
ping, a model switch, a prefix move, a compaction, a resume) and writes it: a turn's requests,
its new messages and the subagent runs charged to it go in one transaction when the turn
completes (or stops after some of its requests succeeded), so a crash never leaves half a turn;
a ping is written at once; a move starts a new epoch. `StoreRecorder` writes to a
`SessionStore`; a session without a store gets `NullRecorder`, which writes nothing.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..billing.ledger import LedgerRow
from ..events import CacheBreak, StoreWriteFailed
from ..settings import settings_dict
from ..state import SessionState
from ..wire import WireRequest
from .database import SessionStore
from .errors import StoreWriteLost
from .records import NewRequest


class Recorder(Protocol):
    """What the session's loop, actions and keep-alive tell the store."""

    @property
    def store(self) -> SessionStore | None: ...

    def keep(self, request: WireRequest, row: LedgerRow, kind: str, brk: CacheBreak | None) -> None:
        """A request of the running turn (kind "turn" or "abandoned"), written with it."""
        ...

    def turn_done(self) -> None:
        """A turn completed: its requests, messages and subagent runs in one transaction."""
        ...

    def turn_stopped(self) -> None:
        """A turn stopped after some of its requests succeeded: they are written now."""
        ...

    def ping(self, request: WireRequest, row: LedgerRow) -> None:
        """A keep-alive ping, written at once."""
        ...

    def model_changed(self) -> None: ...

    def prefix_moved(self) -> None:
        """The session moved to another prefix (tools, prefix): a new epoch."""
        ...

    def compacted(self, summary: WireRequest, row: LedgerRow, brk: CacheBreak | None) -> None:
        """A compaction: its summary request and the compacted prefix and messages."""
        ...

    def resumed(self) -> None:
        """The session continues a stored one: what it holds now is stored already."""
        ...

    def release(self) -> None:
        """The session is closed: another process may write it now."""
        ...


class StoreRecorder:
    """Writes one session's turns, pings and moves to a SessionStore."""

    def __init__(self, store: SessionStore, state: SessionState) -> None:
        self.store = store
        self.state = state
        self._unstored: list[NewRequest] = []  # requests of the running turn
        self._stored_messages = 0
        self._stored_subagents = 0  # ledger.subagents.results already written
        self._created = False  # the session's row exists (or its creation is in the backlog)
        # Writes the store refused (a full disk): kept in order and tried again after each
        # turn, so what was billed is never dropped. `_failing`: the failure was said.
        self._backlog: list[Callable[[], object]] = []
        self._failing = False
        self._refusal = ""  # the store's last refusal, said if it still refuses at close

    def keep(self, request: WireRequest, row: LedgerRow, kind: str, brk: CacheBreak | None) -> None:
        self._unstored.append(self._new_request(request, row, kind, brk))

    def turn_done(self) -> None:
        self._ensure_session()
        s = self.state
        messages = s.transcript.messages[self._stored_messages :]
        self._write(
            self.store.record_turn,
            s.id,
            requests=self._unstored,
            messages=[m.to_dict() for m in messages],
            first_index=self._stored_messages,
            model=s.model,
            time=s.clock.now(),
            subagents=self._unstored_subagents(),
        )
        self._unstored = []
        self._stored_messages = len(s.transcript)
        self._stored_subagents = len(s.ledger.subagents)

    def turn_stopped(self) -> None:
        # Those requests were billed and the live transcript holds their messages: as after
        # a turn stopped at a limit (else the stored ledger would miss their cost and a
        # resumed session their messages).
        if self._unstored:
            self.turn_done()

    def ping(self, request: WireRequest, row: LedgerRow) -> None:
        self._ensure_session()
        self._write(
            self.store.record_request, self.state.id, self._new_request(request, row, "ping", None)
        )

    def model_changed(self) -> None:
        s = self.state
        if self._created:
            self._write(self.store.set_model, s.id, s.model, s.clock.now(), s.provider.route.label)

    def prefix_moved(self) -> None:
        s = self.state
        if self._created:
            self._write(
                self.store.new_epoch,
                s.id,
                prefix=s.prefix.to_dict(),
                prefix_fingerprint=s.prefix.fingerprint,
                messages=[m.to_dict() for m in s.transcript.messages[: self._stored_messages]],
                model=s.model,
                time=s.clock.now(),
            )

    def compacted(self, summary: WireRequest, row: LedgerRow, brk: CacheBreak | None) -> None:
        self._ensure_session()
        s = self.state
        self._write(
            self.store.new_epoch,
            s.id,
            prefix=s.prefix.to_dict(),
            prefix_fingerprint=s.prefix.fingerprint,
            messages=[m.to_dict() for m in s.transcript.messages],
            model=s.model,
            time=s.clock.now(),
            requests=[*self._unstored, self._new_request(summary, row, "summary", brk)],
            subagents=self._unstored_subagents(),
        )
        self._unstored = []
        self._stored_subagents = len(s.ledger.subagents)
        self._stored_messages = len(s.transcript)

    def resumed(self) -> None:
        self._created = True  # its lease was taken by the resume (prefixlock.store.resume)
        self._stored_messages = len(self.state.transcript)
        self._stored_subagents = len(self.state.ledger.subagents)

    def _new_request(
        self, request: WireRequest, row: LedgerRow, kind: str, brk: CacheBreak | None
    ) -> NewRequest:
        # The guard's cause (the ledger only counts misses against the previous request).
        return NewRequest(
            kind=kind,
            time=row.time,
            provider=self.state.provider.route.provider,
            api=request.api,
            model=request.model,
            path=request.path,
            body=request.body,
            usage=row.usage,
            cost=row.cost,
            cost_without_cache=row.cost_without_cache,
            cache_key=request.cache_key or _body_cache_key(request.body),
            predicted_read=row.predicted_read,
            cause=brk.cause if brk else row.cause,
            rebilled=brk.tokens_rebilled if brk else row.rebilled,
            detail=_detail(brk),
        )

    def _unstored_subagents(self) -> list[dict[str, Any]]:
        """Subagent runs charged since the last write (a turn's `delegate` calls, a code-path
        delegation): stored with the turn that produced them."""
        results = self.state.ledger.subagents.results
        return [r.to_dict() for r in results[self._stored_subagents :]]

    def _ensure_session(self) -> None:
        if self._created:
            return
        s = self.state
        self._write(
            self.store.create_session,
            s.id,
            model=s.model,
            api=s.provider.api,
            provider=s.provider.route.provider,
            prefix=s.prefix.to_dict(),
            prefix_fingerprint=s.prefix.fingerprint,
            created=s.clock.now(),
            settings=settings_dict(s.settings),
            meta={"route": s.provider.route.label},
        )
        self._write(self.store.acquire, s.id)  # written by this session alone from now on
        self._created = True

    def release(self) -> None:
        """Give the session back; StoreWriteLost if billed work still cannot be written (the
        lease is given back first)."""
        if self._backlog:
            self._flush()  # a last try
        if self._created:
            with contextlib.suppress(sqlite3.OperationalError):  # taken over once we exit
                self.store.release(self.state.id)
        if self._backlog:
            raise StoreWriteLost(len(self._backlog), self._refusal, str(self.store.path))

    def _write(self, fn: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        """Write now, after whatever the store refused before (kept in order)."""
        self._backlog.append(lambda: fn(*args, **kwargs))
        self._flush()

    def _flush(self) -> None:
        while self._backlog:
            try:
                self._backlog[0]()
            except sqlite3.OperationalError as exc:
                self._refusal = str(exc)
                # Disk full, a read-only file, a lock held too long: the provider billed it,
                # so it stays here and is tried again after the next turn. Said once.
                if not self._failing:
                    self._failing = True
                    n = len(self._backlog)
                    self.state.queued_events.append(
                        StoreWriteFailed(
                            f"session store {self.store.path}: write failed ({exc}); {n} "
                            "write(s) kept in memory, retried after the next turn",
                            n,
                        )
                    )
                return
            except BaseException:  # not retryable (the session was taken over): said once
                self._backlog.pop(0)
                raise
            self._backlog.pop(0)
        self._failing = False

    @property
    def pending_writes(self) -> int:
        """Writes the store refused, kept for the next try."""
        return len(self._backlog)


class NullRecorder:
    """The recorder of a session without a store: it writes nothing."""

    store: SessionStore | None = None

    def keep(self, request: WireRequest, row: LedgerRow, kind: str, brk: CacheBreak | None) -> None:
        pass

    def turn_done(self) -> None:
        pass

    def turn_stopped(self) -> None:
        pass

    def ping(self, request: WireRequest, row: LedgerRow) -> None:
        pass

    def model_changed(self) -> None:
        pass

    def prefix_moved(self) -> None:
        pass

    def compacted(self, summary: WireRequest, row: LedgerRow, brk: CacheBreak | None) -> None:
        pass

    def resumed(self) -> None:
        pass

    def release(self) -> None:
        pass


def recorder_for(store: SessionStore | None, state: SessionState) -> Recorder:
    """The recorder for a session: into `store`, or nowhere when there is none."""
    return NullRecorder() if store is None else StoreRecorder(store, state)


def _detail(brk: CacheBreak | None) -> str:
    """What the store keeps beside a miss's cause: the guard's detail, and the provider's own
    verdict when cache diagnostics gave one."""
    if brk is None:
        return ""
    if brk.provider_verdict:
        return f"{brk.detail}; provider: {brk.provider_verdict}"
    return brk.detail


def _body_cache_key(body: Mapping[str, Any]) -> str | None:
    key = body.get("prompt_cache_key")
    return str(key) if isinstance(key, str) else None
