"""SessionStore: sessions, prefixes, every request's exact wire body and usage, in SQLite.

WAL mode, a schema version table, and one transaction per completed turn: a process killed in
the middle of a turn leaves the store as it was after the previous turn, never half a turn.

Request bodies are stored deduplicated: each element of a body's big lists (messages, input
items, tools, system blocks) is a content-addressed blob, and a request row keeps the rest of the
body plus the blob hashes, so a long session's store grows with its new content, not with the
square of its length, while `request()` and the JSONL export give back the exact body. The
transcript is stored the same way, so `load()` rebuilds the prefix, messages, model and settings
a resumed session needs to send the next request byte-identical to what it would have sent.
API keys are never written: bodies carry none, and metadata is scrubbed of key-like fields.
A body is the request as the session built it: with `Settings(cache_diagnostics=True)` the
transport also sends the id of the previous response (prefixlock.providers.diagnostics), which
changes on every request and is no part of what the cache sees; it is not kept.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import socket
import sqlite3
import threading
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Concatenate, ParamSpec, TypeVar

from ..billing.usage import Usage
from ..canonical import canonical_bytes
from ..clock import Clock, SystemClock, pause
from ..errors import UserError
from . import mediablobs
from .heartbeat import Heartbeat

SCHEMA_VERSION = 3
# What each version adds over the one before (a store of an older version is migrated on open).
_MIGRATIONS: dict[int, str] = {
    2: """CREATE TABLE IF NOT EXISTS subagents (
    session_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
)""",
    # Which process writes a session now (see SessionStore.acquire).
    3: """CREATE TABLE IF NOT EXISTS leases (
    session_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    acquired REAL NOT NULL,
    heartbeat REAL NOT NULL
)""",
}
ENV_VAR = "PREFIXLOCK_STORE"
_LIST_KEYS = ("messages", "input", "tools", "system")
_BLOB_BATCH = 500  # hashes a query asks for (SQLite allows 999 parameters in old builds)
# A resume after a compaction or prefix change teaches the guard what is cached from the
# requests before it: those within the longest cache TTL of any provider (OpenAI's 24-hour
# retention), and no more than a resume can rebuild quickly.
EARLIER_HORIZON_S = 24 * 3600.0
EARLIER_MAX = 200
# Field names that hold credentials (matched whole, case-insensitively, with - and _ alike).
# A lease held by a process on another host is known to be alive only by its heartbeat (each
# write renews it, and a timer while it is held: heartbeat.LEASE_RENEW_S): one silent this long
# is taken over. On this host the holder's pid is asked.
LEASE_STALE_S = 900.0
LEASE_POLL_S = 0.5  # how often a bounded wait (`acquire(wait=)`) looks again
_SECRET_KEYS = frozenset(
    {"api_key", "apikey", "x_api_key", "authorization", "access_token", "secret", "password"}
)


P = ParamSpec("P")
R = TypeVar("R")


def _locked(
    fn: Callable[Concatenate[SessionStore, P], R],
) -> Callable[Concatenate[SessionStore, P], R]:
    def wrapper(self: SessionStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock, self._corruption():
            return fn(self, *args, **kwargs)

    functools.update_wrapper(wrapper, fn)
    return wrapper


class StoreError(UserError):
    """A store that cannot be used: newer schema, not a database, unknown session."""


class UnknownSessionError(StoreError):
    """No session with that id in the store."""


@dataclass(frozen=True)
class Lease:
    """Who writes a session now: a process (pid on host) and the session's own token."""

    session_id: str
    token: str
    pid: int
    host: str
    acquired: float
    heartbeat: float

    def describe(self) -> str:
        where = "this process" if self.is_mine() else f"pid {self.pid}"
        if self.host != socket.gethostname():
            where += f" on {self.host}"
        return where

    def is_mine(self) -> bool:
        return self.pid == os.getpid() and self.host == socket.gethostname()

    def alive(self, now: float) -> bool:
        """Whether the holder may still write: its process runs (this host), or it wrote
        within LEASE_STALE_S (another host, whose processes cannot be asked)."""
        if self.host != socket.gethostname():
            return now - self.heartbeat < LEASE_STALE_S
        return _pid_alive(self.pid)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    except OSError:
        return False
    try:  # a killed process not yet reaped by its parent (a zombie) writes nothing more
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class SessionBusyError(StoreError):
    """The session is open for writing elsewhere (another process, or another session of
    this one): fork it under a new id, or wait until it is closed."""

    def __init__(
        self, session_id: str, holder: Lease | None, where: str, *, waited: float = 0.0
    ) -> None:
        self.session_id = session_id
        self.holder = holder
        self.waited = waited
        who = holder.describe() if holder is not None else "another process"
        after = f" (still, after waiting {waited:g} s)" if waited > 0 else ""
        super().__init__(
            f"session {session_id!r} is open in {who}{after}: fork it under a new id "
            f"(--fork, agent.resume(id, fork=True)) or wait until it closes "
            f"(--wait SECONDS, agent.resume(id, wait=SECONDS))",
            where=where,
        )


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


