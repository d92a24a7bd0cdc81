"""The engine's parts against plain Python: first-use numbering (both of its paths), stack ranks
by their definition, the shortfall with and without its forward fill, and the exact helpers of
`simulate` (first uses, the TTFT percentiles)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.sim import engine
from prefixlock.sim.simulate import _first_uses, _percentile
from prefixlock.sim.trace import Trace, from_requests


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    """Small traces: chained ids that count up (Mooncake's shape) or few ids under any parent."""
    chained = draw(st.booleans())
    rows = []
    t = 0.0
    next_id = draw(st.integers(0, 5))
    for _ in range(draw(st.integers(1, 25))):
        length = draw(st.integers(1, 8))
        if chained:
            shared = draw(st.integers(0, min(length, next_id)))
            ids = list(range(shared)) + list(range(next_id, next_id + length - shared))
            next_id += length - shared
        else:
            ids = draw(st.lists(st.integers(0, 5), min_size=length, max_size=length))
        t += draw(st.sampled_from([0.0, 1.0, 7.0]))
        rows.append((t, ids, length * 4 - draw(st.integers(0, 3)), 1, 0, 0, 0))
    return from_requests(rows, block_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=40), st.integers(0, 2**40), st.booleans())
def test_first_use_numbering(keys: list[int], base: int, counting: bool) -> None:
    if counting:  # keys that count up from the first, as Mooncake's hash ids do
        seen: list[int] = []
        for k in keys:
            seen.append(k if k < len(seen) else len(seen))
        keys = seen
    arr = np.array([base + k for k in keys], np.int64)
    table: dict[int, int] = {}
    want = [table.setdefault(int(k), len(table) + 1) for k in arr]
    nodes, count = engine._first_use_numbering(arr)
    assert nodes.tolist() == want and count == len(table)


def _naive_ranks(p: engine.Plan) -> tuple[list[int], list[int]]:
    """The definition: distinct blocks used, in the stream (requests in order, each deepest
    block first), between a block's last use and the start of its request."""
    stream: list[tuple[int, int]] = []  # (node, request)
    for r in range(p.requests):
        s, e = int(p.starts[r]), int(p.starts[r + 1])
        stream += [(int(p.nodes[i]), r) for i in range(e - 1, s - 1, -1)]
    rank = [int(engine.COLD)] * p.references
    prev = [-1] * p.references
    last: dict[int, int] = {}  # node -> stream position of its last use
    pos = 0
    for r in range(p.requests):
        s, e = int(p.starts[r]), int(p.starts[r + 1])
        for i in range(s, e):
            node = int(p.nodes[i])
            if node in last:
                between = {n for n, _ in stream[last[node] + 1 : pos]}
                rank[i] = len(between)
                prev[i] = stream[last[node]][1]
        for _ in range(s, e):
            last[stream[pos][0]] = pos
            pos += 1
    return rank, prev


@settings(max_examples=150, deadline=None)
@given(traces(), st.booleans())
def test_stack_ranks_follow_their_definition(trace: Trace, share: bool) -> None:
    p = engine.plan(trace, share=share)
    rank, prev = engine.stack_ranks(p)
    want_rank, want_prev = _naive_ranks(p)
    assert rank.tolist() == want_rank and prev.tolist() == want_prev


@settings(max_examples=150, deadline=None)
@given(traces(), st.sampled_from([0.0, 0.5]), st.sampled_from([None, 5.0]))
def test_shortfall_steps_and_forward_fill_agree(
    trace: Trace, warm: float, ttl: float | None
) -> None:
    p = engine.plan(trace, warmup=warm)
    rank, prev = engine.stack_ranks(p)
    eff = engine.effective_ranks(p, rank, prev, ttl)
    flags = engine._shortfall(p, eff)
    for steps in (0, 1, 3):
        for cells in (1, 7, 4_000_000):
            assert np.array_equal(engine._shortfall(p, eff, steps=steps, chunk_cells=cells), flags)
    only = p.measured()
    assert np.array_equal(engine._shortfall(p, eff, only), flags & only)


@settings(max_examples=100, deadline=None)
@given(traces())
def test_first_uses(trace: Trace) -> None:
    p = engine.plan(trace)
    first = _first_uses(p)
    for node in range(p.n_nodes + 1):
        uses = np.flatnonzero(p.nodes == node)
        assert first[node] == (uses[0] if uses.shape[0] else p.references)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e6, 1e6, allow_nan=False),
            st.sampled_from([0.0, 1.0, 2.5, np.inf, -np.inf, np.nan]),
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([0, 1, 25, 50, 90, 99, 100]),
)
def test_percentile_is_numpys(values: list[float], q: int) -> None:
    a = np.array(values, np.float64)
    with np.errstate(invalid="ignore"):
        want = float(np.percentile(a, q))
        got = _percentile(a, q)
    assert got == want or (got != got and want != want)
