"""A request's exact wire body, stored deduplicated: each element of the body's big lists
(messages, input items, tools, system blocks) is a blob (`blobs`), and the request row keeps a
skeleton: the rest of the body plus the lists' blob hashes, each list as a delta on the previous
request's (kept: the common prefix's length; added: the rest). A long session's store grows
with its new content, not with the square of its length, and the body comes back exact.

A body is the request as the session built it: with `Settings(cache_diagnostics=True)` the
transport also sends the id of the previous response (prefixlock.providers.diagnostics), which
changes on every request and is no part of what the cache sees; it is not kept.

Keys keep their order (`blobs.ordered_bytes`): the skeleton holds the body's key order, and a
body comes back with its keys where they were, nested ones (a tool call's arguments) included.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from ..providers.lazy_body import MessagesRecipe, raw_items
from . import blobs

LIST_KEYS = ("messages", "input", "tools", "system")

Refs = dict[str, list[str]]  # a request's lists as blob hashes, by body key
# The same, as kept between requests: each list's SHA-256 digests end to end (32 bytes an item,
# not a 64-character string: a long session's newest list names every message it holds).
Packed = dict[str, bytes]
_DIGEST = 32  # bytes of a SHA-256 digest


class RefsCache(dict[tuple[str, int], Packed]):
    """The refs of the requests written or read lately, by (session id, seq): requests are
    written and read in order, so each is rebuilt from the one before. One per store
    connection; it must be cleared when a transaction rolls back (it may hold rows that were
    rolled back).

    And `sent`: per session, the last request written (`Sent`: its seq, its message list's
    recipe and the digests of that list's newest items, its other lists' digests), so that the
    next write hashes and writes only the items that are not the same as there
    (prefixlock.providers.lazy_body: `same_item`). Each request names every message of the
    conversation: encoding, hashing and writing each one again at every request was work that
    grew with the conversation, and so was keeping every message's digest between writes (32
    bytes a message for the chat's life): a write that follows one with a recipe keeps no
    full list here. Cleared with the refs (a rollback: those blobs may not be in the store)."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        super().__init__()
        self.sent: dict[str, Sent] = {}

    def clear(self) -> None:
        super().clear()
        self.sent.clear()

    def forget(self, session_id: str) -> None:
        """Drop what is kept for `session_id`'s next write or read: the session is given back
        (its lease released), so no write of this store follows from it. A chat's finished
        sessions (each subagent run's, a session switched away from) kept their last lists'
        digests until 256 other sessions had written."""
        self.sent.pop(session_id, None)
        for key in [k for k in self if k[0] == session_id]:
            del self[key]


# What a session's last write leaves for its next one: (seq, the message list's body key, its
# recipe, the index of the first digest kept, the digests of the list's items from there on,
# the body's other lists' digests). The items before the kept ones are the previous request's
# own (`same_item`), whose digests the next write needs only where they differ: a new message
# is appended, and a breakpoint moves within the newest few.
Sent = tuple[int, str, MessagesRecipe, int, bytes, Packed]
TAIL = 64  # the newest items of a message list whose digests are kept between writes


def _pack(refs: Refs) -> Packed | None:
    """`refs` packed; None where a hash is not a SHA-256 hex digest (a damaged row: it is not
    cached, and reading its blobs names the damage)."""
    try:
        packed = {k: b"".join(bytes.fromhex(h) for h in hashes) for k, hashes in refs.items()}
    except (TypeError, ValueError):
        return None
    if any(len(data) != _DIGEST * len(refs[k]) for k, data in packed.items()):
        return None
    return packed


def _keep(cache: RefsCache, key: tuple[str, int], refs: Refs) -> None:
    packed = _pack(refs)
    if packed is not None:
        cache[key] = packed


def _unpack(packed: Packed) -> Refs:
    return {
        k: [data[i : i + _DIGEST].hex() for i in range(0, len(data), _DIGEST)]
        for k, data in packed.items()
    }


_CACHE_MAX = 64
_CACHE_KEEP = 8  # the newest kept when it is full
_WRITE_MAX = 256  # sessions whose last written request's lists are kept for the next write


