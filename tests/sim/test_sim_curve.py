"""The one-pass LRU curve equals a separate replay at each capacity.

On both Mooncake slices (capacities from 1 block, below and above the longest request, up to
every block), with and without a TTL, and on random small traces whose ids are not chained (the
trie then differs from the ids) so every edge of the rank automaton gets exercised.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.sim import engine
from prefixlock.sim.replay import replay
from prefixlock.sim.trace import Trace, from_requests


def _capacities(p: engine.Plan) -> list[int]:
    longest = int(p.lengths.max())
    picks = {1, 2, 3, longest - 1, longest, longest + 1, p.n_nodes // 7, p.n_nodes // 2, p.n_nodes}
    return sorted(c for c in picks if c >= 1)


def test_curve_equals_replays_on_both_traces(mooncake: Trace) -> None:
    p = engine.plan(mooncake.head(1200))
    rank, _ = engine.stack_ranks(p)
    curve = engine.lru_curve(p, rank)
    for cap in _capacities(p):
        r = replay(p, "lru", cap)
        assert int(curve.hit_tokens[cap - 1]) == int(r.hit_tokens[p.warmup :].sum()), cap
        assert int(curve.hit_blocks[cap - 1]) == int(r.hit_blocks[p.warmup :].sum()), cap
        blocks, toks = engine.request_hits(p, rank, cap)
        assert np.array_equal(blocks, r.hit_blocks) and np.array_equal(toks, r.hit_tokens), cap


def test_curve_with_ttl_equals_replays(mooncake: Trace) -> None:
    p = engine.plan(mooncake.head(800), warmup=0.25)
    rank, prev = engine.stack_ranks(p)
    eff = engine.effective_ranks(p, rank, prev, ttl=30.0)
    curve = engine.lru_curve(p, eff)
    unbounded = engine.lru_curve(p, rank)
    assert curve.hit_tokens[-1] < unbounded.hit_tokens[-1]  # the TTL costs hits
    for cap in _capacities(p):
        r = replay(p, "lru", cap, ttl=30.0)
        assert int(curve.hit_tokens[cap - 1]) == int(r.hit_tokens[p.warmup :].sum()), cap


def test_curve_is_monotone_and_ends_at_the_ceiling(conversation: Trace) -> None:
    p = engine.plan(conversation.head(1000))
    rank, _ = engine.stack_ranks(p)
    curve = engine.lru_curve(p, rank)
    # With every block cached the only misses are first uses: the ceiling.
    seen: set[int] = set()
    ceiling = 0
    for r in range(p.requests):
        s, e = int(p.starts[r]), int(p.starts[r + 1])
        hit = 0
        for i in range(s, e):
            if int(p.nodes[i]) not in seen:
                break
            hit += int(p.tokens[i])
        if r >= p.warmup:
            ceiling += hit
        seen.update(p.nodes[s:e].tolist())
    assert int(curve.hit_tokens[-1]) == ceiling
    assert np.all(np.diff(curve.hit_tokens[int(p.lengths.max()) :]) >= 0)


@st.composite
def small_traces(draw: st.DrawFn) -> Trace:
    n_req = draw(st.integers(1, 30))
    rows = []
    t = 0.0
    for _ in range(n_req):
        length = draw(st.integers(1, 9))
        # Few distinct ids and no chaining: the same id shows up under different parents.
        ids = draw(st.lists(st.integers(0, 6), min_size=length, max_size=length))
        t += draw(st.sampled_from([0.0, 1.0, 5.0, 20.0]))
        rows.append((t, ids, length * 4 - draw(st.integers(0, 3)), 1, 0, 0, 0))
    return from_requests(rows, block_size=4)


@settings(max_examples=150, deadline=None)
@given(
    trace=small_traces(), warm=st.sampled_from([0.0, 0.3, 0.5]), ttl=st.sampled_from([None, 6.0])
)
def test_curve_equals_replays_on_random_tries(trace: Trace, warm: float, ttl: float | None) -> None:
    p = engine.plan(trace, warmup=warm)
    rank, prev = engine.stack_ranks(p)
    eff = engine.effective_ranks(p, rank, prev, ttl)
    curve = engine.lru_curve(p, eff)
    for cap in range(1, p.n_nodes + 1):
        r = replay(p, "lru", cap, ttl=ttl)
        blocks, toks = engine.request_hits(p, eff, cap)
        assert np.array_equal(toks, r.hit_tokens), cap
        assert np.array_equal(blocks, r.hit_blocks), cap
        assert int(curve.hit_tokens[cap - 1]) == int(r.hit_tokens[p.warmup :].sum()), cap
        if ttl is None:
            assert curve.underfilled(cap, p.warmup) == (p.warmup > 0 and not r.filled), cap


@settings(max_examples=60, deadline=None)
@given(trace=small_traces())
def test_trie_nodes_match_a_naive_trie(trace: Trace) -> None:
    # Nodes are (parent node, id) pairs numbered by first use, as kvcache-simulator builds them.
    table: dict[tuple[int, int], int] = {}
    want = []
    for r in range(trace.requests):
        parent = 0
        for i in trace.ids[trace.starts[r] : trace.starts[r + 1]].tolist():
            parent = table.setdefault((parent, i), len(table) + 1)
            want.append(parent)
    nodes, parents, count = engine.trie_nodes(trace.ids, trace.starts)
    assert nodes.tolist() == want and count == len(table)
    assert all(parents[node] == par for (par, _), node in table.items())
