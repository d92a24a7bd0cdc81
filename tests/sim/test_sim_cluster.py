"""Routers and load balance: every hit rate comes with how evenly the nodes were loaded."""

from __future__ import annotations

import numpy as np

from prefixlock.sim import cluster, engine
from prefixlock.sim.cluster import NodeCache
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.synthetic import Workload, generate
from prefixlock.sim.trace import Trace


def test_affinity_without_keys_is_dealt_round_robin_and_says_so(conversation: Trace) -> None:
    # Every Mooncake conversation request starts with block 0 and carries no session: affinity
    # by the prompt's head would send them all to one node (the one-node answer, silently).
    # Keyless requests are dealt round-robin instead, and the result names the router used.
    r = simulate(conversation.head(600), SimConfig(capacity=2000, nodes=4, router="cache-key"))
    rr = simulate(conversation.head(600), SimConfig(capacity=2000, nodes=4, router="round-robin"))
    assert r.router_used == "round-robin" and "no cache key or session id" in r.notes[0]
    assert r.load_max_mean_requests == rr.load_max_mean_requests == 1.0
    assert r.ttft_mean_s == rr.ttft_mean_s


def test_session_affinity_beats_random_on_agent_sessions() -> None:
    trace = generate(Workload(sessions=24, turns=8, seed=3))
    aff = simulate(trace, SimConfig(capacity=4000, nodes=4, router="session", warmup=0.0))
    rnd = simulate(trace, SimConfig(capacity=4000, nodes=4, router="random", warmup=0.0))
    pre = simulate(trace, SimConfig(capacity=4000, nodes=4, router="sglang", warmup=0.0))
    assert aff.hit_rate_tokens > rnd.hit_rate_tokens + 0.1
    assert pre.hit_rate_tokens > rnd.hit_rate_tokens + 0.1
    for r in (aff, rnd, pre):
        assert 1.0 <= r.load_max_mean_requests <= 4.0


def test_ttft_router_balances_and_reuses(conversation: Trace) -> None:
    t = conversation.head(800)
    ttft = simulate(t, SimConfig(capacity=3000, nodes=4, router="ttft"))
    rr = simulate(t, SimConfig(capacity=3000, nodes=4, router="round-robin"))
    assert ttft.load_max_mean_requests < 1.3
    assert ttft.hit_rate_tokens > rr.hit_rate_tokens + 0.05
    assert ttft.ttft_mean_s < rr.ttft_mean_s


def test_sequential_node_cache_equals_vectorized_path(synthetic: Trace) -> None:
    # Round-robin through NodeCache (the cache-aware routers' engine) must match the one-pass
    # ranks that stateless routers use.
    p = engine.plan(synthetic.head(500))
    node = cluster.assign("round-robin", 3, np.full(p.requests, -1), np.zeros(p.requests, np.int64))
    caches = [NodeCache(p.n_nodes + 1, 700, p.parent.tolist(), None) for _ in range(3)]
    seq = np.array(
        [
            caches[int(node[r])].serve(
                p.nodes[p.starts[r] : p.starts[r + 1]].tolist(), float(p.times[r])
            )
            for r in range(p.requests)
        ]
    )
    vec = np.zeros(p.requests, np.int64)
    for n in range(3):
        sub, rows = cluster.sub_plan(p, node == n)
        rank, _ = engine.stack_ranks(sub)
        vec[rows] = engine.request_hits(sub, rank, 700)[0]
    assert np.array_equal(seq, vec)


def test_queue_ttft_is_the_fifo_recurrence() -> None:
    node = np.array([0, 0, 1, 0])
    arrival = np.array([0.0, 1.0, 1.0, 10.0])
    service = np.array([3.0, 2.0, 1.0, 1.0])
    # node 0: finishes 3, then 5 (waited 2), then 11; node 1 finishes at 2
    assert cluster.queue_ttft(node, arrival, service, 2).tolist() == [3.0, 4.0, 1.0, 1.0]
    assert cluster.balance(node, np.ones(4), 2) == 1.5
