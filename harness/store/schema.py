"""The store file: its tables, its schema version and the migrations from older versions, and
how it is opened. A file is checked before anything touches it (a newer, foreign or broken one
stays exactly as it is), then opened for writing in WAL mode (created or migrated on the way),
or read-only, writing nothing, even on a read-only filesystem.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreError, one_line

SCHEMA_VERSION = 3
# The writing connection's page cache, in KiB (SQLite's default is 2000). The store appends;
# what it reads back comes from the OS's file cache as fast. A long-running writer (the chat,
# a proxy) otherwise filled SQLite's 2 MB over its first hundreds of turns, a few KB a turn.
PAGE_CACHE_KIB = 256
# What each version adds over the one before (a store of an older version is migrated on open).
_MIGRATIONS: dict[int, str] = {
    2: """CREATE TABLE IF NOT EXISTS subagents (
    session_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
)""",
    # Which process writes a session now (prefixlock.store.leases).
    3: """CREATE TABLE IF NOT EXISTS leases (
    session_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    acquired REAL NOT NULL,
    heartbeat REAL NOT NULL
)""",
}

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


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:  # SQLite rolls back itself on some errors (a full disk)
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def has_table(db: sqlite3.Connection, name: str) -> bool:
    """Whether the store has table `name` (an old store opened read-only is not migrated)."""
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,))
    return row.fetchone() is not None


def connect(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """The store at `path`, checked, opened and (unless `read_only`) created or migrated. Every
    failure is one StoreError naming the file, which is left untouched."""
    where = str(path)
    if read_only and not path.exists():
        raise StoreError("no session store here", where=where)
    if path.is_dir():
        raise StoreError("is a directory; name the store file", where=where)
    if not read_only:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise StoreError(
                "cannot create the store's folder: a file is in the way", where=where
            ) from None
        except OSError as exc:
            raise StoreError(
                f"cannot create the store's folder: {exc.strerror or exc}", where=where
            ) from None
    try:
        if path.exists():
            _probe(path, where)
        if read_only:
            return _connect_read_only(path)
        db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        return _prepared(db, read_only=False, where=where)
    except sqlite3.OperationalError as exc:
        if str(exc).startswith(("Could not decode", "no such column", "no such table")):
            raise StoreError(
                f"not a readable prefixlock session store ({one_line(str(exc))}); the file was "
                "left untouched",
                where=where,
            ) from None
        raise StoreError(
            f"cannot open the session store ({one_line(str(exc))}); a full disk, or a read-only "
            "file or folder? "
            "`prefixlock sessions` can still read it. The file was left untouched",
            where=where,
        ) from None
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise StoreError(
            f"not a readable prefixlock session store ({one_line(str(exc))}); the file was left "
            "untouched",
            where=where,
        ) from None


def _probe(path: Path, where: str) -> None:
    """Check the file's version before it is opened for writing, with a connection that cannot
    write it: a newer or foreign store must stay exactly as it is, side files included. A
    store in use has its -wal file: it is read through the WAL and its locks (`immutable`
    ignores both, and reads a store another process is writing as "malformed"). Without one,
    nobody has it open, and `immutable` reads it creating nothing beside it."""
    wal = path.with_name(path.name + "-wal")
    uri = path.resolve().as_uri()
    if not wal.exists():
        probe = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
        try:
            _version(probe, where)
            return
        except sqlite3.DatabaseError:
            # A writer opened the store after the check and changed the main file under the
            # immutable read (a checkpoint): read it again through the WAL and its locks. With
            # no writer (no -wal now) the file is really damaged, and says so untouched.
            if not wal.exists():
                raise
        finally:
            probe.close()
    probe = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30)
    try:
        _version(probe, where)
    finally:
        probe.close()


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that writes nothing. A WAL store needs its -shm file even to read;
    on a read-only filesystem (a mounted backup) SQLite cannot create it and `mode=ro`
    fails with "unable to open database file". Without a -wal file the main file is the
    whole store, so it is opened `immutable` there (nobody can change it meanwhile)."""
    uri = path.resolve().as_uri()
    # A busy store (another process checkpointing) is waited for, not refused.
    db = sqlite3.connect(
        f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False, timeout=30
    )
    try:
        return _prepared(db, read_only=True, where=str(path))
    except sqlite3.OperationalError as exc:
        wal = path.with_name(path.name + "-wal")
        if "unable to open" not in str(exc) or (wal.exists() and wal.stat().st_size > 0):
            raise
    db = sqlite3.connect(
        f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False
    )
    return _prepared(db, read_only=True, where=str(path))


def _prepared(db: sqlite3.Connection, *, read_only: bool, where: str) -> sqlite3.Connection:
    """`db` made ready (`_prepare`), or closed if it cannot be."""
    try:
        _prepare(db, read_only=read_only, where=where)
    except BaseException:
        db.close()
        raise
    return db


def _version(db: sqlite3.Connection, where: str) -> int | None:
    """The store's schema version (None: an empty file); refuses newer and foreign files."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    found: int | None = None
    if "schema_version" in tables:
        row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        found = None if row is None or row[0] is None else int(row[0])
    elif tables:
        raise StoreError(
            "this SQLite file is not a prefixlock session store (no schema_version table); "
            "it was left untouched",
            where=where,
        )
    if found is not None and found > SCHEMA_VERSION:
        raise StoreError(
            f"written by a newer prefixlock (schema version {found}, this one reads up to "
            f"{SCHEMA_VERSION}); upgrade prefixlock. The store was left untouched",
            where=where,
        )
    return found


def _prepare(db: sqlite3.Connection, *, read_only: bool, where: str) -> None:
    """Check an open store's version; for writing, set WAL and durable commits, and create the
    tables of an empty file or migrate an older store, each in one transaction (a crash
    mid-migration leaves the old version as it was)."""
    found = _version(db, where)
    if read_only:
        if found is None:
            raise StoreError("empty file, not a session store", where=where)
        return
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=5000")
    db.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KIB}")
    if found is None:
        with transaction(db):
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    db.execute(stmt)
            db.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))
    elif found < SCHEMA_VERSION:
        with transaction(db):
            for v in range(found + 1, SCHEMA_VERSION + 1):
                db.execute(_MIGRATIONS[v])
            db.execute("DELETE FROM schema_version")
            db.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))
