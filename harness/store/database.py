"""SessionStore: sessions, prefixes, every request's exact wire body and usage, in SQLite.

WAL mode, a schema version table, and one transaction per completed turn: a process killed in
the middle of a turn leaves the store as it was after the previous turn, never half a turn.
`load()` gives back the prefix, messages, model and settings a resumed session needs to send
the next request byte-identical to what it would have sent; `requests()` and the JSONL export
give back each body exactly. API keys are never written.

`SessionStore` is what callers open; it does the orchestration once: every public method holds
the store's lock and says a damaged file as one StoreError, and every write is one transaction
that first checks the session's lease. The work is done by the store's parts, each over the
connection it is given:
- `schema`: the tables, the schema version and migrations, opening (WAL, read-only);
- `errors`: `StoreError`, `UnknownSessionError`, damaged files and malformed rows said as one;
- `blobs` (content-addressed values; `mediablobs`: an image's base64 kept once) and `bodies`
  (a request body as a skeleton over blobs, each list a delta on the previous request's);
- `records`: the record types; `writes` and `reads`: sessions, requests, messages, subagent
  runs, forks;
- `leases`: `Lease`, `SessionBusyError`: one writer per session, heartbeats, takeover.
Here too: where the store lives (`default_path`) and the per-project files kept beside it
(`project_file`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Concatenate, ParamSpec, TypeVar, Unpack

from ..clock import Clock, SystemClock, pause
from . import bodies, leases, reads, schema, writes
from .errors import StoreError, corruption
from .heartbeat import Heartbeat
from .leases import Lease, SessionBusyError
from .records import LoadedSession, NewRequest, SessionRecord, StoredRequest, UsageRow

ENV_VAR = "PREFIXLOCK_STORE"

P = ParamSpec("P")
R = TypeVar("R")


def _locked(
    fn: Callable[Concatenate[SessionStore, P], R],
) -> Callable[Concatenate[SessionStore, P], R]:
    def wrapper(self: SessionStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock, corruption(self._where):
            return fn(self, *args, **kwargs)

    functools.update_wrapper(wrapper, fn)
    return wrapper


def default_path() -> Path:
    """PREFIXLOCK_STORE, else ~/.local/share/prefixlock/sessions.sqlite (XDG_DATA_HOME honoured)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "prefixlock" / "sessions.sqlite"


def project_file(store_path: Path | None, workspace: Path, kind: str, suffix: str) -> Path | None:
    """A per-project file kept beside the session store, never in the repository (the chat's
    input history, the MCP consent answers): `<store folder>/<kind>/<hash of workspace><suffix>`.
    None when there is no store (kept in memory only)."""
    if store_path is None:
        return None
    digest = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]
    return store_path.parent / kind / f"{digest}{suffix}"


def _renewer(store: SessionStore) -> Callable[[], int]:
    """The heartbeat timer's call: weak, so a store dropped without close() is not kept open
    by its timer (which then stops)."""
    ref = weakref.ref(store)

    def renew() -> int:
        alive = ref()
        if alive is None:
            raise ReferenceError("the store is gone")  # the timer stops
        return alive.heartbeat()

    return renew


