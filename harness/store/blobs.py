"""Content-addressed blobs: a value (a message, an item of a request body's list) kept once under
the SHA-256 of its JSON, however many rows name it. An image's or a document's base64 goes to a
blob of its own, once for every value that holds it (`mediablobs`).

The JSON keeps every object's keys in the order the value has them: a tool call's arguments
come back in the model's order, as they went on the wire (a provider's cache reads them as
written, so a resume that re-sent them sorted would miss from that message on)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from . import mediablobs
from .errors import StoreError, malformed_row

_BATCH = 500  # hashes a query asks for (SQLite allows 999 parameters in old builds)


def _plain(value: Any) -> Any:
    # A frozen block (a read-only mapping) or a set: what the JSON encoder cannot take as is.
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


_ENCODER = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_plain
)


def ordered_bytes(value: Any) -> bytes:
    """`value` as compact JSON, keys in the value's own order."""
    # A body's message held as its JSON (prefixlock.providers.wire_message) gives those bytes,
    # the same as encoding it: encoding decodes its blocks first, and a request's body names
    # every message of the conversation, so each write decoded the whole of it.
    own = getattr(type(value), "json_bytes", None)
    if own is not None:
        try:
            data: bytes = own(value)
            return data
        except (TypeError, ValueError):
            # A message held as its blocks because they are not plain JSON (a set in a tool's
            # input): this encoder's `default` takes what the wire encoder refuses.
            pass
    return _ENCODER.encode(value).encode("utf-8")


def put(db: sqlite3.Connection, value: Any) -> str:
    """Store `value` (if not already there); its hash."""
    data = ordered_bytes(value)
    if mediablobs.may_hold_media(data):

        def put_media(h: str, payload: str) -> None:
            db.execute(
                "INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)",
                (h, payload.encode("utf-8")),
            )

        data = ordered_bytes(mediablobs.extern(value, put_media))
    h = hashlib.sha256(data).hexdigest()
    db.execute("INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)", (h, data))
    return h


def values(db: sqlite3.Connection, hashes: Sequence[str], where: str) -> list[Any]:
    """The values of blobs `hashes`, in order; a few queries for any number (a long session's
    resume reads a thousand at once)."""
    data: dict[str, bytes] = {}
    wanted = list(dict.fromkeys(hashes))
    for i in range(0, len(wanted), _BATCH):
        chunk = wanted[i : i + _BATCH]
        marks = ",".join("?" * len(chunk))
        for h, d in db.execute(f"SELECT hash, data FROM blobs WHERE hash IN ({marks})", chunk):
            data[h] = bytes(d)
    missing = next((h for h in wanted if h not in data), None)
    if missing is not None:
        raise StoreError(f"missing content blob {missing[:12]}", where=where)
    # Decoded once per place, not per hash: a blob twice in a list (the same short answer
    # twice) must come back as two values, not one shared object.
    with malformed_row(where, "content blob"):
        return [_decode(db, data[h], where) for h in hashes]


def _decode(db: sqlite3.Connection, data: bytes, where: str) -> Any:
    value = json.loads(data.decode("utf-8"))
    if mediablobs.may_hold_marks(data):

        def media(h: str) -> str:
            row = db.execute("SELECT data FROM blobs WHERE hash=?", (h,)).fetchone()
            if row is None:
                raise StoreError(f"missing media blob {h[:12]}", where=where)
            return bytes(row[0]).decode("utf-8")

        value = mediablobs.restore(value, media)
    return value
