"""A cluster of N cache nodes and the routers that pick a node for each request.

Routers that ignore cache state (random, round-robin, session affinity, cache-key affinity) only
assign requests, and each node's stream then goes through the single-node engine (the one-pass
LRU ranks or a replay). Routers that look at the caches (prefix-aware with a load threshold, as
SGLang's router; lowest estimated TTFT, as Mooncake's Conductor) are simulated request by request
with one `NodeCache` per node and a queue per node. All of it is pure.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import UserError
from .engine import Plan
from .models import Arch, prefill_seconds

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

ROUTERS = ("random", "round-robin", "session", "cache-key", "prefix", "ttft")
STATELESS = ("random", "round-robin", "session", "cache-key")


def _mix(x: I64) -> I64:
    """A fixed 64-bit mixer (splitmix64 finalizer) so affinity does not depend on Python's hash."""
    z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: I64 = (z ^ (z >> np.uint64(31))).astype(np.int64) & np.int64(0x7FFFFFFFFFFFFFFF)
    return out


def assign(router: str, nodes: int, keys: I64, first_block: I64, seed: int = 0) -> I64:
    """Node of each request for a router that ignores cache state."""
    n = keys.shape[0]
    if router == "random":
        return np.asarray(np.random.default_rng(seed).integers(0, nodes, n), dtype=np.int64)
    if router == "round-robin":
        return (np.arange(n, dtype=np.int64) % nodes).astype(np.int64)
    if router in ("session", "cache-key"):
        # Requests without a key go by their first block, as OpenAI routes by the prompt's head.
        k = np.where(keys >= 0, keys, first_block + np.int64(1 << 40))
        return _mix(k) % nodes
    raise UserError(f"router {router!r} needs the cache-aware simulation", where="--router")


