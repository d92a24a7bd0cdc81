"""A cluster of N cache nodes and the routers that pick a node for each request.

Routers that ignore cache state (random, round-robin, session affinity, cache-key affinity) only
assign requests, and each node's stream then goes through the single-node engine (the one-pass
LRU ranks or a replay). Routers that look at cache state (SGLang's cache-aware router on its
approximate trees; this simulator's longest-prefix heuristic; lowest estimated TTFT, as
Mooncake's Conductor) are simulated request by request with one `NodeCache` per node and a FIFO
queue per node; their ties go by load, then to a seeded random draw. All of it is pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import UserError
from .engine import Plan
from .models import seconds

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

ROUTERS = (
    "random",
    "round-robin",
    "session",
    "cache-key",
    "least-loaded",
    "sglang",
    "longest-prefix",
    "ttft",
    "ttft-local",
)
STATELESS = ("random", "round-robin", "session", "cache-key")
# routed request by request: each choice reads the caches or the queues the earlier ones left
AWARE = ("least-loaded", "sglang", "longest-prefix", "ttft", "ttft-local")


def _mix(x: I64) -> I64:
    """A fixed 64-bit mixer (splitmix64 finalizer) so affinity does not depend on Python's hash."""
    z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: I64 = (z ^ (z >> np.uint64(31))).astype(np.int64) & np.int64(0x7FFFFFFFFFFFFFFF)
    return out


def assign(router: str, nodes: int, keys: I64, first_block: I64, seed: int = 0) -> I64:
    """Node of each request for a router that ignores cache state.

    session / cache-key: a request with a key goes to the node its key hashes to; requests
    without one are dealt round-robin among themselves. Hashing them by their first block (as a
    provider does by the prompt's head) sends every Mooncake conversation request, all of which
    start with block 0, to one node and silently gives the one-node answer. `first_block` is kept
    for the old signature."""
    del first_block
    n = keys.shape[0]
    if router == "random":
        return np.asarray(np.random.default_rng(seed).integers(0, nodes, n), dtype=np.int64)
    if router == "round-robin":
        return (np.arange(n, dtype=np.int64) % nodes).astype(np.int64)
    if router in ("session", "cache-key"):
        keyed = keys >= 0
        out = _mix(np.where(keyed, keys, 0)) % nodes
        loose = np.flatnonzero(~keyed)
        out[loose] = np.arange(loose.shape[0], dtype=np.int64) % nodes
        return out.astype(np.int64)
    raise UserError(f"router {router!r} needs the cache-aware simulation", where="--router")


@dataclass(frozen=True)
class Route:
    """A stateless router's configuration, routed where the sweep's arrays live (`route`): on a
    GPU the nodes of every request are drawn on the device, so only these three values travel.

    `random` here draws each request's node from a counter-based hash (splitmix64 of the seed
    and the request's index), which a device computes for every request at once; those draws
    differ from `assign`'s (numpy's PCG64 stream), with the same distribution."""

    router: str
    nodes: int
    seed: int = 0

    def __post_init__(self) -> None:
        if self.router not in STATELESS:
            raise UserError(
                f"router {self.router!r} needs the cache-aware simulation", where="--router"
            )
        if self.nodes < 1:
            raise UserError("a route needs at least one node", where="--nodes")


def route(xp: Any, routes: Sequence[Route], requests: int, keys: Any | None = None) -> Any:
    """The node of every request under each route, as one (len(routes), requests) int32 array
    of module `xp` (numpy, cupy), with every shape fixed: round-robin, session and cache-key
    give what `assign` gives; random gives `Route`'s counter-based draws. `keys`: the session or
    cache key of each request (-1: none), an array of `xp`; without it every request is keyless.
    Each router kind is computed for its rows at once."""
    G = len(routes)
    out = xp.zeros((G, requests), dtype=np.int32)
    if G == 0 or requests == 0:
        return out
    i = xp.arange(requests, dtype=np.int64)[None, :]
    for kind in ("round-robin", "random", "session"):
        rows = [
            g
            for g, r in enumerate(routes)
            if (r.router == "cache-key" and kind == "session") or r.router == kind
        ]
        if not rows:
            continue
        n = xp.asarray(np.array([routes[g].nodes for g in rows], np.int64))[:, None]
        if kind == "round-robin":
            block = i % n
        elif kind == "random":
            seeds = np.array([routes[g].seed for g in rows], np.int64)
            salt = xp.asarray(_mix(seeds))[:, None]
            block = _mix(i ^ salt) % n
        else:
            if keys is None:
                block = i % n
            else:
                keyed = keys >= 0
                loose = xp.cumsum(xp.where(keyed, 0, 1), dtype=np.int64) - 1  # among keyless
                block = xp.where(
                    keyed[None, :], _mix(xp.where(keyed, keys, 0))[None, :] % n, loose[None, :] % n
                )
        out[xp.asarray(np.array(rows, np.int64))] = block.astype(np.int32)
    return out


