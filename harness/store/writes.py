"""Writing sessions: a new session's row and prefix, a turn (its requests, new messages and
subagent runs), a request outside a turn, a model switch, a new epoch (compaction, tool or
prefix change) and a fork. Each function writes inside the caller's transaction; the caller
has checked that the session exists and that it may write it.

API keys are never written: bodies carry none, and metadata is scrubbed of key-like fields.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict, Unpack

from ..canonical import canonical_bytes
from . import blobs, bodies
from .bodies import RefsCache
from .errors import StoreError
from .records import NewRequest

# Field names that hold credentials (matched whole, case-insensitively, with - and _ alike).
_SECRET_KEYS = frozenset(
    {"api_key", "apikey", "x_api_key", "authorization", "access_token", "secret", "password"}
)


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


class NewSession(TypedDict):
    """A new session's row besides its id: the fields `SessionStore.create_session` takes."""

    model: str
    api: str
    provider: str
    prefix: Mapping[str, Any]
    prefix_fingerprint: str
    created: float
    settings: NotRequired[Mapping[str, Any] | None]
    meta: NotRequired[Mapping[str, Any] | None]


def create_session(db: sqlite3.Connection, session_id: str, **new: Unpack[NewSession]) -> None:
    """Register a session (idempotent: an existing id is left as it is)."""
    if db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone():
        return
    _put_prefix(db, new["prefix_fingerprint"], new["prefix"])
    db.execute(
        "INSERT INTO sessions(id, created, updated, model, api, provider, prefix_fp, "
        "settings, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            new["created"],
            new["created"],
            new["model"],
            new["api"],
            new["provider"],
            new["prefix_fingerprint"],
            _json(_scrub(new.get("settings") or {})),
            _json(_scrub(new.get("meta") or {})),
        ),
    )


def record_turn(
    db: sqlite3.Connection,
    refs: RefsCache,
    session_id: str,
    *,
    epoch: int,
    turn: int,
    requests: Sequence[NewRequest],
    messages: Sequence[Mapping[str, Any]],
    first_index: int,
    subagents: Sequence[Mapping[str, Any]],
    model: str,
    time: float,
) -> None:
    """Turn `turn` of epoch `epoch`: its requests, subagent runs, and the messages it
    appended from transcript index `first_index` on."""
    for r in requests:
        _insert_request(db, refs, session_id, turn, epoch, r)
    _insert_subagents(db, session_id, turn, subagents)
    for i, m in enumerate(messages):
        h = blobs.put(db, m)
        db.execute(
            "INSERT OR REPLACE INTO messages(session_id, epoch, idx, turn, blob) "
            "VALUES (?, ?, ?, ?, ?)",
            (session_id, epoch, first_index + i, turn, h),
        )
    db.execute(
        "UPDATE sessions SET turns=?, updated=?, model=? WHERE id=?",
        (turn, time, model, session_id),
    )


def record_request(
    db: sqlite3.Connection,
    refs: RefsCache,
    session_id: str,
    *,
    epoch: int,
    turn: int,
    request: NewRequest,
) -> int:
    """A request outside a turn (a keep-alive ping), counted in the last turn; its seq."""
    seq = _insert_request(db, refs, session_id, turn, epoch, request)
    db.execute("UPDATE sessions SET updated=? WHERE id=?", (request.time, session_id))
    return seq


def set_model(
    db: sqlite3.Connection, session_id: str, model: str, time: float, route: str | None
) -> None:
    """The session moved to `model` (`route`: its provider-qualified id, kept in its meta)."""
    db.execute("UPDATE sessions SET model=?, updated=? WHERE id=?", (model, time, session_id))
    if route is not None:
        row = db.execute("SELECT meta FROM sessions WHERE id=?", (session_id,)).fetchone()
        meta = {**json.loads(row[0]), "route": route}
        db.execute("UPDATE sessions SET meta=? WHERE id=?", (_json(meta), session_id))


def new_epoch(
    db: sqlite3.Connection,
    refs: RefsCache,
    session_id: str,
    *,
    epoch: int,
    turns: int,
    prefix: Mapping[str, Any],
    prefix_fingerprint: str,
    messages: Sequence[Mapping[str, Any]],
    model: str,
    time: float,
    requests: Sequence[NewRequest],
    subagents: Sequence[Mapping[str, Any]],
) -> int:
    """Move the session from `epoch` to the next, with a new prefix and transcript; `requests`
    and `subagents` not yet written (a compaction's summary request) go in the old epoch.
    Returns the new epoch."""
    for r in requests:
        _insert_request(db, refs, session_id, turns, epoch, r)
    _insert_subagents(db, session_id, turns, subagents)
    new = epoch + 1
    _put_prefix(db, prefix_fingerprint, prefix)
    for i, m in enumerate(messages):
        h = blobs.put(db, m)
        db.execute(
            "INSERT INTO messages(session_id, epoch, idx, turn, blob) VALUES (?, ?, ?, ?, ?)",
            (session_id, new, i, turns, h),
        )
    db.execute(
        "UPDATE sessions SET epoch=?, prefix_fp=?, model=?, updated=? WHERE id=?",
        (new, prefix_fingerprint, model, time, session_id),
    )
    return new


def fork(db: sqlite3.Connection, session_id: str, new_id: str, time: float, where: str) -> None:
    """Copy session `session_id` under `new_id`, history and all (`meta["forked_from"]` says
    whence); StoreError if `new_id` exists."""
    if db.execute("SELECT 1 FROM sessions WHERE id=?", (new_id,)).fetchone():
        raise StoreError(f"session {new_id!r} already exists", where=where)
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


def _put_prefix(db: sqlite3.Connection, fingerprint: str, prefix: Mapping[str, Any]) -> None:
    db.execute(
        "INSERT OR IGNORE INTO prefixes(fingerprint, data) VALUES (?, ?)",
        (fingerprint, _json(prefix)),
    )


def _insert_request(
    db: sqlite3.Connection,
    refs: RefsCache,
    session_id: str,
    turn: int,
    epoch: int,
    r: NewRequest,
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
            # exact: bodies carry no credentials
            bodies.skeleton(db, refs, session_id, seq, r.body),
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