# What decoding a hand-edited or half-written row raises: bad JSON or UTF-8 (ValueError), a
# field of the wrong type or missing (TypeError, KeyError), a cost that is not a number
# (decimal.InvalidOperation is an ArithmeticError).
_ROW_FAULTS = (ValueError, TypeError, KeyError, AttributeError, ArithmeticError)


@contextlib.contextmanager
def _row(path: Path, what: str) -> Iterator[None]:
    """Turn a malformed row into one StoreError naming the store and the row, so `/resume`,
    `chat --resume`, `sessions show` and `export` say one line instead of a traceback."""
    try:
        yield
    except StoreError:
        raise
    except _ROW_FAULTS as exc:
        raise StoreError(
            f"malformed {what}: {type(exc).__name__}: {exc}", where=str(path)
        ) from None


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


def _scrub(value: Any) -> Any:
    """Drop key-like fields from metadata, however deep (API keys never reach the store)."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if str(k).lower().replace("-", "_") in _SECRET_KEYS:
                continue
            out[str(k)] = _scrub(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    return value


def _json(value: Any) -> str:
    return canonical_bytes(value).decode("utf-8")


def _dec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


@dataclass(frozen=True)
class StoredRequest:
    """One request as the store keeps it (the exact body, rebuilt from its blobs)."""

    session_id: str
    seq: int
    turn: int
    kind: str  # turn | ping | summary | abandoned
    time: float
    provider: str
    api: str
    model: str
    path: str
    body: dict[str, Any]
    usage: Usage
    raw_usage: dict[str, Any]
    cost: Decimal | None
    cost_without_cache: Decimal | None
    cache_key: str | None
    predicted_read: int | None = None
    cause: str | None = None
    rebilled: int = 0
    detail: str = ""

    def trace(self) -> dict[str, Any]:
        """This request as one line of the JSONL trace format (docs/design.md#jsonl-traces)."""
        return {
            "session_id": self.session_id,
            "seq": self.seq,
            "time": self.time,
            "provider": self.provider,
            "api": self.api,
            "model": self.model,
            "path": self.path,
            "body": self.body,
            "usage": self.usage.to_dict(),
            "raw_usage": self.raw_usage,
            "cost": None if self.cost is None else str(self.cost),
            "cache_key": self.cache_key,
        }


@dataclass(frozen=True)
class UsageRow:
    """One request's figures without its body: what a resumed ledger is rebuilt from."""

    seq: int
    turn: int
    kind: str  # turn | ping | summary | abandoned
    time: float
    model: str
    api: str
    usage: Usage
    cost: Decimal | None
    cost_without_cache: Decimal | None
    predicted_read: int | None
    cause: str | None
    rebilled: int


@dataclass(frozen=True)
class NewRequest:
    """A request to record: what was sent and what came back."""

    kind: str
    time: float
    provider: str
    api: str
    model: str
    path: str
    body: Mapping[str, Any]
    usage: Usage
    cost: Decimal | None = None
    cost_without_cache: Decimal | None = None
    cache_key: str | None = None
    predicted_read: int | None = None
    cause: str | None = None
    rebilled: int = 0
    detail: str = ""


@dataclass(frozen=True)
class SessionRecord:
    """A session's row plus summary figures."""

    id: str
    created: float
    updated: float
    model: str
    api: str
    provider: str
    prefix_fingerprint: str
    epoch: int
    turns: int
    requests: int
    cost: Decimal
    cache_read: int
    input_total: int
    settings: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def hit_rate(self) -> float:
        return self.cache_read / self.input_total if self.input_total else 0.0


@dataclass(frozen=True)
class LoadedSession:
    """Everything needed to resume: the current prefix, transcript, model and settings."""

    record: SessionRecord
    prefix: dict[str, Any]  # FrozenPrefix.to_dict()
    messages: list[dict[str, Any]]  # Message.to_dict() of the current epoch, in order
    last_request: StoredRequest | None  # the last request of the current epoch
    # The turn that wrote each message of `messages` (a turn without requests, such as a
    # code-path delegation, adds messages after the last request).
    message_turns: list[int] = field(default_factory=list)
    # When the current epoch has sent nothing yet: the session's requests before it (pings
    # included) that may still hold cache entries, oldest first, ending with the last one
    # sent (a compaction's summary request, the last one before a tool or prefix change).
    earlier_requests: list[StoredRequest] = field(default_factory=list)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    model TEXT NOT NULL,
    api TEXT NOT NULL,
    provider TEXT NOT NULL,
    prefix_fp TEXT NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    settings TEXT NOT NULL DEFAULT '{}',
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS prefixes (
    fingerprint TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    blob TEXT NOT NULL,
    PRIMARY KEY (session_id, epoch, idx)
);
CREATE TABLE IF NOT EXISTS requests (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    kind TEXT NOT NULL,
    time REAL NOT NULL,
    provider TEXT NOT NULL,
    api TEXT NOT NULL,
    model TEXT NOT NULL,
    path TEXT NOT NULL,
    skeleton TEXT NOT NULL,
    usage TEXT NOT NULL,
    raw_usage TEXT NOT NULL,
    cost TEXT,
    cost_without_cache TEXT,
    cache_key TEXT,
    predicted_read INTEGER,
    cause TEXT,
    rebilled INTEGER NOT NULL DEFAULT 0,
    detail TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, seq)
);
"""
_SCHEMA += ";\n".join(_MIGRATIONS[v] for v in sorted(_MIGRATIONS)) + ";\n"


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
        self.path = Path(path).expanduser() if path is not None else default_path()
        self.read_only = read_only
        self.clock: Clock = clock if clock is not None else SystemClock()
        # Renews the held leases' heartbeats while any is held (None: none held yet).
        self.heartbeat_timer: Heartbeat | None = None
        self._refs_cache: dict[tuple[str, int], dict[str, list[str]]] = {}
        self._held: dict[str, str] = {}  # session id -> the token of the lease this store holds
        # One connection, used from whichever thread the session runs on (a TUI worker, an
        # event loop): every public method holds this lock.
        self._lock = threading.RLock()
        where = str(self.path)
        if read_only and not self.path.exists():
            raise StoreError("no session store here", where=where)
        if self.path.is_dir():
            raise StoreError("is a directory; name the store file", where=where)
        if not read_only:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                raise StoreError(
                    "cannot create the store's folder: a file is in the way", where=where
                ) from None
            except OSError as exc:
                raise StoreError(
                    f"cannot create the store's folder: {exc.strerror or exc}", where=where
                ) from None
        try:
            if self.path.exists():
                # Check the file with a connection that can write nothing, not even SQLite's
                # -wal/-shm side files: a newer or broken store must stay exactly as it is.
                probe = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True
                )
                try:
                    self._version(probe)
                finally:
                    probe.close()
            if read_only:
                self._db = self._connect_read_only()
            else:
                self._db = sqlite3.connect(
                    str(self.path), isolation_level=None, check_same_thread=False
                )
                self._open()
        except sqlite3.OperationalError as exc:
            db = getattr(self, "_db", None)
            if db is not None:
                db.close()
            raise StoreError(
                f"cannot open the session store ({exc}); a full disk, or a read-only file or "
                "folder? "
                "`prefixlock sessions` can still read it. The file was left untouched",
                where=where,
            ) from None
        except sqlite3.DatabaseError as exc:
            db = getattr(self, "_db", None)
            if db is not None:
                db.close()
            raise StoreError(
                f"not a readable prefixlock session store ({exc}); the file was left untouched",
                where=where,
            ) from None

    def _connect_read_only(self) -> sqlite3.Connection:
        """A connection that writes nothing. A WAL store needs its -shm file even to read;
        on a read-only filesystem (a mounted backup) SQLite cannot create it and `mode=ro`
        fails with "unable to open database file". Without a -wal file the main file is the
        whole store, so it is opened `immutable` there (nobody can change it meanwhile)."""
        uri = self.path.resolve().as_uri()
        db = sqlite3.connect(
            f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
        try:
            self._db = db
            self._open()
            return db
        except sqlite3.OperationalError:
            db.close()
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise
        db = sqlite3.connect(
            f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False
        )
        self._db = db
        self._open()
        return db

    def _version(self, db: sqlite3.Connection) -> int | None:
        """The store's schema version (None: an empty file); refuses newer and foreign files."""
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        version: int | None = None
        if "schema_version" in tables:
            row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = None if row is None or row[0] is None else int(row[0])
        elif tables:
            raise StoreError(
                "this SQLite file is not a prefixlock session store (no schema_version table); "
                "it was left untouched",
                where=str(self.path),
            )
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(
                f"written by a newer prefixlock (schema version {version}, this one reads up to "
                f"{SCHEMA_VERSION}); upgrade prefixlock. The store was left untouched",
                where=str(self.path),
            )
        return version

    def _open(self) -> None:
        db = self._db
        version = self._version(db)
        if self.read_only:
            if version is None:
                raise StoreError("empty file, not a session store", where=str(self.path))
            return
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=5000")
        if version is None:
            with self._tx():
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                db.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))
        elif version < SCHEMA_VERSION:
            # An older store: add what the newer versions bring, all in one transaction (a
            # crash mid-migration leaves the old version as it was).
            with self._tx():
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    db.execute(_MIGRATIONS[v])
                db.execute("DELETE FROM schema_version")
                db.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))

    @_locked
    def close(self) -> None:
        if self.heartbeat_timer is not None:
            self.heartbeat_timer.stop()
        for session_id in list(self._held):  # a store closed under an open session
            # If it cannot be released, the process ends soon and its lease is taken over.
            with contextlib.suppress(sqlite3.Error, StoreError):
                self.release(session_id)
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    @contextlib.contextmanager
    def _corruption(self) -> Iterator[None]:
        """A damaged file (a page that does not parse) is found only when a query reads that
        page: said as one line naming the file and what to do, not as sqlite3.DatabaseError."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, (sqlite3.OperationalError, sqlite3.IntegrityError)):
                raise  # a full disk, a lock: not damage (the recorder keeps and retries)
            raise StoreError(
                f"the store file is corrupted ({exc}): move it aside (prefixlock starts a new "
                "one there) and restore a backup, or recover what is readable with "
                "`sqlite3 FILE .recover`",
                where=str(self.path),
            ) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:  # a damaged stored value
            raise StoreError(
                f"the store file is corrupted (a stored value does not decode: {exc}): move it "
                "aside and restore a backup, or recover what is readable with "
                "`sqlite3 FILE .recover`",
                where=str(self.path),
            ) from None

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ----------------------------------------------------------------------------

    class _Tx:
        def __init__(self, store: SessionStore) -> None:
            self.store = store
            self.db = store._db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: object, *rest: object) -> None:
            if exc_type is not None:
                self.db.execute("ROLLBACK")
                self.store._refs_cache.clear()  # it may hold rows that were rolled back
            else:
                self.db.execute("COMMIT")

    def _tx(self) -> SessionStore._Tx:
        if self.read_only:
            raise StoreError("the store is open read-only", where=str(self.path))
        return SessionStore._Tx(self)

    # -- blobs -----------------------------------------------------------------------------------

    def _put_blob(self, db: sqlite3.Connection, value: Any) -> str:
        data = canonical_bytes(value)
        if mediablobs.may_hold_media(data):
            # An image's or a document's base64 goes to a blob of its own, once for every row
            # that holds it (prefixlock.store.mediablobs).
            def put(h: str, payload: str) -> None:
                db.execute(
                    "INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)",
                    (h, payload.encode("utf-8")),
                )

            data = canonical_bytes(mediablobs.extern(value, put))
        h = hashlib.sha256(data).hexdigest()
        db.execute("INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)", (h, data))
        return h

    def _media(self, h: str) -> str:
        row = self._db.execute("SELECT data FROM blobs WHERE hash=?", (h,)).fetchone()
        if row is None:
            raise StoreError(f"missing media blob {h[:12]}", where=str(self.path))
        return bytes(row[0]).decode("utf-8")

    def _blobs(self, hashes: Sequence[str]) -> list[Any]:
        """The values of content blobs `hashes`, in order; a few queries for any number (a
        long session's resume reads a thousand at once)."""
        data: dict[str, bytes] = {}
        wanted = list(dict.fromkeys(hashes))
        for i in range(0, len(wanted), _BLOB_BATCH):
            chunk = wanted[i : i + _BLOB_BATCH]
            marks = ",".join("?" * len(chunk))
            for h, d in self._db.execute(
                f"SELECT hash, data FROM blobs WHERE hash IN ({marks})", chunk
            ):
                data[h] = bytes(d)
        missing = next((h for h in wanted if h not in data), None)
        if missing is not None:
            raise StoreError(f"missing content blob {missing[:12]}", where=str(self.path))
        # Decoded once per place, not per hash: a blob twice in a list (the same short answer
        # twice) must come back as two values, not one shared object.
        with _row(self.path, "content blob"):
            return [self._decode_blob(data[h]) for h in hashes]

    def _decode_blob(self, data: bytes) -> Any:
        value = json.loads(data.decode("utf-8"))
        if mediablobs.may_hold_marks(data):
            value = mediablobs.restore(value, self._media)
        return value

    def _skeleton(
        self, db: sqlite3.Connection, session_id: str, seq: int, body: Mapping[str, Any]
    ) -> str:
        """The body with its big lists as blob hashes, each list as a delta on the previous
        request's (kept: a common prefix length; added: the rest), so rows stay small."""
        rest: dict[str, Any] = {}
        refs: dict[str, list[str]] = {}
        for k, v in body.items():
            if k in _LIST_KEYS and isinstance(v, (list, tuple)):
                refs[k] = [self._put_blob(db, item) for item in v]
            else:
                rest[k] = v
        prev = self._refs(session_id, seq - 1) if seq > 0 else {}
        encoded: dict[str, dict[str, Any]] = {}
        for k, hashes in refs.items():
            base = prev.get(k, [])
            keep = 0
            for a, b in zip(base, hashes, strict=False):
                if a != b:
                    break
                keep += 1
            encoded[k] = {"keep": keep, "add": hashes[keep:]} if keep else {"add": hashes}
        self._refs_cache[(session_id, seq)] = refs
        return _json({"rest": rest, "lists": encoded})

    def _refs(self, session_id: str, seq: int) -> dict[str, list[str]]:
        """The full blob-hash lists of request `seq`, rebuilt from the deltas."""
        cached = self._refs_cache.get((session_id, seq))
        if cached is not None:
            return cached
        # Walk back to a request whose lists need no base (or one already rebuilt).
        # One query, read lazily newest first: a long session walks back hundreds of rows.
        chain: list[tuple[int, dict[str, Any]]] = []
        base: dict[str, list[str]] = {}
        rows = self._db.execute(
            "SELECT seq, skeleton FROM requests WHERE session_id=? AND seq<=? ORDER BY seq DESC",
            (session_id, seq),
        )
        expected = seq
        for s, skeleton in rows:
            hit = self._refs_cache.get((session_id, expected))
            if hit is not None:
                base = hit
                break
            if s != expected:  # a gap: nothing older can be a base
                break
            lists = json.loads(skeleton).get("lists", {})
            chain.append((s, lists))
            if all("keep" not in v for v in lists.values()):
                break
            expected -= 1
        else:
            hit = self._refs_cache.get((session_id, expected))
            if hit is not None:
                base = hit
        rows.close()
        for s, lists in reversed(chain):
            full = {
                k: base.get(k, [])[: v.get("keep", 0)] + list(v["add"]) for k, v in lists.items()
            }
            base = full
            self._refs_cache[(session_id, s)] = full
        if len(self._refs_cache) > 64:  # keep the newest few: requests are read in order
            for key in sorted(self._refs_cache)[:-8]:
                del self._refs_cache[key]
        return base

    def _body(self, session_id: str, seq: int, skeleton: str) -> dict[str, Any]:
        data = json.loads(skeleton)
        body: dict[str, Any] = dict(data["rest"])
        for k, hashes in self._refs(session_id, seq).items():
            body[k] = self._blobs(hashes)
        return body

    # -- writing ---------------------------------------------------------------------------------

    @_locked
    def create_session(
        self,
        session_id: str,
        *,
        model: str,
        api: str,
        provider: str,
        prefix: Mapping[str, Any],
        prefix_fingerprint: str,
        created: float,
        settings: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        """Register a session (idempotent: an existing id is left as it is)."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone():
                return
            db.execute(
                "INSERT OR IGNORE INTO prefixes(fingerprint, data) VALUES (?, ?)",
                (prefix_fingerprint, _json(prefix)),
            )
            db.execute(
                "INSERT INTO sessions(id, created, updated, model, api, provider, prefix_fp, "
                "settings, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    created,
                    created,
                    model,
                    api,
                    provider,
                    prefix_fingerprint,
                    _json(_scrub(settings or {})),
                    _json(_scrub(meta or {})),
                ),
            )

    def _insert_request(
        self, db: sqlite3.Connection, session_id: str, turn: int, epoch: int, r: NewRequest
    ) -> int:
        row = db.execute(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM requests WHERE session_id=?", (session_id,)
        ).fetchone()
        seq = int(row[0])
        db.execute(
            "INSERT INTO requests(session_id, seq, turn, epoch, kind, time, provider, api, model, "
            "path, skeleton, usage, raw_usage, cost, cost_without_cache, cache_key, "
            "predicted_read, cause, rebilled, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                seq,
                turn,
                epoch,
                r.kind,
                r.time,
                r.provider,
                r.api,
                r.model,
                r.path,
                self._skeleton(db, session_id, seq, r.body),  # exact: bodies carry no credentials
                _json(r.usage.to_dict()),
                _json(_scrub(dict(r.usage.raw))),
                None if r.cost is None else str(r.cost),
                None if r.cost_without_cache is None else str(r.cost_without_cache),
                r.cache_key,
                r.predicted_read,
                r.cause,
                r.rebilled,
                r.detail,
            ),
        )
        return seq

    def _insert_subagents(
        self,
        db: sqlite3.Connection,
        session_id: str,
        turn: int,
        subagents: Sequence[Mapping[str, Any]],
    ) -> None:
        if not subagents:
            return
        row = db.execute(
            "SELECT COALESCE(MAX(idx), -1) + 1 FROM subagents WHERE session_id=?", (session_id,)
        ).fetchone()
        for i, data in enumerate(subagents, start=int(row[0])):
            db.execute(
                "INSERT INTO subagents(session_id, idx, turn, data) VALUES (?, ?, ?, ?)",
                (session_id, i, turn, _json(_scrub(data))),
            )

    def _session_row(self, db: sqlite3.Connection, session_id: str) -> tuple[int, int]:
        row = db.execute("SELECT epoch, turns FROM sessions WHERE id=?", (session_id,)).fetchone()
        if row is None:
            raise UnknownSessionError(f"unknown session id {session_id!r}", where=str(self.path))
        return int(row[0]), int(row[1])

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
            epoch, turns = self._session_row(db, session_id)
            self._check_lease(db, session_id)
            turn = turns + 1
            for r in requests:
                self._insert_request(db, session_id, turn, epoch, r)
            self._insert_subagents(db, session_id, turn, subagents)
            for i, m in enumerate(messages):
                h = self._put_blob(db, m)
                db.execute(
                    "INSERT OR REPLACE INTO messages(session_id, epoch, idx, turn, blob) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (session_id, epoch, first_index + i, turn, h),
                )
            db.execute(
                "UPDATE sessions SET turns=?, updated=?, model=? WHERE id=?",
                (turn, time, model, session_id),
            )
        return turn

    @_locked
    def record_request(self, session_id: str, request: NewRequest) -> int:
        """Write one request outside a turn (a keep-alive ping) in its own transaction."""
        with self._tx() as db:
            epoch, turns = self._session_row(db, session_id)
            self._check_lease(db, session_id)
            seq = self._insert_request(db, session_id, turns, epoch, request)
            db.execute("UPDATE sessions SET updated=? WHERE id=?", (request.time, session_id))
        return seq

    @_locked
    def set_model(self, session_id: str, model: str, time: float, route: str | None = None) -> None:
        """The session moved to another model (`route`: its provider-qualified id)."""
        with self._tx() as db:
            self._session_row(db, session_id)
            self._check_lease(db, session_id)
            db.execute(
                "UPDATE sessions SET model=?, updated=? WHERE id=?", (model, time, session_id)
            )
            if route is not None:
                row = db.execute("SELECT meta FROM sessions WHERE id=?", (session_id,)).fetchone()
                meta = {**json.loads(row[0]), "route": route}
                db.execute("UPDATE sessions SET meta=? WHERE id=?", (_json(meta), session_id))

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
            epoch, turns = self._session_row(db, session_id)
            self._check_lease(db, session_id)
            for r in requests:
                self._insert_request(db, session_id, turns, epoch, r)
            self._insert_subagents(db, session_id, turns, subagents)
            epoch += 1
            db.execute(
                "INSERT OR IGNORE INTO prefixes(fingerprint, data) VALUES (?, ?)",
                (prefix_fingerprint, _json(prefix)),
            )
            for i, m in enumerate(messages):
                h = self._put_blob(db, m)
                db.execute(
                    "INSERT INTO messages(session_id, epoch, idx, turn, blob) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (session_id, epoch, i, turns, h),
                )
            db.execute(
                "UPDATE sessions SET epoch=?, prefix_fp=?, model=?, updated=? WHERE id=?",
                (epoch, prefix_fingerprint, model, time, session_id),
            )
        return epoch

    # -- ownership -------------------------------------------------------------------------------
    # A session is written by one process at a time. `acquire` takes its lease (refused while a
    # live holder has it), every write checks this store still holds it (and renews its
    # heartbeat) in the write's own transaction, and `release` gives it back. A crashed holder's
    # lease is taken over: on this host its pid no longer runs; on another, its heartbeat is
    # older than LEASE_STALE_S.

    def _lease_row(self, db: sqlite3.Connection, session_id: str) -> Lease | None:
        row = db.execute(
            "SELECT session_id, token, pid, host, acquired, heartbeat FROM leases "
            "WHERE session_id=?",
            (session_id,),
        ).fetchone()
        if row is None:
            return None
        return Lease(str(row[0]), str(row[1]), int(row[2]), str(row[3]), row[4], row[5])

    @_locked
    def lease(self, session_id: str) -> Lease | None:
        """The live lease on `session_id` (None: nobody writes it now)."""
        has = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='leases'"
        ).fetchone()
        if has is None:  # an old store opened read-only
            return None
        held = self._lease_row(self._db, session_id)
        return held if held is not None and held.alive(self.clock.now()) else None

    def acquire(
        self,
        session_id: str,
        *,
        wait: float = 0.0,
        on_wait: Callable[[Lease | None], object] | None = None,
    ) -> Lease:
        """Take the lease on `session_id` for this store (this process). A live holder (another
        process, or another session of this one) raises SessionBusyError, after waiting up to
        `wait` seconds of the store's clock for it to close; `on_wait(holder)` is called once
        when the wait starts (to say so). The store's lock is not held while waiting."""
        deadline = self.clock.now() + max(0.0, wait)
        told = False
        while True:
            try:
                return self._try_acquire(session_id)
            except SessionBusyError as busy:
                left = deadline - self.clock.now()
                if left <= 0:
                    if wait > 0:
                        raise SessionBusyError(
                            session_id, busy.holder, str(self.path), waited=wait
                        ) from None
                    raise
                if on_wait is not None and not told:
                    told = True
                    on_wait(busy.holder)
            pause(self.clock, min(LEASE_POLL_S, left))

    @_locked
    def _try_acquire(self, session_id: str) -> Lease:
        now = self.clock.now()
        with self._tx() as db:
            held = self._lease_row(db, session_id)
            if held is not None and held.alive(now):
                raise SessionBusyError(session_id, held, str(self.path))
            lease = Lease(session_id, uuid.uuid4().hex, os.getpid(), socket.gethostname(), now, now)
            db.execute(
                "INSERT OR REPLACE INTO leases(session_id, token, pid, host, acquired, heartbeat) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, lease.token, lease.pid, lease.host, now, now),
            )
        self._held[session_id] = lease.token
        if self.heartbeat_timer is None or not self.heartbeat_timer.running:
            self.heartbeat_timer = Heartbeat(_renewer(self), self.clock)
            self.heartbeat_timer.start()
        return lease

    @_locked
    def release(self, session_id: str) -> None:
        """Give back this store's lease on `session_id` (nothing if it holds none)."""
        token = self._held.pop(session_id, None)
        if not self._held and self.heartbeat_timer is not None:
            self.heartbeat_timer.stop()
        if token is None or self.read_only:
            return
        with self._tx() as db:
            db.execute("DELETE FROM leases WHERE session_id=? AND token=?", (session_id, token))

    @_locked
    def heartbeat(self) -> int:
        """Renew the heartbeat of every lease this store holds (the timer calls this; each
        write renews its session's too). A lease found taken over (this process was silent
        past LEASE_STALE_S) is dropped, not taken back: the session's next write raises
        SessionBusyError. Returns how many were renewed."""
        if not self._held:
            return 0
        now, renewed = self.clock.now(), 0
        with self._tx() as db:
            for session_id, token in list(self._held.items()):
                held = self._lease_row(db, session_id)
                if held is None or held.token != token:
                    self._held.pop(session_id, None)
                    continue
                db.execute(
                    "UPDATE leases SET heartbeat=? WHERE session_id=? AND token=?",
                    (now, session_id, token),
                )
                renewed += 1
        return renewed

    def _check_lease(self, db: sqlite3.Connection, session_id: str) -> None:
        """Inside a write's transaction: refuse it when another holder has the session (its
        writes and ours would interleave), and renew this store's heartbeat. A session nobody
        leased (a store used directly, without a Session) is written as before."""
        mine = self._held.get(session_id)
        held = self._lease_row(db, session_id)
        if held is None and mine is None:
            return
        if held is None or held.token != mine:
            self._held.pop(session_id, None)
            raise SessionBusyError(session_id, held, str(self.path))
        db.execute(
            "UPDATE leases SET heartbeat=? WHERE session_id=?", (self.clock.now(), session_id)
        )

    @_locked
    def fork(self, session_id: str, new_id: str, *, time: float) -> None:
        """Copy stored session `session_id` under `new_id`, history and all, in one
        transaction: the fork continues from the same last completed turn, and neither is
        written by the other's process."""
        with self._tx() as db:
            self._session_row(db, session_id)
            if db.execute("SELECT 1 FROM sessions WHERE id=?", (new_id,)).fetchone():
                raise StoreError(f"session {new_id!r} already exists", where=str(self.path))
            row = db.execute("SELECT meta FROM sessions WHERE id=?", (session_id,)).fetchone()
            meta = {**json.loads(row[0]), "forked_from": session_id}
            db.execute(
                "INSERT INTO sessions(id, created, updated, model, api, provider, prefix_fp, "
                "epoch, turns, settings, meta) SELECT ?, ?, ?, model, api, provider, prefix_fp, "
                "epoch, turns, settings, ? FROM sessions WHERE id=?",
                (new_id, time, time, _json(meta), session_id),
            )
            db.execute(
                "INSERT INTO messages(session_id, epoch, idx, turn, blob) "
                "SELECT ?, epoch, idx, turn, blob FROM messages WHERE session_id=?",
                (new_id, session_id),
            )
            cols = (
                "seq, turn, epoch, kind, time, provider, api, model, path, skeleton, usage, "
                "raw_usage, cost, cost_without_cache, cache_key, predicted_read, cause, "
                "rebilled, detail"
            )
            db.execute(
                f"INSERT INTO requests(session_id, {cols}) SELECT ?, {cols} FROM requests "
                "WHERE session_id=?",
                (new_id, session_id),
            )
            db.execute(
                "INSERT INTO subagents(session_id, idx, turn, data) "
                "SELECT ?, idx, turn, data FROM subagents WHERE session_id=?",
                (new_id, session_id),
            )

    # -- reading ---------------------------------------------------------------------------------

    def _record(self, row: Sequence[Any]) -> SessionRecord:
        with _row(self.path, f"session row {str(row[0])!r}"):
            return self._record_unchecked(row)

    def _record_unchecked(self, row: Sequence[Any]) -> SessionRecord:
        sid = str(row[0])
        n = 0
        cost = Decimal(0)
        read = 0
        total = 0
        for usage_json, cost_s in self._db.execute(
            "SELECT usage, cost FROM requests WHERE session_id=?", (sid,)
        ):
            n += 1
            u = Usage.from_dict(json.loads(usage_json))
            read += u.cache_read
            total += u.input_total
            if cost_s is not None:
                cost += Decimal(cost_s)
        return SessionRecord(
            id=sid,
            created=float(row[1]),
            updated=float(row[2]),
            model=str(row[3]),
            api=str(row[4]),
            provider=str(row[5]),
            prefix_fingerprint=str(row[6]),
            epoch=int(row[7]),
            turns=int(row[8]),
            requests=n,
            cost=cost,
            cache_read=read,
            input_total=total,
            settings=json.loads(row[9]),
            meta=json.loads(row[10]),
        )

    _COLS = "id, created, updated, model, api, provider, prefix_fp, epoch, turns, settings, meta"

    @_locked
    def sessions(self) -> list[SessionRecord]:
        """Every session, most recently updated first."""
        rows = self._db.execute(
            f"SELECT {self._COLS} FROM sessions ORDER BY updated DESC, id"
        ).fetchall()
        return [self._record(r) for r in rows]

    @_locked
    def session(self, session_id: str) -> SessionRecord:
        row = self._db.execute(
            f"SELECT {self._COLS} FROM sessions WHERE id=?", (session_id,)
        ).fetchone()
        if row is None:
            raise UnknownSessionError(f"unknown session id {session_id!r}", where=str(self.path))
        return self._record(row)

    def _request(self, row: Sequence[Any]) -> StoredRequest:
        with _row(self.path, f"request row (session {str(row[0])!r}, seq {row[1]!r})"):
            return self._request_unchecked(row)

    def _request_unchecked(self, row: Sequence[Any]) -> StoredRequest:
        return StoredRequest(
            session_id=str(row[0]),
            seq=int(row[1]),
            turn=int(row[2]),
            kind=str(row[3]),
            time=float(row[4]),
            provider=str(row[5]),
            api=str(row[6]),
            model=str(row[7]),
            path=str(row[8]),
            body=self._body(str(row[0]), int(row[1]), row[9]),
            usage=Usage.from_dict(json.loads(row[10]), json.loads(row[11])),
            raw_usage=json.loads(row[11]),
            cost=_dec(row[12]),
            cost_without_cache=_dec(row[13]),
            cache_key=row[14],
            predicted_read=row[15],
            cause=row[16],
            rebilled=int(row[17]),
            detail=str(row[18]),
        )

    _RCOLS = (
        "session_id, seq, turn, kind, time, provider, api, model, path, skeleton, usage, "
        "raw_usage, cost, cost_without_cache, cache_key, predicted_read, cause, rebilled, detail"
    )

    def requests(self, session_id: str) -> Iterator[StoredRequest]:
        """Every request of a session in order, bodies rebuilt exactly."""
        with self._lock, self._corruption():
            self.session(session_id)
            rows = self._db.execute(
                f"SELECT {self._RCOLS} FROM requests WHERE session_id=? ORDER BY seq",
                (session_id,),
            ).fetchall()
        for r in rows:
            with self._lock, self._corruption():
                req = self._request(r)
            yield req

    @_locked
    def usage_rows(self, session_id: str) -> list[UsageRow]:
        """Every request's usage, cost and cause in order, without rebuilding bodies (fast: a
        500-turn session's rows come back in milliseconds)."""
        self._session_row(self._db, session_id)
        rows = self._db.execute(
            "SELECT seq, turn, kind, time, model, api, usage, raw_usage, cost, "
            "cost_without_cache, predicted_read, cause, rebilled FROM requests "
            "WHERE session_id=? ORDER BY seq",
            (session_id,),
        ).fetchall()
        with _row(self.path, f"request row of session {session_id!r}"):
            return [
                UsageRow(
                    seq=int(r[0]),
                    turn=int(r[1]),
                    kind=str(r[2]),
                    time=float(r[3]),
                    model=str(r[4]),
                    api=str(r[5]),
                    usage=Usage.from_dict(json.loads(r[6]), json.loads(r[7])),
                    cost=_dec(r[8]),
                    cost_without_cache=_dec(r[9]),
                    predicted_read=None if r[10] is None else int(r[10]),
                    cause=r[11],
                    rebilled=int(r[12]),
                )
                for r in rows
            ]

    @_locked
    def subagents(self, session_id: str) -> list[dict[str, Any]]:
        """The subagent runs charged to the session, in order (DelegationResult.to_dict() plus
        the `turn` that produced each); none in a store of schema version 1."""
        self._session_row(self._db, session_id)
        has = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='subagents'"
        ).fetchone()
        if has is None:  # an old store opened read-only (not migrated)
            return []
        with _row(self.path, f"subagent row of session {session_id!r}"):
            return [
                {**json.loads(data), "turn": int(turn)}
                for turn, data in self._db.execute(
                    "SELECT turn, data FROM subagents WHERE session_id=? ORDER BY idx",
                    (session_id,),
                )
            ]

    @_locked
    def load(self, session_id: str) -> LoadedSession:
        """The session's current prefix, transcript and last request, for resuming it."""
        record = self.session(session_id)
        prow = self._db.execute(
            "SELECT data FROM prefixes WHERE fingerprint=?", (record.prefix_fingerprint,)
        ).fetchone()
        if prow is None:
            raise StoreError(
                f"session {session_id!r} names a prefix the store does not hold",
                where=str(self.path),
            )
        rows = self._db.execute(
            "SELECT blob, turn FROM messages WHERE session_id=? AND epoch=? ORDER BY idx",
            (session_id, record.epoch),
        ).fetchall()
        messages = self._blobs([h for h, _ in rows])
        last_row = self._db.execute(
            f"SELECT {self._RCOLS} FROM requests WHERE session_id=? AND epoch=? "
            # Not a ping, nor an abandoned request (its user message never entered the
            # transcript): the last one the stored messages rebuild.
            "AND kind NOT IN ('ping', 'abandoned') ORDER BY seq DESC LIMIT 1",
            (session_id, record.epoch),
        ).fetchone()
        last = self._request(last_row) if last_row is not None else None
        earlier: list[StoredRequest] = []
        if last is None:
            earlier = self._earlier(session_id, record.epoch)
        with _row(self.path, f"prefix or message row of session {session_id!r}"):
            return LoadedSession(
                record, json.loads(prow[0]), messages, last, [int(t) for _, t in rows], earlier
            )

    def _earlier(self, session_id: str, epoch: int) -> list[StoredRequest]:
        """Requests of epochs before `epoch` sent at most EARLIER_HORIZON_S before the last of
        them (older entries have expired under every provider's TTL), at most EARLIER_MAX,
        oldest first."""
        (end,) = self._db.execute(
            "SELECT MAX(time) FROM requests WHERE session_id=? AND epoch<?", (session_id, epoch)
        ).fetchone()
        if end is None:
            return []
        rows = self._db.execute(
            f"SELECT {self._RCOLS} FROM requests WHERE session_id=? AND epoch<? AND time>=? "
            "ORDER BY seq DESC LIMIT ?",
            (session_id, epoch, float(end) - EARLIER_HORIZON_S, EARLIER_MAX),
        ).fetchall()
        return [self._request(r) for r in reversed(rows)]

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
        blob_bytes = self._db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blobs")
        skel = self._db.execute("SELECT COALESCE(SUM(LENGTH(skeleton)), 0) FROM requests")
        return {
            "blob_bytes": int(blob_bytes.fetchone()[0]),
            "skeleton_bytes": int(skel.fetchone()[0]),
            "requests": int(self._db.execute("SELECT COUNT(*) FROM requests").fetchone()[0]),
        }
