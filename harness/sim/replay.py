"""Request-by-request replays: FIFO, LRU, LFU and optimal (Belady), with an optional TTL.

The reference engine for the one-pass LRU curve and the only engine for policies that are not
stack algorithms. Semantics follow kvcache-simulator (see engine.py): look the request up first
(hits = the cached prefix), then insert its missing blocks in order. The trie policies evict only
leaves, never a block of the request being served; `optimal` evicts the leaf used furthest in the
future and does not insert a block that would be used later than every candidate victim. FIFO
evicts in insertion order, whatever the trie. A TTL makes a block idle for TTL seconds a miss.

Pure Python over lists: these loops are inherently sequential. Results are per request so the
metrics module can window, price and time them.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .engine import Plan, next_request

I64 = npt.NDArray[np.int64]

POLICIES = ("lru", "fifo", "lfu", "optimal")


@dataclass(frozen=True)
class Replay:
    """Per-request hits of one replay, and whether the cache filled during the warm-up."""

    hit_blocks: I64
    hit_tokens: I64
    filled: bool
    evictions: int


def replay(p: Plan, policy: str, capacity: int, ttl: float | None = None) -> Replay:
    """Replay `p` through one cache of `capacity` blocks."""
    if capacity <= 0:
        raise ValueError("capacity must be positive")
    if policy == "fifo":
        return _fifo(p, capacity, ttl)
    if policy in ("lru", "lfu", "optimal"):
        return _trie(p, policy, capacity, ttl)
    raise ValueError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")


def _fifo(p: Plan, capacity: int, ttl: float | None) -> Replay:
    nodes = p.nodes.tolist()
    tokens = p.tokens.tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    inserted = [-(1 << 62)] * (p.n_nodes + 1)  # insertion number of each node's current copy
    used = [0.0] * (p.n_nodes + 1)
    count = 0  # insertions so far: the cache holds the last `capacity` of them
    hb = [0] * p.requests
    ht = [0] * p.requests
    filled = False
    warm = p.warmup
    limit = float("inf") if ttl is None else ttl
    for r in range(p.requests):
        s, e = starts[r], starts[r + 1]
        now = times[r]
        nb = nt = 0
        for i in range(s, e):
            x = nodes[i]
            if inserted[x] > count - capacity and now - used[x] < limit:
                nb += 1
                nt += tokens[i]
                used[x] = now
            else:
                break
        hb[r], ht[r] = nb, nt
        for i in range(s, e):
            x = nodes[i]
            if inserted[x] > count - capacity and now - used[x] < limit:
                continue
            count += 1
            inserted[x] = count
            used[x] = now
            if count >= capacity and r < warm:
                filled = True
    return Replay(np.array(hb, np.int64), np.array(ht, np.int64), filled, max(0, count - capacity))


def _trie(p: Plan, policy: str, capacity: int, ttl: float | None) -> Replay:
    nodes = p.nodes.tolist()
    tokens = p.tokens.tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    parent = p.parent.tolist()
    size = p.n_nodes + 1
    optimal = policy == "optimal"
    lfu = policy == "lfu"
    nxt = next_request(p).tolist() if optimal else []
    present = bytearray(size)
    present[0] = 1
    children = [0] * size
    key = [0] * size  # LRU: clock; LFU: uses; optimal: next request
    stamp = [0] * size  # LFU tie-break (older first)
    version = [0] * size
    guard = [0] * size
    used = [0.0] * size
    depth = [0] * size
    heap: list[tuple[int, int, int, int, int]] = []  # (order key, tie, tie2, version, node)
    expiry: list[tuple[float, int, int, float]] = []  # (expires, -depth, node, used)
    clock = 0
    mark = 0
    cached = 0
    evictions = 0
    filled = False
    warm = p.warmup
    hb = [0] * p.requests
    ht = [0] * p.requests

    def push(x: int) -> None:
        if x == 0 or not present[x] or children[x]:
            return
        version[x] += 1
        if optimal:
            # furthest next use first; among equals the larger node first (as kvcache-simulator)
            heapq.heappush(heap, (-key[x], -x, 0, version[x], x))
        elif lfu:
            heapq.heappush(heap, (key[x], stamp[x], -x, version[x], x))
        else:
            heapq.heappush(heap, (key[x], -x, 0, version[x], x))

    def touch(x: int, i: int, now: float) -> None:
        nonlocal clock
        clock += 1
        if optimal:
            key[x] = nxt[i]
        elif lfu:
            key[x] += 1
            stamp[x] = clock
        else:
            key[x] = clock
        used[x] = now
        version[x] += 1  # any queued entry of x now carries a stale key
        if ttl is not None:
            heapq.heappush(expiry, (now + ttl, -depth[x], x, now))
        push(x)

    def drop(x: int) -> None:
        nonlocal cached
        present[x] = 0
        cached -= 1
        q = parent[x]
        children[q] -= 1
        if q and present[q] and children[q] == 0:
            push(q)

    def evict(candidate: int) -> bool:
        nonlocal evictions
        skipped = []
        ok = False
        while heap:
            item = heapq.heappop(heap)
            x = item[4]
            if not present[x] or children[x] or version[x] != item[3]:
                continue
            if guard[x] == mark:
                skipped.append(item)
                continue
            if optimal and key[x] <= candidate:
                heapq.heappush(heap, item)
                break
            drop(x)
            evictions += 1
            ok = True
            break
        for item in skipped:
            heapq.heappush(heap, item)
        return ok

    for r in range(p.requests):
        s, e = starts[r], starts[r + 1]
        now = times[r]
        if ttl is not None:
            # Leaves expire no later than their parents (deeper first on ties), so this drops
            # leaves only and keeps the cached set a trie.
            while expiry and expiry[0][0] <= now:
                _, _, x, at = heapq.heappop(expiry)
                if present[x] and used[x] == at and not children[x]:
                    drop(x)
        nb = nt = 0
        for i in range(s, e):
            x = nodes[i]
            if not present[x]:
                break
            nb += 1
            nt += tokens[i]
            touch(x, i, now)
        hb[r], ht[r] = nb, nt
        mark += 1
        guard[0] = mark
        for i in range(s, s + nb):
            guard[nodes[i]] = mark
        for i in range(s + nb, e):
            x = nodes[i]
            if present[x]:
                continue
            if cached >= capacity and not evict(nxt[i] if optimal else 0):
                break
            if cached < capacity and present[parent[x]]:
                present[x] = 1
                cached += 1
                children[parent[x]] += 1
                depth[x] = i - s
                if lfu:
                    key[x] = 0
                touch(x, i, now)
                if cached >= capacity and r < warm:
                    filled = True
            else:
                break
    return Replay(np.array(hb, np.int64), np.array(ht, np.int64), filled, evictions)
