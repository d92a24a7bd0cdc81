"""Reading sessions back: their rows with summary figures, their requests (bodies rebuilt by
the caller's `BodyReader`), the usage rows a resumed ledger is rebuilt from, subagent runs, and
all a resume needs (`load`). Each function reads on the connection it is given; a malformed row
is one StoreError naming it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from ..billing.usage import Usage
from . import blobs
from .errors import StoreError, UnknownSessionError, malformed_row
from .records import LoadedSession, SessionRecord, StoredRequest, UsageRow
from .schema import has_table

# A resume after a compaction or prefix change teaches the guard what is cached from the
# requests before it: those within the longest cache TTL of any provider (OpenAI's 24-hour
# retention), and no more than a resume can rebuild quickly.
EARLIER_HORIZON_S = 24 * 3600.0
EARLIER_MAX = 200

# A request's exact body from (session id, seq, its row's skeleton): prefixlock.store.bodies.
BodyReader = Callable[[str, int, str], dict[str, Any]]

_SESSION_COLS = (
    "id, created, updated, model, api, provider, prefix_fp, epoch, turns, settings, meta"
)
_REQUEST_COLS = (
    "session_id, seq, turn, kind, time, provider, api, model, path, skeleton, usage, "
    "raw_usage, cost, cost_without_cache, cache_key, predicted_read, cause, rebilled, detail"
)


def _dec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def epoch_and_turns(db: sqlite3.Connection, session_id: str, where: str) -> tuple[int, int]:
    """The session's current epoch and its number of turns; UnknownSessionError if none."""
    row = db.execute("SELECT epoch, turns FROM sessions WHERE id=?", (session_id,)).fetchone()
    if row is None:
        raise UnknownSessionError(f"unknown session id {session_id!r}", where=where)
    return int(row[0]), int(row[1])


def sessions(db: sqlite3.Connection, where: str) -> list[SessionRecord]:
    """Every session, most recently updated first."""
    rows = db.execute(f"SELECT {_SESSION_COLS} FROM sessions ORDER BY updated DESC, id").fetchall()
    return [_record(db, r, where) for r in rows]


def session(db: sqlite3.Connection, session_id: str, where: str) -> SessionRecord:
    """Session `session_id`'s row and figures; UnknownSessionError if none."""
    row = db.execute(f"SELECT {_SESSION_COLS} FROM sessions WHERE id=?", (session_id,)).fetchone()
    if row is None:
        raise UnknownSessionError(f"unknown session id {session_id!r}", where=where)
    return _record(db, row, where)


