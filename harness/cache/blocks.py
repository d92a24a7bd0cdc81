"""A capacity-bounded cache of chained block hashes, one request at a time.

The prompt cache of the emulator, and the simulator's LRU cache run one request at a time: fed a
request's blocks deepest first (`put` in reverse prompt order) it gives the same hits as the
simulator's LRU replay wherever the capacity holds a whole request (tests/sim/
test_sim_nodecache.py).
Keys are chained block hashes (a key names a block together with its whole prefix), so a prefix
match is "how many leading keys are present".
Entries may carry a TTL (refreshed on read, as Anthropic documents) and are evicted LRU, FIFO or
LFU when the capacity (in blocks) is reached. Pure: time is passed in, nothing is read from a clock.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

POLICIES = ("lru", "fifo", "lfu")
# Stale items the expiry queue may hold beyond twice its live entries before it is rebuilt.
STALE_SLACK = 64


@dataclass(slots=True)
class _Entry:
    expires: float | None
    ttl: float | None
    hits: int = 0
    stamp: int = 0  # insertion / use counter, for LFU tie-breaks
    queued: float | None = None  # the expiry its item in the expiry queue was pushed with


class BlockCache:
    """Set of block keys with capacity, eviction policy and optional per-entry TTL."""

    def __init__(
        self, capacity: int | None = None, policy: str = "lru", ttl: float | None = None
    ) -> None:
        if capacity is not None and capacity <= 0:
            raise ValueError("capacity must be a positive number of blocks")
        if policy not in POLICIES:
            raise ValueError(f"unknown eviction policy {policy!r}; choose from {POLICIES}")
        self.capacity = capacity
        self.policy = policy
        self.default_ttl = ttl
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._heap: list[tuple[int, int, Hashable]] = []  # LFU: (hits, stamp, key), lazy
        self._clock = 0
        # (expires, seq, key), lazy: lets a full cache drop its expired entries without a scan.
        # An entry's item may be older than a refresh (a hit only moves its expiry later):
        # `drop_expired` queues it again when it comes due, so a hit costs no push.
        self._expiry: list[tuple[float, int, Hashable]] = []
        self._seq = 0
        self.evictions: int = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def stored_keys(self) -> list[Hashable]:
        """Every stored key, expired or not (a snapshot: safe to evict while iterating it)."""
        return list(self._entries)

    def _alive(self, key: Hashable, now: float) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires is not None and now >= entry.expires:
            del self._entries[key]
            return None
        return entry

    def _use(self, key: Hashable, entry: _Entry, now: float) -> None:
        if entry.ttl is not None:
            entry.expires = now + entry.ttl  # refreshed on every hit
            if entry.queued is None or entry.expires < entry.queued:
                self._track(entry, key)
        if self.policy == "lru":
            self._entries.move_to_end(key)
        elif self.policy == "lfu":  # only LFU reads the use counts
            self._clock += 1
            entry.hits += 1
            entry.stamp = self._clock
            self._push_lfu(entry.hits, entry.stamp, key)

    def _push_lfu(self, hits: int, stamp: int, key: Hashable) -> None:
        heapq.heappush(self._heap, (hits, stamp, key))
        if len(self._heap) > 4 * len(self._entries) + 1024:
            # Every hit and every removal leaves a stale item behind: rebuild from the live
            # entries so a long-running cache's heap stays proportional to what it holds.
            self._heap = [(e.hits, e.stamp, k) for k, e in self._entries.items()]
            heapq.heapify(self._heap)

    def get(self, key: Hashable, now: float = 0.0) -> bool:
        """Is `key` cached and unexpired? A hit refreshes its recency and TTL."""
        entry = self._alive(key, now)
        if entry is None:
            return False
        self._use(key, entry, now)
        return True

    def peek(self, key: Hashable, now: float = 0.0) -> bool:
        """Like `get` but changes nothing (for predictions)."""
        entry = self._entries.get(key)
        return entry is not None and (entry.expires is None or now < entry.expires)

    def expires_at(self, key: Hashable) -> float | None:
        entry = self._entries.get(key)
        return None if entry is None else entry.expires

    def match_prefix(self, keys: Sequence[Hashable], now: float = 0.0) -> int:
        """Number of leading `keys` that are cached; those are touched as hits."""
        n = 0
        for key in keys:
            if not self.get(key, now):
                break
            n += 1
        return n

    def put(self, key: Hashable, now: float = 0.0, ttl: float | None = None) -> list[Hashable]:
        """Cache `key` (or refresh it); returns the keys evicted to make room."""
        ttl = self.default_ttl if ttl is None else ttl
        entry = self._alive(key, now)
        if entry is not None:
            if ttl is not None and (entry.ttl is None or ttl > entry.ttl):
                entry.ttl = ttl
            self._use(key, entry, now)
            return []
        evicted = self._make_room(now)
        self._clock += 1
        new = _Entry(None if ttl is None else now + ttl, ttl, 1, self._clock)
        self._entries[key] = new
        if new.expires is not None:
            self._track(new, key)
        if self.policy == "lfu":
            self._push_lfu(new.hits, new.stamp, key)
        return evicted

    def insert(
        self, keys: Iterable[Hashable], now: float = 0.0, ttl: float | None = None
    ) -> list[Hashable]:
        """`put` each of `keys` with one TTL; returns the keys evicted to make room."""
        ttl = self.default_ttl if ttl is None else ttl
        evicted: list[Hashable] = []
        entries = self._entries
        for key in keys:
            entry = entries.get(key)
            expires = None if entry is None else entry.expires
            if entry is not None and entry.ttl == ttl and expires is not None and now < expires:
                self._use(key, entry, now)  # the usual re-write: a refresh, nothing to decide
                continue
            evicted += self.put(key, now, ttl)
        return evicted

    def drop_expired(self, now: float) -> int:
        """Remove the entries whose TTL has passed by `now` (they already read as absent);
        returns how many. A long-running cache without a capacity calls it, or expired entries
        would stay stored for good."""
        # Items whose entry was replaced or removed since, or queued again, are stale: skipped.
        heap = self._expiry
        dropped = 0
        while heap and heap[0][0] <= now:
            queued, _, k = heapq.heappop(heap)
            e = self._entries.get(k)
            if e is None or e.queued != queued or e.expires is None:
                continue
            if e.expires <= now:
                del self._entries[k]
                dropped += 1
            else:
                self._queue(e, k)  # refreshed since it was queued: due later
        return dropped

    def _make_room(self, now: float) -> list[Hashable]:
        if self.capacity is None or len(self._entries) < self.capacity:
            return []
        self.drop_expired(now)  # expired entries go first: they cost nothing to drop
        if len(self._entries) < self.capacity:
            return []
        victim = self._victim()
        del self._entries[victim]
        self.evictions += 1
        return [victim]

    def _queue(self, entry: _Entry, key: Hashable) -> None:
        assert entry.expires is not None
        self._seq += 1
        entry.queued = entry.expires
        heapq.heappush(self._expiry, (entry.expires, self._seq, key))

    def _track(self, entry: _Entry, key: Hashable) -> None:
        self._queue(entry, key)
        if len(self._expiry) > 2 * len(self._entries) + STALE_SLACK:
            # Replaced and removed entries leave stale items behind: rebuild from the live ones.
            # The bound is small: a cache whose entries are superseded one request after the
            # next (the guard's model of a chat's cache) otherwise held a filling queue of dead
            # items for its first ~1,000 requests, read as per-turn growth by a long chat. The
            # rebuild is linear in the live entries and comes at most once per as many pushes.
            heap: list[tuple[float, int, Hashable]] = []
            for k, e in self._entries.items():
                if e.expires is not None:
                    e.queued = e.expires
                    heap.append((e.expires, len(heap), k))
            heapq.heapify(heap)
            self._expiry = heap
            self._seq = len(heap)

    def _victim(self) -> Hashable:
        if self.policy in ("lru", "fifo"):
            return next(iter(self._entries))
        while self._heap:
            hits, stamp, key = heapq.heappop(self._heap)
            entry = self._entries.get(key)
            if entry is not None and entry.hits == hits and entry.stamp == stamp:
                return key
        return next(iter(self._entries))

    def evict(self, key: Hashable) -> bool:
        """Drop `key` now (the emulator's way to provoke an unexplained miss)."""
        return self._entries.pop(key, None) is not None

    def clear(self) -> None:
        self._entries.clear()
        self._heap.clear()
        self._expiry.clear()
