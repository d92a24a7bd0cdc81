"""numpy and cupy give identical results (the cupy half runs only where cupy sees a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

from prefixlock.errors import UserError
from prefixlock.sim import cluster, engine
from prefixlock.sim.backend import NUMPY, cupy_available, get_backend
from prefixlock.sim.simulate import SimConfig, lru_curve, simulate
from prefixlock.sim.trace import Trace

gpu = pytest.mark.skipif(not cupy_available(), reason="needs cupy and a CUDA GPU")


def test_auto_picks_numpy_without_a_gpu() -> None:
    assert get_backend("auto").name == ("cupy" if cupy_available() else "numpy")
    assert get_backend("numpy") is NUMPY
    # auto never picks the GPU for a trace too small for it to win
    assert get_backend("auto", references=10_000) is NUMPY


@pytest.mark.skipif(cupy_available(), reason="a GPU is present")
def test_cupy_without_a_gpu_is_a_clear_error() -> None:
    with pytest.raises(UserError, match="cupy"):
        get_backend("cupy")


def test_unknown_backend() -> None:
    with pytest.raises(UserError, match="unknown backend"):
        get_backend("tpu")


@gpu
@pytest.mark.gpu
def test_cupy_ranks_equal_numpy(mooncake: Trace) -> None:
    p = engine.plan(mooncake)
    cp = get_backend("cupy")
    r_np, prev_np = engine.stack_ranks(p, NUMPY)
    r_cp, prev_cp = engine.stack_ranks(p, cp)
    assert np.array_equal(r_np, r_cp) and np.array_equal(prev_np, prev_cp)
    a = engine.lru_curve(p, r_np)
    b = engine.lru_curve(p, r_cp)
    assert np.array_equal(a.hit_tokens, b.hit_tokens) and np.array_equal(a.hit_blocks, b.hit_blocks)


@gpu
@pytest.mark.gpu
def test_cupy_simulation_equals_numpy(conversation: Trace) -> None:
    cp = get_backend("cupy")
    for cfg in (
        SimConfig(capacity=3000),
        SimConfig(capacity=100, nodes=4, router="round-robin", ttl=300.0),
    ):
        a = simulate(conversation, cfg, NUMPY).to_dict()
        b = simulate(conversation, cfg, cp).to_dict()
        a.pop("backend"), b.pop("backend")
        assert a == b


@gpu
@pytest.mark.gpu
def test_cupy_sweep_curves_equal_numpy(conversation: Trace) -> None:
    # The whole sweep on the device (ranks, TTL, shortfall, every curve), one copy back.
    trace = conversation.head(1500)
    p = engine.plan(trace)
    node = np.arange(p.requests) % 4
    subs = [cluster.sub_plan(p, node == i)[0] for i in range(4)]
    groups = [[p], subs, [engine.plan(trace, share=False)], subs]
    ttls = [None, None, 120.0, 30.0]
    cp = get_backend("cupy")
    a = engine.sweep_curves(groups, ttls, p.n_nodes, NUMPY)
    b = engine.sweep_curves(groups, ttls, p.n_nodes, cp)
    assert type(b) is np.ndarray and np.array_equal(a, b)


@gpu
@pytest.mark.gpu
def test_cupy_sweep_assigned_equals_numpy(conversation: Trace) -> None:
    # The streams cut on the device from a resident trace, only the routing sent per batch.
    trace = conversation.head(1500)
    p = engine.plan(trace)
    first = trace.ids[trace.starts[:-1]]
    keys = np.arange(p.requests, dtype=np.int64) // 8
    routes = [
        np.zeros(p.requests, np.int64),
        cluster.assign("round-robin", 4, keys, first),
        cluster.assign("random", 8, keys, first, seed=3),
        cluster.assign("session", 3, keys, first),
    ]
    ttls = [None, 60.0, None, 300.0]
    cp = get_backend("cupy")
    want = engine.sweep_assigned(p, routes, ttls, p.n_nodes, NUMPY)
    res = engine.resident(p, cp)
    got = engine.sweep_assigned(res, routes, ttls, p.n_nodes, cp)
    again = engine.sweep_assigned(res, routes[::-1], ttls[::-1], p.n_nodes, cp)
    assert np.array_equal(want, got) and np.array_equal(want[::-1], again)


@gpu
@pytest.mark.gpu
def test_cupy_curve_equals_numpy(mooncake: Trace) -> None:
    a = lru_curve(mooncake, ttl=60.0)
    b = lru_curve(mooncake, ttl=60.0, backend=get_backend("cupy"))
    assert np.array_equal(a.hit_tokens, b.hit_tokens) and np.array_equal(a.hit_blocks, b.hit_blocks)
    assert a.warmup_unique == b.warmup_unique


def test_batched_ranks_equal_separate_ones(synthetic: Trace) -> None:
    # GPU sweeps concatenate many plans into one array job; the cut-back ranks must not move.
    cuts = ((300, True), (500, False), (200, True))
    plans = [engine.plan(synthetic.head(n), share=s) for n, s in cuts]
    for q, (rank, prev) in zip(plans, engine.batch_ranks(plans), strict=True):
        r, pv = engine.stack_ranks(q)
        assert np.array_equal(rank, r) and np.array_equal(prev, pv)