def skeleton(
    db: sqlite3.Connection,
    cache: RefsCache,
    session_id: str,
    seq: int,
    body: Mapping[str, Any],
) -> str:
    """Store request `seq`'s list items as blobs; the skeleton its row keeps."""
    # Each list's hashes are packed as they come (32 bytes an item, in one buffer): a long
    # session's lists name hundreds of messages, and a hex string for each, this request's and
    # the previous one's, made a passing peak that grew with the conversation at every request.
    # Only the hashes added since the previous request are written out as text.
    rest: dict[str, Any] = {}
    packed: Packed = {}
    encoded: dict[str, dict[str, Any]] = {}
    sent = cache.sent if isinstance(cache, RefsCache) else None
    last = sent.pop(session_id, None) if sent is not None else None
    if last is not None and last[0] != seq - 1:
        last = None
    kept: tuple[str, MessagesRecipe, int, bytes] | None = None
    # A body's message list held as its recipe (prefixlock.providers.lazy_body) is read an
    # item at a time, not made into its list first.
    for k, v in raw_items(body):
        if not (k in LIST_KEYS and isinstance(v, (list, tuple, MessagesRecipe))):
            rest[k] = v
        elif type(v) is MessagesRecipe and last is not None and last[1] == k:
            keep, start, digests = _recipe_delta(db, v, last)
            added = range((keep - start) * _DIGEST, len(digests), _DIGEST)
            hashes = [digests[i : i + _DIGEST].hex() for i in added]
            encoded[k] = {"keep": keep, "add": hashes} if keep else {"add": hashes}
            tail = max(0, len(v) - TAIL)
            kept = (k, v, tail, bytes(digests[(tail - start) * _DIGEST :]))
        else:
            data = bytearray()
            for item in v:
                data += bytes.fromhex(blobs.put(db, item))
            packed[k] = bytes(data)
            if type(v) is MessagesRecipe:
                tail = max(0, len(v) - TAIL)
                kept = (k, v, tail, packed[k][tail * _DIGEST :])
    # The previous request's other lists: kept by its write, or read back (rebuilt from rows).
    # Its message list whole only where this one is not a recipe after one (then read back).
    prev = last[5] if last is not None else {}
    if seq > 0 and (last is None or last[1] in packed):
        prev = _packed_refs(db, cache, session_id, seq - 1)
    for k, digests in packed.items():
        keep = _common_items(prev.get(k, b""), digests)
        ends = range(keep * _DIGEST, len(digests), _DIGEST)
        added_hashes = [digests[i : i + _DIGEST].hex() for i in ends]
        encoded[k] = {"keep": keep, "add": added_hashes} if keep else {"add": added_hashes}
    cache.pop((session_id, seq - 1), None)
    if kept is None or kept[0] in packed:
        # Every list whole (no recipe, or the first write of one): kept as the refs of `seq`,
        # which a read or a write without a recipe rebuilds from.
        cache[(session_id, seq)] = packed
        while len(cache) > _WRITE_MAX:
            del cache[next(iter(cache))]  # the oldest written
    if sent is not None and kept is not None:
        k, recipe, tail, digests = kept
        others = {key: data for key, data in packed.items() if key != k}
        sent[session_id] = (seq, k, recipe, tail, digests, others)
        while len(sent) > _WRITE_MAX:
            del sent[next(iter(sent))]  # the oldest written
    order = list(body)
    skel = {"rest": rest, "lists": {k: encoded[k] for k in order if k in encoded}, "order": order}
    return blobs.ordered_bytes(skel).decode("utf-8")