def keyed_router_note(router: str, keys: I64) -> tuple[str, str]:
    """The router a session-keyed choice really amounts to on these keys, and why.

    Mooncake traces carry no session ids: a session router would have nothing to be sticky on."""
    n = int(keys.shape[0])
    missing = int((keys < 0).sum())
    what = "session id" if router == "session" else "cache key or session id"
    if n and missing == n:
        return (
            "round-robin",
            f"router {router}: the trace has no {what} on any request, so the requests were "
            "dealt round-robin (hashing them by their first block would put every request "
            "that starts alike on one node)",
        )
    if missing:
        return (
            router,
            f"router {router}: {missing:,} of {n:,} requests have no {what}; those were dealt "
            "round-robin",
        )
    return router, f"router {router}: every request carries a {what}"


@dataclass(frozen=True)
class Load:
    """How hard each node worked over the measurement window, and whether its queue kept up."""

    utilisation: list[float]  # busy seconds / window seconds, per node (1.0: never idle)
    queue_growth: list[float]  # seconds of queueing added per second of trace, per node
    window_s: float

    @property
    def max_utilisation(self) -> float:
        return max(self.utilisation) if self.utilisation else 0.0

    @property
    def max_queue_growth(self) -> float:
        return max(self.queue_growth) if self.queue_growth else 0.0

    @property
    def overloaded(self) -> bool:
        """Arrivals outpace service: a node would need more than all of its time."""
        return self.max_utilisation > 1.0

    def warning(self, nodes: int) -> str | None:
        if not self.overloaded:
            return None
        worst = int(np.argmax(self.utilisation))
        return (
            f"overloaded: requests arrive faster than the cluster serves them; node {worst} of "
            f"{nodes} needs {self.utilisation[worst]:.1f}x its prefill capacity and its queue "
            f"grows {self.queue_growth[worst]:.2f} s per second of trace, so the TTFT figures "
            "measure a backlog that never drains, not a serving latency; add nodes "
            "(--nodes auto) or cache more"
        )


