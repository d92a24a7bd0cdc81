"""Who writes a session now: one process at a time, by its lease in the store (pid, host and a
token of its own). A lease is taken by a new or resumed session (refused while a live holder has
it), checked and renewed inside each write's transaction, renewed by a timer while held
(`heartbeat`), and given back on close. A crashed holder's lease is taken over: on this host
its pid no longer runs; on another, its heartbeat is older than LEASE_STALE_S.

The functions here run inside the caller's transaction; `held` is the caller's own leases
(session id -> token), from which one found taken over is dropped.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import uuid
from collections.abc import MutableMapping
from dataclasses import dataclass

from .errors import StoreError
from .schema import has_table

# A lease held by a process on another host is known to be alive only by its heartbeat (each
# write renews it, and a timer while it is held: heartbeat.LEASE_RENEW_S): one silent this long
# is taken over. On this host the holder's pid is asked.
LEASE_STALE_S = 900.0
LEASE_POLL_S = 0.5  # how often a bounded wait (`SessionStore.acquire(wait=)`) looks again


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


def _row(db: sqlite3.Connection, session_id: str) -> Lease | None:
    """The lease row of `session_id`, live or not (None: none)."""
    row = db.execute(
        "SELECT session_id, token, pid, host, acquired, heartbeat FROM leases WHERE session_id=?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return Lease(str(row[0]), str(row[1]), int(row[2]), str(row[3]), row[4], row[5])


def live(db: sqlite3.Connection, session_id: str, now: float) -> Lease | None:
    """The live lease on `session_id` (None: nobody writes it now)."""
    if not has_table(db, "leases"):  # an old store opened read-only
        return None
    held = _row(db, session_id)
    return held if held is not None and held.alive(now) else None


def take(
    db: sqlite3.Connection, session_id: str, now: float, where: str, mine: str | None = None
) -> Lease:
    """A new lease on `session_id` for this process; SessionBusyError while a live holder has
    it. `mine`: the token of the lease the caller holds already, which is kept (renewed):
    the lease a `--wait` got is the one the resume then works under."""
    held = _row(db, session_id)
    if held is not None and mine is not None and held.token == mine:
        db.execute("UPDATE leases SET heartbeat=? WHERE session_id=?", (now, session_id))
        return Lease(held.session_id, held.token, held.pid, held.host, held.acquired, now)
    if held is not None and held.alive(now):
        raise SessionBusyError(session_id, held, where)
    lease = Lease(session_id, uuid.uuid4().hex, os.getpid(), socket.gethostname(), now, now)
    db.execute(
        "INSERT OR REPLACE INTO leases(session_id, token, pid, host, acquired, heartbeat) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (session_id, lease.token, lease.pid, lease.host, now, now),
    )
    return lease


def give_back(db: sqlite3.Connection, session_id: str, token: str) -> None:
    """Delete the lease `token` on `session_id` (nothing if it was taken over)."""
    db.execute("DELETE FROM leases WHERE session_id=? AND token=?", (session_id, token))


def renew(db: sqlite3.Connection, held: MutableMapping[str, str], now: float) -> int:
    """Renew the heartbeat of every lease in `held`. One found taken over (its holder was
    silent past LEASE_STALE_S) is dropped from `held`, not taken back: the session's next
    write raises SessionBusyError. Returns how many were renewed."""
    renewed = 0
    for session_id, token in list(held.items()):
        row = _row(db, session_id)
        if row is None or row.token != token:
            held.pop(session_id, None)
            continue
        db.execute(
            "UPDATE leases SET heartbeat=? WHERE session_id=? AND token=?",
            (now, session_id, token),
        )
        renewed += 1
    return renewed


def check(
    db: sqlite3.Connection, held: MutableMapping[str, str], session_id: str, now: float, where: str
) -> None:
    """Inside a write's transaction: refuse it when another holder has the session (its
    writes and ours would interleave), and renew our heartbeat. A session nobody leased (a
    store used directly, without a Session) is written as before."""
    mine = held.get(session_id)
    row = _row(db, session_id)
    if row is None and mine is None:
        return
    if row is None or row.token != mine:
        held.pop(session_id, None)
        raise SessionBusyError(session_id, row, where)
    db.execute("UPDATE leases SET heartbeat=? WHERE session_id=?", (now, session_id))
