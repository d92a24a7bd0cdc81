"""The cache-aware routers' per-node cache (`cluster.NodeCache`) equals the LRU replay exactly:
at every capacity (below the longest request too, where the replay keeps C - 1 blocks), with and
without a TTL, on random tries and on a Mooncake slice. So does the emulator's prompt cache
(`cache.BlockCache`, LRU) run one request at a time, wherever the capacity holds a request."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.cache.blocks import BlockCache
from prefixlock.sim import engine
from prefixlock.sim.cluster import NodeCache
from prefixlock.sim.replay import replay
from prefixlock.sim.trace import Trace, from_requests


def _served(p: engine.Plan, capacity: int | None, ttl: float | None) -> list[int]:
    cache = NodeCache(p.n_nodes + 1, capacity, p.parent.tolist(), ttl)
    nodes = p.nodes.tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    return [cache.serve(nodes[starts[r] : starts[r + 1]], times[r]) for r in range(p.requests)]


@st.composite
def small_traces(draw: st.DrawFn) -> Trace:
    rows = []
    t = 0.0
    for _ in range(draw(st.integers(1, 30))):
        length = draw(st.integers(1, 9))
        # Few distinct ids and no chaining: the same id shows up under different parents.
        ids = draw(st.lists(st.integers(0, 6), min_size=length, max_size=length))
        t += draw(st.sampled_from([0.0, 1.0, 5.0, 20.0]))
        rows.append((t, ids, length * 4, 1, 0, 0, 0))
    return from_requests(rows, block_size=4)


@settings(max_examples=150, deadline=None)
@given(trace=small_traces(), ttl=st.sampled_from([None, 6.0]))
def test_node_cache_equals_the_replay_on_random_tries(trace: Trace, ttl: float | None) -> None:
    p = engine.plan(trace, warmup=0.0)
    for cap in range(1, p.n_nodes + 1):
        assert _served(p, cap, ttl) == replay(p, "lru", cap, ttl).hit_blocks.tolist(), cap
    rank, prev = engine.stack_ranks(p)
    unbounded = engine.request_hits(p, engine.effective_ranks(p, rank, prev, ttl), None)[0]
    assert _served(p, None, ttl) == unbounded.tolist()


def test_node_cache_equals_the_replay_on_mooncake(conversation: Trace) -> None:
    p = engine.plan(conversation.head(400), warmup=0.0)
    longest = int(p.lengths.max())
    for cap, ttl in ((longest - 3, None), (longest + 50, 30.0), (2000, None), (2000, 120.0)):
        want = replay(p, "lru", cap, ttl).hit_blocks
        assert np.array_equal(np.array(_served(p, cap, ttl)), want), (cap, ttl)
        if cap >= longest:
            assert _block_cache_hits(p, cap, ttl) == want.tolist(), (cap, ttl)


def _block_cache_hits(p: engine.Plan, capacity: int, ttl: float | None) -> list[int]:
    """The emulator's BlockCache (LRU) driven one request at a time, blocks read deepest first."""
    cache = BlockCache(capacity, "lru", ttl)
    nodes = p.nodes.tolist()
    starts = p.starts.tolist()
    times = p.times.tolist()
    out = []
    for r in range(p.requests):
        path, now = nodes[starts[r] : starts[r + 1]], times[r]
        hit = 0
        while hit < len(path) and cache.peek(path[hit], now):
            hit += 1
        for x in reversed(path):
            cache.put(x, now)
        out.append(hit)
    return out


@settings(max_examples=100, deadline=None)
@given(trace=small_traces(), ttl=st.sampled_from([None, 6.0]))
def test_block_cache_is_the_lru_engine_one_request_at_a_time(
    trace: Trace, ttl: float | None
) -> None:
    # The emulator's prompt cache and the simulator's LRU agree wherever the capacity holds the
    # longest request (below that the replay keeps C - 1 blocks of an over-long request).
    p = engine.plan(trace, warmup=0.0)
    for cap in range(int(p.lengths.max()), p.n_nodes + 1):
        want = replay(p, "lru", cap, ttl).hit_blocks.tolist()
        assert _block_cache_hits(p, cap, ttl) == want, cap