def _record(db: sqlite3.Connection, row: Sequence[Any], where: str) -> SessionRecord:
    sid = str(row[0])
    with malformed_row(where, f"session row {sid!r}"):
        n = 0
        cost = Decimal(0)
        read = 0
        total = 0
        for usage_json, cost_s in db.execute(
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


def request_rows(db: sqlite3.Connection, session_id: str) -> list[Sequence[Any]]:
    """The session's request rows in order, for `request` to decode one at a time."""
    return db.execute(
        f"SELECT {_REQUEST_COLS} FROM requests WHERE session_id=? ORDER BY seq", (session_id,)
    ).fetchall()


def request(row: Sequence[Any], body: BodyReader, where: str) -> StoredRequest:
    """A request row (of `request_rows`) as a StoredRequest, its body rebuilt by `body`."""
    with malformed_row(where, f"request row (session {str(row[0])!r}, seq {row[1]!r})"):
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
            body=body(str(row[0]), int(row[1]), row[9]),
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


def usage_rows(db: sqlite3.Connection, session_id: str, where: str) -> list[UsageRow]:
    """Every request's usage, cost and cause in order, without rebuilding bodies (fast: a
    500-turn session's rows come back in milliseconds)."""
    epoch_and_turns(db, session_id, where)
    rows = db.execute(
        "SELECT seq, turn, kind, time, model, api, usage, raw_usage, cost, "
        "cost_without_cache, predicted_read, cause, rebilled FROM requests "
        "WHERE session_id=? ORDER BY seq",
        (session_id,),
    ).fetchall()
    with malformed_row(where, f"request row of session {session_id!r}"):
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


def subagents(db: sqlite3.Connection, session_id: str, where: str) -> list[dict[str, Any]]:
    """The subagent runs charged to the session, in order (DelegationResult.to_dict() plus
    the `turn` that produced each); none in a store of schema version 1."""
    epoch_and_turns(db, session_id, where)
    if not has_table(db, "subagents"):  # an old store opened read-only (not migrated)
        return []
    with malformed_row(where, f"subagent row of session {session_id!r}"):
        return [
            {**json.loads(data), "turn": int(turn)}
            for turn, data in db.execute(
                "SELECT turn, data FROM subagents WHERE session_id=? ORDER BY idx",
                (session_id,),
            )
        ]


def load(db: sqlite3.Connection, session_id: str, body: BodyReader, where: str) -> LoadedSession:
    """The session's current prefix, transcript and last request, for resuming it."""
    record = session(db, session_id, where)
    prow = db.execute(
        "SELECT data FROM prefixes WHERE fingerprint=?", (record.prefix_fingerprint,)
    ).fetchone()
    if prow is None:
        raise StoreError(
            f"session {session_id!r} names a prefix the store does not hold", where=where
        )
    rows = db.execute(
        "SELECT blob, turn FROM messages WHERE session_id=? AND epoch=? ORDER BY idx",
        (session_id, record.epoch),
    ).fetchall()
    messages = blobs.values(db, [h for h, _ in rows], where)
    last_row = db.execute(
        f"SELECT {_REQUEST_COLS} FROM requests WHERE session_id=? AND epoch=? "
        # Not a ping, nor an abandoned request (its user message never entered the
        # transcript): the last one the stored messages rebuild.
        "AND kind NOT IN ('ping', 'abandoned') ORDER BY seq DESC LIMIT 1",
        (session_id, record.epoch),
    ).fetchone()
    last = request(last_row, body, where) if last_row is not None else None
    earlier: list[StoredRequest] = []
    if last is None:
        earlier = _earlier(db, session_id, record.epoch, body, where)
    with malformed_row(where, f"prefix or message row of session {session_id!r}"):
        return LoadedSession(
            record, json.loads(prow[0]), messages, last, [int(t) for _, t in rows], earlier
        )


def _earlier(
    db: sqlite3.Connection, session_id: str, epoch: int, body: BodyReader, where: str
) -> list[StoredRequest]:
    """Requests of epochs before `epoch` sent at most EARLIER_HORIZON_S before the last of
    them (older entries have expired under every provider's TTL), at most EARLIER_MAX,
    oldest first."""
    (end,) = db.execute(
        "SELECT MAX(time) FROM requests WHERE session_id=? AND epoch<?", (session_id, epoch)
    ).fetchone()
    if end is None:
        return []
    rows = db.execute(
        f"SELECT {_REQUEST_COLS} FROM requests WHERE session_id=? AND epoch<? AND time>=? "
        "ORDER BY seq DESC LIMIT ?",
        (session_id, epoch, float(end) - EARLIER_HORIZON_S, EARLIER_MAX),
    ).fetchall()
    return [request(r, body, where) for r in reversed(rows)]


def stats(db: sqlite3.Connection) -> dict[str, int]:
    """Row counts and blob bytes (to check that storage grows linearly)."""
    blob_bytes = db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blobs")
    skel = db.execute("SELECT COALESCE(SUM(LENGTH(skeleton)), 0) FROM requests")
    return {
        "blob_bytes": int(blob_bytes.fetchone()[0]),
        "skeleton_bytes": int(skel.fetchone()[0]),
        "requests": int(db.execute("SELECT COUNT(*) FROM requests").fetchone()[0]),
    }
