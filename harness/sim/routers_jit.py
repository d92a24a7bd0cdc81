"""The cache-aware routers compiled with numba (`pip install 'prefixlock[fast]'`): the same
decisions as `cluster.simulate_aware`, request by request, on arrays instead of Python objects.

Each node's cache (and each of SGLang's approximate trees) is an LRU list threaded through two
arrays indexed by trie node (`nxt`, `prv`; -1: not cached; index 0 the list's sentinel, least
recent first), with the last-use time beside it for the TTL: the `cluster.NodeCache` algorithm
step for step, so results are identical (tests/sim/test_sim_routers_jit.py compares every
output on both Mooncake slices). Each node's prefills in flight are a queue threaded through the
requests. `simulate_aware` uses this module when numba imports and falls back to the Python loop
otherwise.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

# optional: the Python loop in `cluster` is the fallback
AVAILABLE = find_spec("numba") is not None

ROUTER_CODES = {"sglang": 0, "longest-prefix": 1, "ttft": 2, "ttft-local": 3, "least-loaded": 4}


def _jit(fn: Any) -> Any:
    if not AVAILABLE:
        return fn
    import numba

    return numba.njit(cache=True, nogil=True)(fn)


@_jit
def _unlink(nxt: Any, prv: Any, count: Any, c: int, x: int) -> None:
    a, b = prv[c, x], nxt[c, x]
    nxt[c, a] = b
    prv[c, b] = a
    nxt[c, x] = -1
    prv[c, x] = -1
    count[c] -= 1


@_jit
def _append(nxt: Any, prv: Any, used: Any, count: Any, c: int, x: int, now: float) -> None:
    last = prv[c, 0]
    nxt[c, last] = x
    prv[c, x] = last
    nxt[c, x] = 0
    prv[c, 0] = x
    used[c, x] = now
    count[c] += 1


@_jit
def _pop_front(nxt: Any, prv: Any, count: Any, c: int) -> None:
    _unlink(nxt, prv, count, c, nxt[c, 0])


@_jit
def _peek(
    nxt: Any, prv: Any, used: Any, count: Any, c: int, ttl: float, path: Any, now: float
) -> int:
    if ttl > 0:
        while count[c] > 0:
            x = nxt[c, 0]
            if now - used[c, x] < ttl:
                break
            _pop_front(nxt, prv, count, c)
    hi: int = path.shape[0]
    if hi and nxt[c, path[hi - 1]] != -1:
        return hi
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        if nxt[c, path[mid]] != -1:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def _serve(
    nxt: Any,
    prv: Any,
    used: Any,
    count: Any,
    c: int,
    cap: int,
    ttl: float,
    path: Any,
    now: float,
) -> int:
    hit: int = _peek(nxt, prv, used, count, c, ttl, path, now)
    kept = path.shape[0]
    if cap >= 0 and count[c] + kept - hit > cap:
        for d in range(hit):
            _unlink(nxt, prv, count, c, path[d])
        old = count[c]
        kept = hit
        for _d in range(hit, path.shape[0]):
            if old + kept >= cap:
                if old:
                    _pop_front(nxt, prv, count, c)
                    old -= 1
                else:
                    if kept > hit:
                        kept -= 1
                    break
            kept += 1
    else:
        for d in range(hit):
            _unlink(nxt, prv, count, c, path[d])
    for d in range(kept - 1, -1, -1):
        _append(nxt, prv, used, count, c, path[d], now)
    return hit


@_jit
def _below(state: Any, n: int) -> int:
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return int((z ^ (z >> np.uint64(31))) % np.uint64(n))


@_jit
def _pick(cand: Any, k: int, state: Any) -> int:
    chosen: int = cand[0] if k == 1 else cand[_below(state, k)]
    return chosen


@_jit
def _ties(values: Any, target: Any, n: int, cand: Any) -> int:
    """Write the indices i < n with values[i] == target into cand; return how many."""
    k = 0
    for i in range(n):
        if values[i] == target:
            cand[k] = i
            k += 1
    return k


@_jit
def _matches(
    nxt: Any, prv: Any, used: Any, count: Any, n: int, ttl: float, path: Any, now: float, out: Any
) -> None:
    """Each of the first n caches' prefix match of `path` into out."""
    for i in range(n):
        out[i] = _peek(nxt, prv, used, count, i, ttl, path, now)


