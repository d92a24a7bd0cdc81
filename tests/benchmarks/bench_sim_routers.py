"""The cache-aware routers' per-node cache (`cluster.NodeCache`): speed against the previous
implementation, measured in the same run, with identical hits required.

    .venv/bin/python -m pytest tests/benchmarks/bench_sim_routers.py -s     # or
    .venv/bin/python tests/benchmarks/bench_sim_routers.py

The baseline below is the node cache as it was before the speed-up (a heap of leaves per node,
versioned entries), kept here verbatim so the ratio is measured on the same machine in the same
run. The routers (sglang, longest-prefix, ttft) place the requests once; then every request is
looked up and served on its node by both caches, which must find the same hits (and the router's
own). The routing itself changed since (seeded ties, the compute model), so it is not compared.
Trace: Mooncake's conversation_trace.jsonl (12,031 requests) when present,
else the 3,000-request slice shipped in tests/sim/data.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from prefixlock.sim import cluster, engine, models
from prefixlock.sim.engine import Plan
from prefixlock.sim.tracefile import read_trace

ROOT = Path(__file__).resolve().parents[2]

TRACES = [
    ROOT.parent / "shared" / "data" / "mooncake" / "conversation_trace.jsonl",
    ROOT / "tests" / "sim" / "data" / "conversation_head3000.jsonl.gz",
]
CASES = [
    ("sglang", None, None),
    ("longest-prefix", 5000, None),
    ("ttft", None, None),
    ("ttft", 5000, None),
    ("ttft", 5000, 300.0),
]


class HeapNodeCache:
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


def _serve_all(
    cache_cls: type, p: Plan, node: np.ndarray, nodes: int, cap: int | None, ttl: float | None
) -> np.ndarray:
    """Every request through its node's cache, in trace order: the cache work a router does."""
    parent = p.parent.tolist()
    caches = [cache_cls(p.n_nodes + 1, cap, parent, ttl) for _ in range(nodes)]
    ids = p.nodes.tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    where = node.tolist()
    hits = [0] * p.requests
    for r in range(p.requests):
        c = caches[where[r]]
        path = ids[starts[r] : starts[r + 1]]
        c.peek(path, times[r])
        hits[r] = c.serve(path, times[r])
    return np.array(hits, np.int64)


def _best(fn: Callable[[], np.ndarray], runs: int) -> tuple[float, np.ndarray]:
    best = float("inf")
    out = None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    assert out is not None
    return best, out


def run(runs: int = 3) -> list[tuple[str, float, float]]:
    path = next(p for p in TRACES if p.exists())
    trace = read_trace(path)
    p = engine.plan(trace)
    compute = models.Compute.build("llama-3.3-70b").scalar()
    per_block = models.arch("llama-3.3-70b").kv_bytes_per_token("fp8") * trace.block_size / 25e9
    print(f"\n{path.name}: {trace.requests:,} requests on 4 nodes, best of {runs}")
    rows = []
    for router, cap, ttl in CASES:
        routed = cluster.simulate_aware(
            p,
            router=router,
            nodes=4,
            capacity=cap,
            ttl=ttl,
            compute=compute,
            transfer_s_per_block=per_block,
            block_size=trace.block_size,
        )
        t_new, new = _best(
            partial(_serve_all, cluster.NodeCache, p, routed.node, 4, cap, ttl), runs
        )
        t_old, old = _best(partial(_serve_all, HeapNodeCache, p, routed.node, 4, cap, ttl), runs)
        assert np.array_equal(new, old), (router, cap, ttl)
        # the router's own hits (a ttft copy aside) are what the caches served
        assert np.array_equal(routed.hit_blocks - routed.fetched_blocks, new), (router, cap)
        label = f"{router} cap={cap or 'inf'}" + (f" ttl={ttl:g}s" if ttl else "")
        print(
            f"  {label:24s} now {t_new:6.3f} s   before {t_old:6.3f} s   "
            f"{t_old / t_new:4.1f}x faster, identical hits"
        )
        rows.append((label, t_new, t_old))
    return rows


def test_node_cache_faster_than_before_with_identical_results() -> None:
    rows = run()
    # The capacity-bound cases are where the heap did most of its work.
    assert all(old / new > 1.5 for label, new, old in rows if "cap=5000" in label)


def test_compiled_routers_faster_with_identical_results() -> None:
    # sim.routers_jit against the Python loop in the same run, on the same trace and nodes
    from prefixlock.sim import routers_jit

    if not routers_jit.AVAILABLE:
        pytest.skip("numba not installed")
    trace = read_trace(next(p for p in TRACES if p.exists()))
    p = engine.plan(trace)
    compute = models.Compute.build("llama-3.3-70b").scalar()

    def place(router: str, compiled: bool) -> np.ndarray:
        return cluster.simulate_aware(
            p,
            router=router,
            nodes=8,
            capacity=5000,
            ttl=None,
            compute=compute,
            block_size=512,
            compiled=compiled,
        ).node

    place("sglang", True)  # compile or load once
    for router in ("sglang", "ttft"):
        t_loop, loop = _best(partial(place, router, False), 1)
        t_jit, jit = _best(partial(place, router, True), 3)
        assert np.array_equal(loop, jit)
        print(
            f"\n{router}, {trace.requests:,} requests on 8 nodes: loop {t_loop:.2f} s, "
            f"compiled {t_jit:.3f} s ({t_loop / t_jit:.0f}x), identical placement"
        )
        assert t_loop / t_jit > 5


if __name__ == "__main__":
    run()