def sub_plan(p: Plan, mask_requests: npt.NDArray[np.bool_]) -> tuple[Plan, I64]:
    """The requests of one node, in order, as a plan of their own (node ids kept)."""
    rows = np.flatnonzero(mask_requests).astype(np.int64)
    lengths = p.lengths[rows]
    starts = np.zeros(rows.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    # reference indices of the selected requests, without a Python loop over requests
    refs = np.repeat(p.starts[rows] - starts[:-1], lengths) + np.arange(int(starts[-1]))
    return (
        Plan(
            nodes=p.nodes[refs],
            parent=p.parent,
            tokens=p.tokens[refs],
            starts=starts,
            req=np.repeat(np.arange(rows.shape[0], dtype=np.int64), lengths),
            times=p.times[rows],
            n_nodes=p.n_nodes,
            warmup=int((rows < p.warmup).sum()),
        ),
        rows,
    )


class NodeCache:
    """One node's KV cache: a prefix trie evicted leaf-LRU (the replay's `lru`), with TTL."""

    def __init__(self, size: int, capacity: int | None, parent: list[int], ttl: float | None):
        self.capacity = capacity
        self.parent = parent
        self.ttl = ttl
        self.present = bytearray(size)
        self.present[0] = 1
        self.children = [0] * size
        self.key = [0] * size
        self.version = [0] * size
        self.used = [0.0] * size
        self.guard = [0] * size
        self.depth = [0] * size
        self.heap: list[tuple[int, int, int, int]] = []
        self.expiry: list[tuple[float, int, int, float]] = []
        self.clock = 0
        self.mark = 0
        self.cached = 0

    def expire(self, now: float) -> None:
        while self.expiry and self.expiry[0][0] <= now:
            _, _, x, at = heapq.heappop(self.expiry)
            if self.present[x] and self.used[x] == at and not self.children[x]:
                self._drop(x)

    def peek(self, path: list[int], now: float) -> int:
        """Cached prefix length of `path` (blocks), touching nothing."""
        self.expire(now)
        n = 0
        for x in path:
            if not self.present[x]:
                break
            n += 1
        return n

    def _push(self, x: int) -> None:
        if x and self.present[x] and not self.children[x]:
            self.version[x] += 1
            heapq.heappush(self.heap, (self.key[x], -x, self.version[x], x))

    def _touch(self, x: int, depth: int, now: float) -> None:
        self.clock += 1
        self.key[x] = self.clock
        self.used[x] = now
        self.depth[x] = depth
        self.version[x] += 1
        if self.ttl is not None:
            heapq.heappush(self.expiry, (now + self.ttl, -depth, x, now))
        self._push(x)

    def _drop(self, x: int) -> None:
        self.present[x] = 0
        self.cached -= 1
        q = self.parent[x]
        self.children[q] -= 1
        if q and self.present[q] and not self.children[q]:
            self._push(q)

    def _evict(self) -> bool:
        skipped = []
        ok = False
        while self.heap:
            item = heapq.heappop(self.heap)
            x = item[3]
            if not self.present[x] or self.children[x] or self.version[x] != item[2]:
                continue
            if self.guard[x] == self.mark:
                skipped.append(item)
                continue
            self._drop(x)
            ok = True
            break
        for item in skipped:
            heapq.heappush(self.heap, item)
        return ok

    def serve(self, path: list[int], now: float) -> int:
        """Look `path` up, then insert what is missing; returns the blocks hit."""
        hit = self.peek(path, now)
        for d in range(hit):
            self._touch(path[d], d, now)
        self.mark += 1
        self.guard[0] = self.mark
        for d in range(hit):
            self.guard[path[d]] = self.mark
        cap = self.capacity
        for d in range(hit, len(path)):
            x = path[d]
            if cap is not None and self.cached >= cap and not self._evict():
                break
            if (cap is None or self.cached < cap) and self.present[self.parent[x]]:
                self.present[x] = 1
                self.cached += 1
                self.children[self.parent[x]] += 1
                self._touch(x, d, now)
            else:
                break
        return hit


@dataclass(frozen=True)
class Routed:
    """Outcome of a cache-aware cluster simulation."""

    node: I64
    hit_blocks: I64
    hit_tokens: I64
    fetched_blocks: I64  # blocks copied from another node's cache (ttft router)


def simulate_aware(
    p: Plan,
    *,
    router: str,
    nodes: int,
    capacity: int | None,
    ttl: float | None,
    model: Arch,
    load_threshold: float = 2.0,
    transfer_s_per_block: float = 0.0,
    on_progress: Callable[[int], None] | None = None,
) -> Routed:
    """Route and serve request by request with one cache and one queue per node.

    prefix: the node with the longest cached prefix, unless the queues are unbalanced (the
    longest queue exceeds the shortest by `load_threshold` seconds), then the shortest queue.
    ttft: the node with the lowest queue + prefill of the uncached part, where a node may copy
    a longer prefix from another node at `transfer_s_per_block` (Mooncake's Conductor).
    """
    if router not in ("prefix", "ttft"):
        raise UserError(f"unknown cache-aware router {router!r}", where="--router")
    parent = p.parent.tolist()
    caches = [NodeCache(p.n_nodes + 1, capacity, parent, ttl) for _ in range(nodes)]
    busy = [0.0] * nodes
    served = [0] * nodes
    nodes_list = p.nodes.tolist()
    tok = p.tokens.tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    out_node = np.zeros(p.requests, np.int64)
    out_hb = np.zeros(p.requests, np.int64)
    out_ht = np.zeros(p.requests, np.int64)
    out_fetch = np.zeros(p.requests, np.int64)
    for r in range(p.requests):
        if on_progress is not None and r % 2000 == 0:
            on_progress(r)
        s, e = starts[r], starts[r + 1]
        path = nodes_list[s:e]
        now = times[r]
        cum = [0]
        for t in tok[s:e]:
            cum.append(cum[-1] + t)
        length = cum[-1]
        match = [c.peek(path, now) for c in caches]
        wait = [max(0.0, b - now) for b in busy]
        fetch = 0
        if router == "prefix":
            if max(wait) - min(wait) > load_threshold:
                n = min(range(nodes), key=lambda i: (wait[i], i))
            else:
                # equal matches (a new session on a shared prefix) go to the least busy node
                n = max(range(nodes), key=lambda i: (match[i], -wait[i], -served[i], -i))
        else:
            best = max(match)
            fps = _fps()
            remote_base = float(model.flops(length) - model.flops(cum[best])) / fps
            options = []
            for i in range(nodes):
                local = float(model.flops(length) - model.flops(cum[match[i]])) / fps
                remote = remote_base + (best - match[i]) * transfer_s_per_block
                options.append((wait[i] + min(local, remote), i, remote < local))
            _, n, use_remote = min(options)
            if use_remote:
                fetch = best - match[n]
        hit = caches[n].serve(path, now)
        served[n] += 1
        used = hit + fetch
        out_node[r] = n
        out_hb[r] = used
        out_ht[r] = cum[used]
        out_fetch[r] = fetch
        service = float(prefill_seconds(model, length, cum[used]))
        busy[n] = max(busy[n], now) + service
    return Routed(out_node, out_hb, out_ht, out_fetch)


def _fps() -> float:
    from .models import node_flops_per_s

    return node_flops_per_s()


def queue_ttft(node: I64, arrival: F64, service: F64, nodes: int) -> F64:
    """TTFT of each request on FIFO per-node queues: wait + its own prefill.

    finish_i = S_i + max_{j<=i}(a_j - S_{j-1}) with S the running sum of service times, a
    max-plus scan that numpy does with one cumulative maximum per node.
    """
    ttft = np.zeros(arrival.shape[0], np.float64)
    for n in range(nodes):
        idx = np.flatnonzero(node == n)
        if not idx.shape[0]:
            continue
        a = arrival[idx]
        s = service[idx]
        cs = np.cumsum(s)
        prev = np.concatenate([[0.0], cs[:-1]])
        finish = cs + np.maximum.accumulate(a - prev)
        ttft[idx] = finish - a
    return ttft


def balance(node: I64, weights: F64 | I64, nodes: int) -> float:
    """max / mean of `weights` summed per node (1.0 is perfectly even)."""
    per = np.bincount(node, weights=np.asarray(weights, np.float64), minlength=nodes)
    mean = float(per.mean())
    return float(per.max()) / mean if mean > 0 else 1.0