class SessionStore:
    """A SQLite session store. `read_only=True` never creates or changes the file.

    `clock` times the session leases (taken, heartbeats, bounded waits); an Agent given the
    store as a path opens it on its own clock."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        read_only: bool = False,
        clock: Clock | None = None,
    ):
        self.path: Path = Path(path).expanduser() if path is not None else default_path()
        self.read_only = read_only
        self.clock: Clock = clock if clock is not None else SystemClock()
        # Renews the held leases' heartbeats while any is held (None: none held yet).
        self.heartbeat_timer: Heartbeat | None = None
        # The blob-hash lists of the requests written or read lately (bodies.RefsCache).
        self._refs_cache = bodies.RefsCache()
        self._held: dict[str, str] = {}  # session id -> the token of the lease this store holds
        self._reserved: set[str] = set()  # held leases the next acquire takes as they are
        # One connection, used from whichever thread the session runs on (a TUI worker, an
        # event loop): every public method holds this lock.
        self._lock = threading.RLock()
        self._where = str(self.path)
        self._db = schema.connect(self.path, read_only=read_only)

    @_locked
    def close(self) -> None:
        """Close the database."""
        if self.heartbeat_timer is not None:
            self.heartbeat_timer.stop()
        for session_id in list(self._held):  # a store closed under an open session
            # If it cannot be released, the process ends soon and its lease is taken over.
            with contextlib.suppress(sqlite3.Error, StoreError):
                self.release(session_id)
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        if self.read_only:
            raise StoreError("the store is open read-only", where=self._where)
        try:
            with schema.transaction(self._db) as db:
                yield db
        except BaseException:
            self._refs_cache.clear()  # it may hold rows that were rolled back
            raise

    def _writable(self, db: sqlite3.Connection, session_id: str) -> tuple[int, int]:
        """Inside a write's transaction: the session's epoch and turns, once it is known to
        exist and to be this store's to write (its lease, renewed on the way)."""
        found = reads.epoch_and_turns(db, session_id, self._where)
        leases.check(db, self._held, session_id, self.clock.now(), self._where)
        return found

    def _body(self, session_id: str, seq: int, skeleton: str) -> dict[str, Any]:
        """A stored request's exact body (the reads' BodyReader)."""
        return bodies.body(self._db, self._refs_cache, session_id, seq, skeleton, self._where)

    # -- writing ---------------------------------------------------------------------------------

    @_locked
    def create_session(self, session_id: str, **new: Unpack[writes.NewSession]) -> None:
        """Register a session (idempotent: an existing id is left as it is): its model, api,
        provider, prefix and its fingerprint, creation time, and optional settings and meta."""
        with self._tx() as db:
            writes.create_session(db, session_id, **new)

    @_locked
    def record_turn(
        self,
        session_id: str,
        *,
        requests: Sequence[NewRequest],
        messages: Sequence[Mapping[str, Any]],
        first_index: int,
        model: str,
        time: float,
        subagents: Sequence[Mapping[str, Any]] = (),
    ) -> int:
        """Write one completed turn in ONE transaction: its requests and new messages.

        `messages` are the messages the turn appended (Message.to_dict()), starting at transcript
        index `first_index`; `subagents` the subagent runs it charged to the session
        (DelegationResult.to_dict()). Returns the turn number.
        """
        with self._tx() as db:
            epoch, turns = self._writable(db, session_id)
            turn = turns + 1
            writes.record_turn(
                db,
                self._refs_cache,
                session_id,
                epoch=epoch,
                turn=turn,
                requests=requests,
                messages=messages,
                first_index=first_index,
                subagents=subagents,
                model=model,
                time=time,
            )
        return turn

    @_locked
    def record_request(self, session_id: str, request: NewRequest) -> int:
        """Write one request outside a turn (a keep-alive ping) in its own transaction."""
        with self._tx() as db:
            epoch, turns = self._writable(db, session_id)
            return writes.record_request(
                db, self._refs_cache, session_id, epoch=epoch, turn=turns, request=request
            )

    @_locked
    def set_model(self, session_id: str, model: str, time: float, route: str | None = None) -> None:
        """The session moved to another model (`route`: its provider-qualified id)."""
        with self._tx() as db:
            self._writable(db, session_id)
            writes.set_model(db, session_id, model, time, route)

    @_locked
    def new_epoch(
        self,
        session_id: str,
        *,
        prefix: Mapping[str, Any],
        prefix_fingerprint: str,
        messages: Sequence[Mapping[str, Any]],
        model: str,
        time: float,
        requests: Sequence[NewRequest] = (),
        subagents: Sequence[Mapping[str, Any]] = (),
    ) -> int:
        """Move a session to a new prefix and transcript (compaction, tool change), atomically.

        `requests` (the compaction's summary request) and `subagents` not yet written are
        recorded in the same transaction.
        """
        with self._tx() as db:
            epoch, turns = self._writable(db, session_id)
            return writes.new_epoch(
                db,
                self._refs_cache,
                session_id,
                epoch=epoch,
                turns=turns,
                prefix=prefix,
                prefix_fingerprint=prefix_fingerprint,
                messages=messages,
                model=model,
                time=time,
                requests=requests,
                subagents=subagents,
            )

    @_locked
    def fork(self, session_id: str, new_id: str, *, time: float) -> None:
        """Copy stored session `session_id` under `new_id`, history and all, in one
        transaction: the fork continues from the same last completed turn, and neither is
        written by the other's process."""
        with self._tx() as db:
            reads.epoch_and_turns(db, session_id, self._where)  # it exists
            writes.fork(db, session_id, new_id, time, self._where)

    # -- ownership (prefixlock.store.leases) ---------------------------------------------------

    @_locked
    def lease(self, session_id: str) -> Lease | None:
        """The live lease on `session_id` (None: nobody writes it now)."""
        return leases.live(self._db, session_id, self.clock.now())

    def acquire(
        self,
        session_id: str,
        *,
        wait: float = 0.0,
        on_wait: Callable[[Lease | None], object] | None = None,
        reserve: bool = False,
    ) -> Lease:
        """Take the lease on `session_id` for this store (this process). A live holder (another
        process, or another session of this one) raises SessionBusyError, after waiting up to
        `wait` seconds of the store's clock for it to close; `on_wait(holder)` is called once
        when the wait starts (to say so). The store's lock is not held while waiting.
        `reserve=True`: the lease is held for the session that resumes it next on this store
        (its own acquire keeps it), so a command that waited keeps its place."""
        deadline = self.clock.now() + max(0.0, wait)
        told = False
        while True:
            try:
                lease = self._try_acquire(session_id)
                if reserve:
                    with self._lock:
                        self._reserved.add(session_id)
                return lease
            except SessionBusyError as busy:
                left = deadline - self.clock.now()
                if left <= 0:
                    if wait > 0:
                        raise SessionBusyError(
                            session_id, busy.holder, self._where, waited=wait
                        ) from None
                    raise
                if on_wait is not None and not told:
                    told = True
                    on_wait(busy.holder)
            pause(self.clock, min(leases.LEASE_POLL_S, left))

    @_locked
    def _try_acquire(self, session_id: str) -> Lease:
        with self._tx() as db:
            # A lease taken ahead for the one resume that follows (`acquire(reserve=True)`).
            mine = self._held.get(session_id) if session_id in self._reserved else None
            lease = leases.take(db, session_id, self.clock.now(), self._where, mine)
        self._reserved.discard(session_id)
        self._held[session_id] = lease.token
        if self.heartbeat_timer is None or not self.heartbeat_timer.running:
            self.heartbeat_timer = Heartbeat(_renewer(self), self.clock)
            self.heartbeat_timer.start()
        return lease

    @_locked
    def release(self, session_id: str) -> None:
        """Give back this store's lease on `session_id` (nothing if it holds none)."""
        token = self._held.pop(session_id, None)
        self._reserved.discard(session_id)
        self._refs_cache.forget(session_id)  # its next write, if any, reads the rows back
        if not self._held and self.heartbeat_timer is not None:
            self.heartbeat_timer.stop()
        if token is None or self.read_only:
            return
        with self._tx() as db:
            leases.give_back(db, session_id, token)

    @_locked
    def heartbeat(self) -> int:
        """Renew the heartbeat of every lease this store holds (the timer calls this; each
        write renews its session's too). A lease found taken over (this process was silent
        past LEASE_STALE_S) is dropped, not taken back: the session's next write raises
        SessionBusyError. Returns how many were renewed."""
        if not self._held:
            return 0
        now = self.clock.now()
        with self._tx() as db:
            return leases.renew(db, self._held, now)

    # -- reading ---------------------------------------------------------------------------------

    @_locked
    def sessions(self) -> list[SessionRecord]:
        """Every session, most recently updated first."""
        return reads.sessions(self._db, self._where)

    @_locked
    def session(self, session_id: str) -> SessionRecord:
        """The stored session `session_id` (UnknownSessionError when there is none)."""
        return reads.session(self._db, session_id, self._where)

    def requests(self, session_id: str) -> Iterator[StoredRequest]:
        """Every request of a session in order, bodies rebuilt exactly. The lock is held per
        request, not across the caller's loop."""
        with self._lock, corruption(self._where):
            reads.session(self._db, session_id, self._where)
            rows = reads.request_rows(self._db, session_id)
        for r in rows:
            with self._lock, corruption(self._where):
                req = reads.request(r, self._body, self._where)
            yield req

    @_locked
    def usage_rows(self, session_id: str) -> list[UsageRow]:
        """Every request's usage, cost and cause in order, without rebuilding bodies (fast: a
        500-turn session's rows come back in milliseconds)."""
        return reads.usage_rows(self._db, session_id, self._where)

    @_locked
    def subagents(self, session_id: str) -> list[dict[str, Any]]:
        """The subagent runs charged to the session, in order (DelegationResult.to_dict() plus
        the `turn` that produced each); none in a store of schema version 1."""
        return reads.subagents(self._db, session_id, self._where)

    @_locked
    def load(self, session_id: str) -> LoadedSession:
        """The session's current prefix, transcript and last request, for resuming it."""
        return reads.load(self._db, session_id, self._body, self._where)

    def export_jsonl(self, session_id: str, out: IO[str]) -> int:
        """Write the session's requests as JSONL trace lines; returns the number of lines."""
        n = 0
        for r in self.requests(session_id):
            out.write(json.dumps(r.trace(), ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
        return n

    @_locked
    def stats(self) -> dict[str, int]:
        """Row counts and blob bytes (to check that storage grows linearly)."""
        return reads.stats(self._db)