def load(node: I64, arrival: F64, service: F64, ttft: F64, nodes: int, first: int) -> Load:
    """Per-node utilisation and queue growth over the requests from index `first` on.

    Utilisation: each node's service seconds over the window's span (first to last arrival).
    Queue growth: the mean wait of a node's last tenth of requests minus that of its first
    tenth, over the time between them; about 0 on a stable queue, utilisation - 1 on an
    overloaded one."""
    a = arrival[first:]
    if a.shape[0] < 2:
        return Load([0.0] * nodes, [0.0] * nodes, 0.0)
    window = float(a[-1] - a[0])
    nd = node[first:]
    busy = np.bincount(nd, weights=service[first:], minlength=nodes)
    util = (busy / window).tolist() if window > 0 else [0.0] * nodes
    wait = (ttft - service)[first:]
    growth = []
    for n in range(nodes):
        idx = np.flatnonzero(nd == n)
        k = idx.shape[0] // 10
        if k == 0:
            growth.append(0.0)
            continue
        head, tail = idx[:k], idx[-k:]
        span = float(a[tail].mean() - a[head].mean())
        growth.append(float(wait[tail].mean() - wait[head].mean()) / span if span > 0 else 0.0)
    return Load([float(u) for u in util], growth, window)


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
    """One node's KV cache: a prefix trie evicted leaf-LRU (the replay's `lru`), with TTL.

    Kept as one recency list (an OrderedDict, least recent first) in which a request
    reads its blocks deepest first, so a parent is always more recent than its children and the
    least recent block is a leaf: popping the front is leaf-LRU eviction (the argument of
    `engine`'s module docstring). While a request inserts, its own cached blocks are protected;
    when nothing older is left to evict, the only unprotected leaf is the block it inserted last,
    which goes, and the insertion stops there (the replay's C - 1 case). `size` and `parent` are
    accepted for the old signature; a request's blocks are a chain of the trie, so each block's
    parent is the block before it.
    """

    def __init__(
        self, size: int, capacity: int | None, parent: list[int], ttl: float | None
    ) -> None:
        del size, parent
        self.capacity = capacity
        self.ttl = ttl
        # block -> last use, least recent first (OrderedDict: popping the front is O(1), where a
        # plain dict would scan past the slots its earlier deletions left there)
        self.used: OrderedDict[int, float] = OrderedDict()

    @property
    def cached(self) -> int:
        return len(self.used)

    def expire(self, now: float) -> None:
        if self.ttl is None:
            return
        # Uses only move forward in time, so the expired blocks are a run at the front. Live
        # means idle for less than the TTL, as in `engine.effective_ranks`.
        used = self.used
        ttl = self.ttl
        while used:
            x = next(iter(used))
            if now - used[x] < ttl:
                break
            used.popitem(last=False)

    def trim(self, blocks: int) -> None:
        """Evict least recently used leaves until at most `blocks` remain (the recency order
        keeps a parent more recent than its children, so the front is always a leaf)."""
        used = self.used
        while len(used) > blocks:
            used.popitem(last=False)

    def peek(self, path: list[int], now: float) -> int:
        """Cached prefix length of `path` (blocks), touching nothing."""
        self.expire(now)
        used = self.used
        # The cached set is closed under parents and path[k]'s parent is path[k - 1], so the
        # cached blocks of a path are a prefix of it: bisect for its end.
        lo, hi = 0, len(path)
        if hi and path[-1] in used:
            return hi
        while lo < hi:
            mid = (lo + hi) // 2
            if path[mid] in used:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def serve(self, path: list[int], now: float) -> int:
        """Look `path` up, then insert what is missing; returns the blocks hit."""
        hit = self.peek(path, now)
        used = self.used
        cap = self.capacity
        kept = len(path)
        if cap is not None and len(used) + kept - hit > cap:
            # Blocks older than this request go first, least recent first; the request's hits
            # are protected (they are not among the `old` ones).
            for x in path[:hit]:
                del used[x]
            old = len(used)
            kept = hit
            for _d in range(hit, len(path)):
                if old + kept >= cap:
                    if old:
                        used.popitem(last=False)
                        old -= 1
                    else:
                        if kept > hit:  # the last block inserted is the only leaf left to evict
                            kept -= 1
                        break
                kept += 1
        else:
            for x in path[:hit]:
                del used[x]
        # Re-append the request's cached blocks deepest first: the shallowest is the most recent.
        for d in range(kept - 1, -1, -1):
            used[path[d]] = now
        return hit


@dataclass(frozen=True)
class Routed:
    """Outcome of a cache-aware cluster simulation."""

    node: I64
    hit_blocks: I64
    hit_tokens: I64
    fetched_blocks: I64  # blocks copied from another node's cache (ttft router)


@dataclass(frozen=True)
class SGLang:
    """The knobs of SGLang's cache-aware router (sgl-router / SGLang Model Gateway), with the
    defaults its documentation gives (docs.sglang.ai/advanced_features/router.html, read
    2026-12-02): route by an approximate radix tree of what each worker was sent, unless the
    load (in-flight requests) is imbalanced by both the absolute and the relative threshold."""

    cache_threshold: float = 0.5  # least prefix match rate that routes to the best-matching worker
    balance_abs_threshold: int = 32  # in-flight requests
    balance_rel_threshold: float = 1.0001
    eviction_interval_s: float = 60.0
    # The router's trees hold text, 2**24 characters each by default: about 2**22 tokens at
    # four characters a token.
    max_tree_tokens: int = 2**22


_M64 = (1 << 64) - 1