@_jit
def _seconds(lin: float, pair: float, fixed: float, n: int, c: int) -> float:
    c = min(c, n - 1) if n > 0 else 0
    return fixed + lin * (n - c) + pair * ((n * (n + 1) - c * (c + 1)) / 2.0)


@_jit
def _finish(
    nxt: Any,
    prv: Any,
    used: Any,
    count: Any,
    n: int,
    cap: int,
    ttl: float,
    until: float,
    phead: Any,
    qnext: Any,
    fin: Any,
    nodes: Any,
    starts: Any,
) -> None:
    j = phead[n]
    while j >= 0 and fin[j] <= until:
        _serve(nxt, prv, used, count, n, cap, ttl, nodes[starts[j] : starts[j + 1]], fin[j])
        j = qnext[j]
    phead[n] = j


@_jit
def _route(
    router: int,
    n_nodes_cluster: int,
    nodes: Any,
    starts: Any,
    ctok: Any,
    times: Any,
    n_blocks: int,
    cap: int,
    ttl: float,
    lin: float,
    pair: float,
    fixed: float,
    load_threshold: float,
    tps: float,
    seed: int,
    cache_threshold: float,
    abs_thr: int,
    rel_thr: float,
    interval: float,
    tree_cap: int,
    out_node: Any,
    out_hb: Any,
    out_ht: Any,
    out_fetch: Any,
) -> None:
    N = n_nodes_cluster
    R = starts.shape[0] - 1
    trees = router == 0
    caches_n = 2 * N if trees else N
    nxt = np.full((caches_n, n_blocks + 1), -1, np.int32)
    prv = np.full((caches_n, n_blocks + 1), -1, np.int32)
    for c in range(caches_n):
        nxt[c, 0] = 0
        prv[c, 0] = 0
    used = np.zeros((caches_n, n_blocks + 1), np.float64)
    count = np.zeros(caches_n, np.int64)
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    busy = np.zeros(N, np.float64)
    # each node's requests in FIFO order, threaded through qnext; two heads walk it: the
    # prefills not yet in the cache (phead) and those still in flight for the load (ihead)
    qnext = np.full(R, -1, np.int64)
    qtail = np.full(N, -1, np.int64)
    phead = np.full(N, -1, np.int64)
    ihead = np.full(N, -1, np.int64)
    inflight = np.zeros(N, np.int64)
    fin = np.zeros(R, np.float64)
    cand = np.zeros(N, np.int64)
    match = np.zeros(N, np.int64)
    wait = np.zeros(N, np.float64)
    rate = np.zeros(N, np.float64)
    cost = np.zeros(N, np.float64)
    remote_better = np.zeros(N, np.bool_)
    first_time = times[0] if R > 0 else 0.0
    next_evict = interval
    for r in range(R):
        s, e = starts[r], starts[r + 1]
        path = nodes[s:e]
        now = times[r]
        base = ctok[s]
        length = ctok[e] - base
        for i in range(N):
            _finish(nxt, prv, used, count, i, cap, ttl, now, phead, qnext, fin, nodes, starts)
        for i in range(N):
            wait[i] = busy[i] - now if busy[i] > now else 0.0
        fetch = 0
        n = 0
        if router == 0:
            for i in range(N):
                j = ihead[i]
                while j >= 0 and fin[j] <= now:
                    j = qnext[j]
                    inflight[i] -= 1
                ihead[i] = j
            hi_load = inflight.max()
            lo_load = inflight.min()
            if now - first_time >= next_evict:
                for i in range(N):
                    while count[N + i] > tree_cap:
                        _pop_front(nxt, prv, count, N + i)
                next_evict += interval * (1 + int((now - first_time - next_evict) // interval))
            if hi_load - lo_load > abs_thr and hi_load > rel_thr * lo_load:
                n = _pick(cand, _ties(inflight, lo_load, N, cand), state)
            else:
                best = -1.0
                for i in range(N):
                    h = _peek(nxt, prv, used, count, N + i, 0.0, path, now)
                    rate[i] = (ctok[s + h] - base) / length if length else 0.0
                    if rate[i] > best:
                        best = rate[i]
                if best > cache_threshold:
                    k = _ties(rate, best, N, cand)
                else:
                    trees_size = count[N:]
                    k = _ties(trees_size, trees_size.min(), N, cand)
                least = inflight[cand[0]]
                for q in range(k):
                    if inflight[cand[q]] < least:
                        least = inflight[cand[q]]
                k2 = 0
                for q in range(k):
                    if inflight[cand[q]] == least:
                        cand[k2] = cand[q]
                        k2 += 1
                n = _pick(cand, k2, state)
            _serve(nxt, prv, used, count, N + n, -1, 0.0, path, now)
        elif router == 1:
            _matches(nxt, prv, used, count, N, ttl, path, now, match)
            if wait.max() - wait.min() > load_threshold:
                n = _pick(cand, _ties(wait, wait.min(), N, cand), state)
            else:
                best_m = match.max()
                lw = np.inf
                for i in range(N):
                    if match[i] == best_m and wait[i] < lw:
                        lw = wait[i]
                k = 0
                for i in range(N):
                    if match[i] == best_m and wait[i] == lw:
                        cand[k] = i
                        k += 1
                n = _pick(cand, k, state)
        elif router == 4:
            n = _pick(cand, _ties(wait, wait.min(), N, cand), state)
        else:
            _matches(nxt, prv, used, count, N, ttl, path, now, match)
            best_m = match.max()
            remote_base = _seconds(lin, pair, fixed, length, ctok[s + best_m] - base)
            low = np.inf
            for i in range(N):
                local = _seconds(lin, pair, fixed, length, ctok[s + match[i]] - base)
                if router == 3:  # no copies between nodes
                    cost[i] = wait[i] + local
                    remote_better[i] = False
                else:
                    remote = max(remote_base, (best_m - match[i]) * tps)
                    cost[i] = wait[i] + min(local, remote)
                    remote_better[i] = remote < local
                if cost[i] < low:
                    low = cost[i]
            n = _pick(cand, _ties(cost, low, N, cand), state)
            if remote_better[n]:
                fetch = best_m - match[n]
        start = busy[n] if busy[n] > now else now
        _finish(nxt, prv, used, count, n, cap, ttl, start, phead, qnext, fin, nodes, starts)
        hit = _peek(nxt, prv, used, count, n, ttl, path, start)
        if fetch:
            fetch = max(0, fetch - max(0, hit - match[n]))
        u = hit + fetch
        out_node[r] = n
        out_hb[r] = u
        out_ht[r] = ctok[s + u] - base
        out_fetch[r] = fetch
        service = _seconds(lin, pair, fixed, length, ctok[s + u] - base)
        if fetch:
            service = max(service, fetch * tps)
        busy[n] = start + service
        fin[r] = busy[n]
        inflight[n] += 1
        if qtail[n] >= 0:
            qnext[qtail[n]] = r
        qtail[n] = r
        if phead[n] < 0:
            phead[n] = r
        if ihead[n] < 0:
            ihead[n] = r


def route(
    router: str,
    nodes: I64,
    starts: I64,
    tokens: I64,
    times: F64,
    n_blocks: int,
    n_nodes_cluster: int,
    capacity: int | None,
    ttl: float | None,
    compute: tuple[float, ...],
    load_threshold: float,
    transfer_s_per_block: float,
    seed: int,
    cache_threshold: float,
    balance_abs_threshold: int,
    balance_rel_threshold: float,
    eviction_interval_s: float,
    tree_cap: int,
) -> tuple[I64, I64, I64, I64]:
    """(node, hit blocks, hit tokens, fetched blocks) of every request: `cluster.simulate_aware`
    compiled."""
    R = int(starts.shape[0] - 1)
    ctok = np.zeros(tokens.shape[0] + 1, np.int64)
    np.cumsum(tokens, out=ctok[1:])
    out = [np.zeros(R, np.int64) for _ in range(4)]
    lin, pair = float(compute[0]), float(compute[1])
    fixed = float(compute[2]) if len(compute) > 2 else 0.0
    _route(
        ROUTER_CODES[router],
        n_nodes_cluster,
        np.ascontiguousarray(nodes, np.int64),
        np.ascontiguousarray(starts, np.int64),
        ctok,
        np.ascontiguousarray(times, np.float64),
        n_blocks,
        -1 if capacity is None else int(capacity),
        0.0 if ttl is None else float(ttl),
        lin,
        pair,
        fixed,
        float(load_threshold),
        float(transfer_s_per_block),
        int(seed),
        float(cache_threshold),
        int(balance_abs_threshold),
        float(balance_rel_threshold),
        float(eviction_interval_s),
        int(tree_cap),
        *out,
    )
    return out[0], out[1], out[2], out[3]
