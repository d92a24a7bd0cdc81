"""Replay policies beyond parity: LFU keeps what is used often, TTLs expire, optimal bounds LRU."""

from __future__ import annotations

import numpy as np

from prefixlock.sim import engine
from prefixlock.sim.replay import replay
from prefixlock.sim.trace import Trace, from_requests


def _trace(rows: list[tuple[float, list[int]]]) -> Trace:
    return from_requests([(t, ids, len(ids) * 4, 1, 0, 0, 0) for t, ids in rows], block_size=4)


def test_lfu_keeps_the_hot_prefix_that_lru_drops() -> None:
    # A hot two-block prefix used often, then a burst of one-off requests between its uses.
    rows = [(float(i), [1, 2]) for i in range(4)]
    rows += [(10.0 + i, [100 + i]) for i in range(3)]
    rows.append((20.0, [1, 2]))
    p = engine.plan(_trace(rows), warmup=0.0)
    lru = replay(p, "lru", 3)
    lfu = replay(p, "lfu", 3)
    assert lru.hit_blocks[-1] == 0  # the one-offs pushed the prefix out
    assert lfu.hit_blocks[-1] == 2  # its use count kept it


def test_ttl_expires_idle_blocks_in_every_policy() -> None:
    rows = [(0.0, [1, 2, 3]), (5.0, [1, 2, 3]), (100.0, [1, 2, 3])]
    p = engine.plan(_trace(rows), warmup=0.0)
    for policy in ("lru", "fifo", "lfu"):
        r = replay(p, policy, 10, ttl=30.0)
        assert r.hit_blocks.tolist() == [0, 3, 0], policy
        assert replay(p, policy, 10).hit_blocks.tolist() == [0, 3, 3], policy


def test_optimal_is_an_upper_bound_for_lru_and_fifo(synthetic: Trace) -> None:
    p = engine.plan(synthetic.head(600))
    for cap in (50, 400, 3000):
        best = replay(p, "optimal", cap).hit_tokens[p.warmup :].sum()
        for policy in ("lru", "fifo", "lfu"):
            assert replay(p, policy, cap).hit_tokens[p.warmup :].sum() <= best, (policy, cap)


def test_every_policy_reports_per_request_prefix_hits(conversation: Trace) -> None:
    p = engine.plan(conversation.head(300))
    for policy in ("lru", "fifo", "lfu", "optimal"):
        r = replay(p, policy, 2000)
        assert np.all(r.hit_blocks <= p.lengths) and np.all(r.hit_tokens >= 0)
        assert r.hit_blocks[0] == 0  # the first request finds an empty cache