class TieBreak:
    """The seeded draws that break ties between equally good nodes: splitmix64 on a counter, so
    the compiled routers (`routers_jit`) draw exactly the same numbers."""

    def __init__(self, seed: int) -> None:
        self.state: int = (seed * 0x9E3779B97F4A7C15) & _M64

    def below(self, n: int) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return (z ^ (z >> 31)) % n


def _pick(candidates: list[int], rng: TieBreak) -> int:
    """One of equally good nodes, drawn with the run's seeded generator (never node 0 first)."""
    return candidates[0] if len(candidates) == 1 else candidates[rng.below(len(candidates))]


def simulate_aware(
    p: Plan,
    *,
    router: str,
    nodes: int,
    capacity: int | None,
    ttl: float | None,
    compute: tuple[float, ...],
    load_threshold: float = 2.0,
    transfer_s_per_block: float = 0.0,
    seed: int = 0,
    sglang: SGLang | None = None,
    block_size: int = 1,
    on_progress: Callable[[int], None] | None = None,
    compiled: bool | None = None,
) -> Routed:
    """Route and serve request by request with one cache and one FIFO queue per node.

    `compiled`: run `routers_jit` (numba) instead of this loop, with identical results; None
    uses it when numba imports.

    `compute`: `models.Compute.scalar()`, the prefill seconds model. Every tie between nodes is
    broken by load (queue seconds, or in-flight requests for sglang) and then at random with
    `seed`.

    longest-prefix (a heuristic of this simulator, not any engine's policy): the node whose cache
    really holds the longest prefix, unless the queues differ by more than `load_threshold`
    seconds, then the shortest queue. It reads the caches themselves, which no router can.
    sglang: SGLang's cache-aware router, see `SGLang`; it reads only its own approximate trees.
    ttft: the node with the lowest queue + prefill of the uncached part, where a node may copy a
    longer prefix from another node at `transfer_s_per_block`, overlapped with compute
    (Mooncake's Conductor, its "global cache-aware" scheduling). ttft-local: the same without
    copies (Mooncake's "local cache-aware" scheduling, §4.1). least-loaded: the shortest queue,
    caches ignored (Mooncake's "load-balancing" scheduling).

    A request's blocks enter its node's cache when its prefill finishes, as in vLLM and SGLang
    (a block is reusable once its KV is computed), and its hit is matched when its prefill
    starts (the engines match a waiting request when they schedule it): a router that reads the
    caches sees only finished prefills, and a request queued behind one with the same prefix on
    its node finds that prefix. The router's own view (SGLang's approximate trees) is updated
    when it routes, as sgl-router does.
    """
    if router not in AWARE:
        raise UserError(f"unknown cache-aware router {router!r}", where="--router")
    sg = sglang or SGLang()
    tree_cap = max(1, sg.max_tree_tokens // max(block_size, 1))
    from . import routers_jit

    if compiled is None:
        compiled = routers_jit.AVAILABLE
    if compiled:
        if not routers_jit.AVAILABLE:
            raise UserError(
                "the compiled routers need numba: pip install 'prefixlock[fast]'", where="--router"
            )
        node, hb, ht, fetched = routers_jit.route(
            router,
            p.nodes,
            p.starts,
            p.tokens,
            p.times,
            p.n_nodes,
            nodes,
            capacity,
            ttl,
            compute,
            load_threshold,
            transfer_s_per_block,
            seed,
            sg.cache_threshold,
            sg.balance_abs_threshold,
            sg.balance_rel_threshold,
            sg.eviction_interval_s,
            tree_cap,
        )
        if on_progress is not None:
            on_progress(p.requests)
        return Routed(node, hb, ht, fetched)
    rng = TieBreak(seed)
    parent = p.parent.tolist()
    caches = [NodeCache(p.n_nodes + 1, capacity, parent, ttl) for _ in range(nodes)]
    trees = [NodeCache(p.n_nodes + 1, None, parent, None) for _ in range(nodes)]
    next_evict = sg.eviction_interval_s
    inflight: list[deque[float]] = [deque() for _ in range(nodes)]
    busy = [0.0] * nodes
    nodes_list = p.nodes.tolist()
    ctok = np.concatenate([np.zeros(1, np.int64), np.cumsum(p.tokens, dtype=np.int64)]).tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    out_node = [0] * p.requests
    out_hb = [0] * p.requests
    out_ht = [0] * p.requests
    out_fetch = [0] * p.requests
    order = range(nodes)
    first_time = times[0] if times else 0.0
    # each node's prefills under way, in finish order (FIFO): (finish time, blocks)
    pending: list[deque[tuple[float, list[int]]]] = [deque() for _ in range(nodes)]

    def finish(n: int, until: float) -> None:
        q, cache = pending[n], caches[n]
        while q and q[0][0] <= until:
            done, dpath = q.popleft()
            cache.serve(dpath, done)

    for r in range(p.requests):
        if on_progress is not None and r % 2000 == 0:
            on_progress(r)
        s, e = starts[r], starts[r + 1]
        path = nodes_list[s:e]
        now = times[r]
        for i in order:
            finish(i, now)
        base = ctok[s]
        cum = [c - base for c in ctok[s : e + 1]]  # tokens in the first k blocks
        length = cum[-1]
        wait = [b - now if b > now else 0.0 for b in busy]
        fetch = 0
        if router == "sglang":
            for q in inflight:
                while q and q[0] <= now:
                    q.popleft()
            load = [len(q) for q in inflight]
            hi_load, lo_load = max(load), min(load)
            if now - first_time >= next_evict:
                for t in trees:
                    t.trim(tree_cap)
                next_evict += sg.eviction_interval_s * (
                    1 + int((now - first_time - next_evict) // sg.eviction_interval_s)
                )
            if hi_load - lo_load > sg.balance_abs_threshold and hi_load > (
                sg.balance_rel_threshold * lo_load
            ):
                n = _pick([i for i in order if load[i] == lo_load], rng)
            else:
                rate = [cum[t.peek(path, now)] / length if length else 0.0 for t in trees]
                best = max(rate)
                if best > sg.cache_threshold:
                    pool = [i for i in order if rate[i] == best]
                else:
                    smallest = min(t.cached for t in trees)
                    pool = [i for i in order if trees[i].cached == smallest]
                least = min(load[i] for i in pool)
                n = _pick([i for i in pool if load[i] == least], rng)
            trees[n].serve(path, now)
        elif router == "longest-prefix":
            match = [c.peek(path, now) for c in caches]
            if max(wait) - min(wait) > load_threshold:
                least_wait = min(wait)
                n = _pick([i for i in order if wait[i] == least_wait], rng)
            else:
                best_m = max(match)
                pool = [i for i in order if match[i] == best_m]
                least_wait = min(wait[i] for i in pool)
                n = _pick([i for i in pool if wait[i] == least_wait], rng)
        elif router == "least-loaded":
            least_wait = min(wait)
            n = _pick([i for i in order if wait[i] == least_wait], rng)
        else:
            match = [c.peek(path, now) for c in caches]
            best_m = max(match)
            remote_base = seconds(compute, length, cum[best_m])
            cost = []
            for i in order:
                local = seconds(compute, length, cum[match[i]])
                if router == "ttft-local":  # no copies between nodes
                    cost.append((wait[i] + local, False))
                    continue
                # the copy overlaps with computing the rest (layer by layer)
                remote = max(remote_base, (best_m - match[i]) * transfer_s_per_block)
                cost.append((wait[i] + min(local, remote), remote < local))
            low = min(c for c, _ in cost)
            n = _pick([i for i in order if cost[i][0] == low], rng)
            if cost[n][1]:
                fetch = best_m - match[n]
        # matched when its prefill starts, after every earlier prefill on its node finished
        start = busy[n] if busy[n] > now else now
        finish(n, start)
        hit = caches[n].peek(path, start)
        if fetch:
            fetch = max(0, fetch - max(0, hit - match[n]))
        used = hit + fetch
        out_node[r] = n
        out_hb[r] = used
        out_ht[r] = cum[used]
        out_fetch[r] = fetch
        service = seconds(compute, length, cum[used])
        if fetch:
            service = max(service, fetch * transfer_s_per_block)
        busy[n] = start + service
        inflight[n].append(busy[n])
        pending[n].append((busy[n], path))
    return Routed(
        np.array(out_node, np.int64),
        np.array(out_hb, np.int64),
        np.array(out_ht, np.int64),
        np.array(out_fetch, np.int64),
    )


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
