"""Many configurations' LRU curves in one array job: `engine.sweep_curves`.

Each configuration is a group of node streams (plans) and a TTL; the result has one row per
configuration with the measured hit tokens at every per-node capacity, summed over its nodes.
On numpy that is one rank pass and a bincount per stream; on cupy (`--backend cupy`, or auto on
a large trace) the whole batch runs on the GPU and comes back in one copy. Here: 1, 2 and 4
round-robin nodes with and without a 5-minute TTL over the first 3,000 requests of Mooncake's
conversation trace (shipped with the tests, Apache-2.0).

`engine.sweep_assigned` takes the routing instead of the streams (the node of every request):
on a GPU the trace stays on the device (`engine.resident`) and the streams are cut there, so a
batch sends one integer a request. It gives the same rows. Given `cluster.Route`s (router, node
count, seed) instead, it draws the routing itself where the arrays live (`cluster.route`), so
only the routes travel: here 4 random and 4 session-affine configurations of 8 nodes, equal to
the same routes drawn on the host and swept from their node arrays.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from prefixlock.sim import cluster, engine
from prefixlock.sim.backend import get_backend
from prefixlock.sim.tracefile import read_trace

TRACE = Path(__file__).resolve().parent.parent / "tests/sim/data/conversation_head3000.jsonl.gz"


def main() -> None:
    trace = read_trace(TRACE)
    base = engine.plan(trace)
    groups: list[list[engine.Plan]] = []
    ttls: list[float | None] = []
    labels = []
    for nodes in (1, 2, 4):
        node = np.arange(base.requests) % nodes
        streams = [cluster.sub_plan(base, node == i)[0] for i in range(nodes)]
        for ttl in (None, 300.0):
            groups.append(streams)
            ttls.append(ttl)
            labels.append(f"{nodes} node(s), TTL {'none' if ttl is None else f'{ttl:g} s'}")
    backend = get_backend("auto", references=base.references * len(groups))
    curves = engine.sweep_curves(groups, ttls, base.n_nodes, backend)
    measured = int(base.tokens[base.req >= base.warmup].sum())
    caps = (1000, 5000, 20000)
    print(f"{trace.name}: {len(groups)} configurations on {backend.name}")
    print(f"{'configuration':>24}" + "".join(f"{f'{c:,} blocks':>14}" for c in caps))
    for label, row in zip(labels, curves, strict=True):
        print(f"{label:>24}" + "".join(f"{row[c - 1] / measured:14.2%}" for c in caps))
    routes = [np.arange(base.requests) % n for n in (1, 2, 4) for _ in (None, 300.0)]
    base_on = engine.resident(base, backend) if backend.device else base
    same = engine.sweep_assigned(base_on, routes, ttls, base.n_nodes, backend)
    verdict = "same rows" if np.array_equal(same, curves) else "DIFFERENT"
    print(f"sweep_assigned on the routing alone: {verdict}")

    keys = np.arange(base.requests, dtype=np.int64) // 8  # pseudo-sessions of 8 requests
    drawn = [cluster.Route("random", 8, seed=s) for s in range(4)] + [
        cluster.Route("session", 8)
    ] * 4
    ttls8: list[float | None] = [None, 300.0] * 4
    on = engine.resident(base, backend, keys) if backend.device else base
    rows = engine.sweep_assigned(on, drawn, ttls8, base.n_nodes, backend, keys=keys)
    host = cluster.route(np, drawn, base.requests, keys).astype(np.int64)
    want = engine.sweep_assigned(base, list(host), ttls8, base.n_nodes)
    verdict = "same rows" if np.array_equal(rows, want) else "DIFFERENT"
    print(f"8 routes drawn by the engine ({backend.name}) vs drawn on the host: {verdict}")
    for r, ttl, row in zip(drawn[::3], ttls8[::3], rows[::3], strict=True):
        label = f"8 x {r.router} (seed {r.seed}), TTL {'none' if ttl is None else f'{ttl:g} s'}"
        print(f"{label:>38}: {row[4999] / measured:.2%} at 5,000 blocks per node")


if __name__ == "__main__":
    main()