def _recipe_delta(db: sqlite3.Connection, v: MessagesRecipe, last: Sent) -> tuple[int, int, bytes]:
    """A message list against the last write's (`last`): how many leading items the two share
    (`keep`), and the digests of its items from `start` (at most `keep`, at most its newest
    `TAIL`) on. An item the same as there (`same_item`) has that digest, known equal without
    it; any other is hashed and written (`blobs.put`). Where the last write's digest of an
    item that is not the same is not kept, the shared part ends there (its remainder is
    written as added: the body comes back the same)."""
    _, _, before, first, tail, _ = last
    n_before = first + len(tail) // _DIGEST
    newest = max(0, len(v) - TAIL)
    keeping, keep = True, 0
    start = -1
    data = bytearray()
    for i, item in enumerate(v):
        same = v.same_item(before, i)
        old = (
            tail[(i - first) * _DIGEST : (i - first + 1) * _DIGEST]
            if first <= i < n_before
            else None
        )
        digest: bytes | None = old if same else None
        if keeping:
            if not same:
                if digest is None:
                    digest = bytes.fromhex(blobs.put(db, item))
                keeping = old is not None and digest == old
            if keeping:
                keep = i + 1
        if start < 0 and (i >= newest or not keeping):
            start = i
        if start >= 0:
            if digest is None:
                digest = bytes.fromhex(blobs.put(db, item))
            data += digest
    return keep, (start if start >= 0 else len(v)), bytes(data)


def _common_items(base: bytes, new: bytes) -> int:
    """How many hashes `new` starts with that `base` starts with too (packed digests)."""
    a, b = memoryview(base), memoryview(new)
    n = min(len(a), len(b)) // _DIGEST
    if a[: n * _DIGEST] == b[: n * _DIGEST]:
        return n  # the usual case: the previous request's lists, and more
    lo, hi = 0, n  # the first `lo` items agree, the first `hi` do not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[: mid * _DIGEST] == b[: mid * _DIGEST]:
            lo = mid
        else:
            hi = mid
    return lo


def _packed_refs(db: sqlite3.Connection, cache: RefsCache, session_id: str, seq: int) -> Packed:
    """Request `seq`'s lists as packed digests; a list whose row names a hash that is not a
    SHA-256 digest is packed up to it (nothing past it can match a hash written now)."""
    cached = cache.get((session_id, seq))
    if cached is not None:
        return cached
    out: Packed = {}
    for k, hashes in _refs(db, cache, session_id, seq).items():
        data = bytearray()
        for h in hashes:
            try:
                digest = bytes.fromhex(h)
            except (TypeError, ValueError):
                break
            if len(digest) != _DIGEST or digest.hex() != h:
                break
            data += digest
        out[k] = bytes(data)
    return out


def body(
    db: sqlite3.Connection, cache: RefsCache, session_id: str, seq: int, skeleton: str, where: str
) -> dict[str, Any]:
    """Request `seq`'s exact body, from its row's `skeleton`."""
    data = json.loads(skeleton)
    out: dict[str, Any] = dict(data["rest"])
    for k, hashes in _refs(db, cache, session_id, seq).items():
        out[k] = blobs.values(db, hashes, where)
    order = data.get("order")  # absent from rows written before it was kept
    if isinstance(order, list) and set(order) == set(out):
        out = {k: out[k] for k in order}
    return out


def _refs(db: sqlite3.Connection, cache: RefsCache, session_id: str, seq: int) -> Refs:
    """The full blob-hash lists of request `seq`, rebuilt from the deltas."""
    cached = cache.get((session_id, seq))
    if cached is not None:
        return _unpack(cached)
    # Walk back to a request whose lists need no base (or one already rebuilt).
    # One query, read lazily newest first: a long session walks back hundreds of rows.
    chain: list[tuple[int, dict[str, Any]]] = []
    base: Refs = {}
    rows = db.execute(
        "SELECT seq, skeleton FROM requests WHERE session_id=? AND seq<=? ORDER BY seq DESC",
        (session_id, seq),
    )
    expected = seq
    for s, skel in rows:
        hit = cache.get((session_id, expected))
        if hit is not None:
            base = _unpack(hit)
            break
        if s != expected:  # a gap: nothing older can be a base
            break
        lists = json.loads(skel).get("lists", {})
        chain.append((s, lists))
        if all("keep" not in v for v in lists.values()):
            break
        expected -= 1
    else:
        hit = cache.get((session_id, expected))
        if hit is not None:
            base = _unpack(hit)
    rows.close()
    for s, lists in reversed(chain):
        full = {k: base.get(k, [])[: v.get("keep", 0)] + list(v["add"]) for k, v in lists.items()}
        base = full
        _keep(cache, (session_id, s), full)
    if len(cache) > _CACHE_MAX:  # keep the newest few: requests are read in order
        for key in sorted(cache)[:-_CACHE_KEEP]:
            del cache[key]
    return base
