"""The engine's array code keeps to what cupy allows, checked here without a GPU.

`STRICT` is an array module that behaves like numpy but refuses what cupy refuses or would do
silently slowly: a numpy function applied to a device array (cupy raises on the implicit
device-to-host conversion), a host array mixed into a device operation or used as an index (an
implicit transfer), a sort kind other than 'stable', an array module function outside the short
list the engine needs (each one is in cupy 14 with the keywords used here: argsort, cumsum,
searchsorted, where, minimum/maximum, full/zeros/empty/arange). It also records every point where
cupy would make the host wait for the device: a copy back (asnumpy), a device value read as a
Python scalar (int, float, bool, index, item), and the operations whose output size depends on
the data (flatnonzero, nonzero, compress, bincount, unique, boolean-mask indexing). The engine run
on it must give exactly the numpy backend's results with one size read (the number of distinct
(request, next-use request) pairs, which sizes the wavelet matrix) and the copies back at the
end; the real cupy check runs in test_sim_backend.py where a GPU exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import numpy as np
import pytest

from prefixlock.errors import UserError
from prefixlock.sim import cluster, engine
from prefixlock.sim.backend import NUMPY, Backend
from prefixlock.sim.simulate import SimConfig, lru_curve, simulate
from prefixlock.sim.trace import Trace
from prefixlock.sim.tracefile import read_trace

DATA = Path(__file__).parent / "data"
GOLDEN = json.loads((Path(__file__).parent / "golden" / "kvcache_simulator.json").read_text())


class Refused(TypeError):
    """What cupy would refuse (or do only through a hidden transfer)."""


SYNCS: list[str] = []  # every host wait, in order: what the device pipeline must not grow


class DeviceArray(np.ndarray):
    """A numpy array standing in for a device array."""

    def __bool__(self) -> bool:
        SYNCS.append("bool")
        return bool(_host(self))

    def __int__(self) -> int:
        SYNCS.append("int")
        return int(_host(self))

    def __float__(self) -> float:
        SYNCS.append("float")
        return float(_host(self))

    def __index__(self) -> int:
        SYNCS.append("index")
        return int(_host(self))

    def item(self, *args: Any) -> Any:
        SYNCS.append("item")
        return _host(self).item(*args)

    def tolist(self) -> Any:
        SYNCS.append("tolist")
        return _host(self).tolist()

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise Refused(f"numpy.{func.__name__} on a device array (implicit device-to-host copy)")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out", ())
        _device_only((*inputs, *out), f"{ufunc.__name__}")
        host = [_host(x) for x in inputs]
        if out:
            kwargs["out"] = tuple(_host(o) for o in out)
        return _dev(getattr(ufunc, method)(*host, **kwargs))

    def __getitem__(self, idx: Any) -> Any:
        _device_only(idx if isinstance(idx, tuple) else (idx,), "indexing")
        if any(
            getattr(i, "dtype", None) == np.bool_
            for i in (idx if isinstance(idx, tuple) else (idx,))
        ):
            SYNCS.append("boolean mask")
        return _dev(_host(self)[_host_index(idx)])

    def __setitem__(self, idx: Any, value: Any) -> None:
        _device_only(idx if isinstance(idx, tuple) else (idx,), "indexed assignment")
        _device_only((value,), "indexed assignment")
        _host(self)[_host_index(idx)] = _host(value)


def _device_only(items: tuple[Any, ...], what: str) -> None:
    for x in items:
        if isinstance(x, np.ndarray) and not isinstance(x, DeviceArray):
            raise Refused(f"host array in device {what} (implicit host-to-device copy)")


def _host(x: Any) -> Any:
    return x.view(np.ndarray) if isinstance(x, DeviceArray) else x


def _host_index(idx: Any) -> Any:
    return tuple(_host(i) for i in idx) if isinstance(idx, tuple) else _host(idx)


def _dev(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return np.asarray(x).view(DeviceArray)
    if isinstance(x, np.generic):  # cupy gives 0-d arrays, not scalars
        return np.asarray(x).view(DeviceArray)
    return x


def _on_device(*arrays: Any) -> None:
    for a in arrays:
        if not isinstance(a, DeviceArray):
            raise Refused(f"expected a device array, got {type(a).__name__}")


def _argsort(a: Any, axis: int = -1, kind: str | None = None) -> Any:
    _on_device(a)
    if kind not in (None, "stable"):
        raise Refused("cupy.argsort: kind can only be None or 'stable'")
    return _dev(np.argsort(_host(a), axis=axis, kind="stable"))


def _cumsum(a: Any, axis: int | None = None, dtype: Any = None) -> Any:
    if axis is None and a.ndim != 1:
        raise Refused("cumsum without an axis flattens: say which axis")
    _on_device(a)
    return _dev(np.cumsum(_host(a), axis=axis, dtype=dtype))


def _where(c: Any, x: Any, y: Any) -> Any:
    _on_device(c)
    _device_only((x, y), "where")
    return _dev(np.where(_host(c), _host(x), _host(y)))


def _concatenate(arrays: list[Any]) -> Any:
    _on_device(*arrays)
    return _dev(np.concatenate([_host(a) for a in arrays]))


def _flatnonzero(a: Any) -> Any:
    _on_device(a)
    SYNCS.append("flatnonzero")
    return _dev(np.flatnonzero(_host(a)))


def _compress(condition: Any, a: Any) -> Any:
    _on_device(condition, a)
    SYNCS.append("compress")
    return _dev(np.compress(_host(condition), _host(a)))


def _bincount(x: Any, minlength: int = 0) -> Any:
    _on_device(x)
    SYNCS.append("bincount")  # cupy reads max(x) back to size the output
    return _dev(np.bincount(_host(x), minlength=minlength))


def _searchsorted(a: Any, v: Any, side: Literal["left", "right"] = "left") -> Any:
    _on_device(a, v)
    return _dev(np.searchsorted(_host(a), _host(v), side=side))


def _asnumpy(a: Any) -> Any:
    _on_device(a)
    SYNCS.append("asnumpy")
    return np.array(_host(a))


def _asarray(a: Any) -> Any:
    if isinstance(a, DeviceArray):
        return a
    return _dev(np.array(a))


STRICT = SimpleNamespace(
    asarray=_asarray,
    asnumpy=_asnumpy,
    empty=lambda n, dtype: _dev(np.empty(n, dtype)),
    zeros=lambda n, dtype: _dev(np.zeros(n, dtype)),
    full=lambda n, v, dtype: _dev(np.full(n, v, dtype)),
    arange=lambda *bounds, dtype: _dev(np.arange(*bounds, dtype=dtype)),
    argsort=_argsort,
    cumsum=_cumsum,
    where=_where,
    concatenate=_concatenate,
    flatnonzero=_flatnonzero,
    compress=_compress,
    bincount=_bincount,
    searchsorted=_searchsorted,
    minimum=np.minimum,  # ufuncs: DeviceArray.__array_ufunc__ refuses host operands
    maximum=np.maximum,
)
STRICT_BACKEND = Backend("cupy", STRICT, device=True)


def test_the_strict_module_refuses_what_cupy_refuses() -> None:
    a = STRICT.arange(4, dtype=np.int64)
    with pytest.raises(Refused):
        np.diff(a)  # a numpy function on device data
    with pytest.raises(Refused):
        a + np.ones(4, np.int64)  # a host array in a device operation
    with pytest.raises(Refused):
        a[np.array([0, 1])]  # a host index
    with pytest.raises(Refused):
        STRICT.argsort(a, kind="quicksort")
    assert isinstance(a + 1, DeviceArray) and isinstance(a[1], DeviceArray)


def test_the_strict_module_records_host_waits() -> None:
    # The CPU engine's wavelet matrix partitions each level with compress: on a GPU the host
    # reads each output size back, once per level. The stand-in must see that.
    values = STRICT.asarray(np.array([5, 1, 7, 3, 0, 6, 2, 4], np.int32))
    end = STRICT.asarray(np.array([8, 4, 6], np.int32))
    bound = STRICT.asarray(np.array([4, 6, 1], np.int32))
    SYNCS.clear()
    got = engine._count_less(STRICT, values, 3, end, bound)
    assert SYNCS.count("compress") == 2 * 2  # levels 2 and 1, two compress calls each
    SYNCS.clear()
    fixed = engine._count_less_fixed(STRICT, values, 3, end, bound)
    assert SYNCS == []  # the device pipeline's version never waits
    assert np.array_equal(STRICT.asnumpy(got), [4, 3, 1])
    assert np.array_equal(STRICT.asnumpy(fixed), [4, 3, 1])
    SYNCS.clear()
    bool(values[0] > 1), int(values[1]), values[values > 2]
    assert SYNCS == ["bool", "int", "boolean mask"]


def test_stack_ranks_on_the_strict_module_equal_numpy(mooncake: Trace) -> None:
    p = engine.plan(mooncake.head(700))
    r_np, prev_np = engine.stack_ranks(p, NUMPY)
    SYNCS.clear()
    r_dev, prev_dev = engine.stack_ranks(p, STRICT_BACKEND)
    # the number of distinct (request, next-use request) pairs, then ranks and previous
    # requests, copied back once
    assert SYNCS == ["int", "asnumpy", "asnumpy"]
    assert type(r_dev) is np.ndarray and type(prev_dev) is np.ndarray  # back on the host
    assert r_dev.dtype == r_np.dtype and prev_dev.dtype == prev_np.dtype
    assert np.array_equal(r_np, r_dev) and np.array_equal(prev_np, prev_dev)


def test_batched_ranks_and_simulation_on_the_strict_module(synthetic: Trace) -> None:
    plans = [engine.plan(synthetic.head(n), share=s) for n, s in ((300, True), (450, False))]
    for (a, pa), (b, pb) in zip(
        engine.batch_ranks(plans, NUMPY), engine.batch_ranks(plans, STRICT_BACKEND), strict=True
    ):
        assert np.array_equal(a, b) and np.array_equal(pa, pb)
    cfg = SimConfig(capacity=500, nodes=3, router="round-robin", ttl=120.0)
    x = simulate(synthetic.head(600), cfg, NUMPY).to_dict()
    y = simulate(synthetic.head(600), cfg, STRICT_BACKEND).to_dict()
    assert y.pop("backend") == "cupy" and x.pop("backend") == "numpy"
    assert x == y


def _groups(trace: Trace, n: int) -> tuple[list[list[engine.Plan]], list[float | None]]:
    """`n` configurations of a sweep: 1, 2 or 3 nodes (round-robin), private or shared blocks,
    four TTLs."""
    groups, ttls = [], []
    for k in range(n):
        p = engine.plan(trace, share=k % 2 == 0)
        nodes = 1 + k % 3
        node = np.arange(p.requests) % nodes
        groups.append(
            [cluster.sub_plan(p, node == i)[0] for i in range(nodes)] if nodes > 1 else [p]
        )
        ttls.append((None, 30.0, 120.0, 600.0)[k % 4])
    return groups, ttls


@pytest.mark.parametrize(("requests", "configs"), [(250, 3), (3000, 9)])
def test_sweep_curves_on_the_strict_module_wait_once(
    conversation: Trace, requests: int, configs: int
) -> None:
    # More configurations and more wavelet levels (3000 requests: 12 bits, 250: 8) must not add
    # a single host wait: the number of distinct pairs sizes the wavelet matrix, then the whole
    # sweep comes back in one copy.
    trace = conversation.head(requests)
    groups, ttls = _groups(trace, configs)
    top = engine.plan(trace).n_nodes
    want = engine.sweep_curves(groups, ttls, top, NUMPY)
    SYNCS.clear()
    got = engine.sweep_curves(groups, ttls, top, STRICT_BACKEND)
    assert SYNCS == ["int", "asnumpy"]  # the pairs' number, then the results
    assert type(got) is np.ndarray and got.shape == (configs, top)
    assert np.array_equal(got, want)


def test_sweep_curves_add_up_each_plans_lru_curve(conversation: Trace) -> None:
    # A sweep row is its nodes' engine.lru_curve hit tokens (the shortfall included), summed.
    groups, ttls = _groups(conversation.head(1200), 6)
    top = max(q.n_nodes for g in groups for q in g)
    rows = engine.sweep_curves(groups, ttls, top, NUMPY)
    for row, g, ttl in zip(rows, groups, ttls, strict=True):
        want = np.zeros(top, np.int64)
        for q in g:
            rank, prev = engine.stack_ranks(q)
            curve = engine.lru_curve(q, engine.effective_ranks(q, rank, prev, ttl), top)
            want += curve.hit_tokens
        assert np.array_equal(row, want)


@pytest.mark.parametrize("name", sorted(GOLDEN["traces"]))
def test_sweep_curves_on_the_strict_module_match_the_package(name: str) -> None:
    # The device pipeline against kvcache-simulator's own figures (test_sim_parity's golden
    # file) at every golden capacity, those below the longest request (the shortfall) too.
    p = engine.plan(read_trace(DATA / name), warmup=GOLDEN["warmup_fraction"])
    SYNCS.clear()
    curve = engine.sweep_curves([[p]], [None], p.n_nodes, STRICT_BACKEND)[0]
    assert SYNCS == ["int", "asnumpy"]  # the pairs' number, then the results
    longest = int(p.lengths.max())
    points = GOLDEN["traces"][name]["points"]
    assert any(pt["capacity"] < longest and not pt["lru"]["underfilled"] for pt in points)
    for pt in points:
        want = pt["lru"]
        if not want["underfilled"]:
            assert int(curve[pt["capacity"] - 1]) == want["hit_tokens"], pt["capacity"]


@pytest.mark.parametrize("ttl", [None, 60.0])
def test_the_curve_on_the_strict_module_equals_numpy(mooncake: Trace, ttl: float | None) -> None:
    # `prefixlock sim --backend cupy`'s curve: simulate.lru_curve on a device backend runs
    # engine.device_curve (ranks, expiry, shortfall, token and block curves) and copies once.
    p = engine.plan(mooncake)
    want = lru_curve(mooncake, ttl=ttl, plan=p)
    SYNCS.clear()
    got = lru_curve(mooncake, ttl=ttl, plan=p, backend=STRICT_BACKEND)
    assert SYNCS == ["int", "asnumpy"]  # the pairs' number, then the results
    for field in ("capacities", "hit_blocks", "hit_tokens"):
        assert np.array_equal(getattr(got, field), getattr(want, field)), field
    assert (got.total_blocks, got.total_tokens, got.warmup_unique) == (
        want.total_blocks,
        want.total_tokens,
        want.warmup_unique,
    )
    capped = engine.device_curve(p, ttl, STRICT_BACKEND, max_capacity=500)
    assert np.array_equal(capped.hit_blocks, want.hit_blocks[:500])


@pytest.mark.parametrize(
    ("requests", "configs"), [(250, 4), pytest.param(3000, 9, marks=pytest.mark.slow)]
)
def test_sweep_assigned_cuts_the_streams_on_the_device(
    conversation: Trace, requests: int, configs: int
) -> None:
    # The device pipeline with routing's output as its input: the trace's arrays stay on the
    # device across batches (a Resident), each configuration sends only its node of every
    # request, and the per-node streams are cut and laid end to end there. Results equal numpy
    # on the host-built streams (cluster.sub_plan, engine.sweep_curves); one copy back a batch.
    trace = conversation.head(requests)
    p = engine.plan(trace)
    first = trace.ids[trace.starts[:-1]]
    keys = np.arange(trace.requests, dtype=np.int64) // 8
    assignments, ttls = [], []
    for k in range(configs):
        nodes = 1 + k % 4
        router = ("random", "round-robin", "session")[k % 3]
        assignments.append(cluster.assign(router, nodes, keys, first, seed=k))
        ttls.append((None, 30.0, 120.0, 600.0)[k % 4])
    assignments.append(np.full(trace.requests, 2, np.int64))  # nodes 0 and 1 get nothing
    ttls.append(None)
    top = p.n_nodes
    want = engine.sweep_curves(
        [[cluster.sub_plan(p, a == n)[0] for n in range(int(a.max()) + 1)] for a in assignments],
        ttls,
        top,
        NUMPY,
    )
    assert np.array_equal(engine.sweep_assigned(p, assignments, ttls, top, NUMPY), want)
    res = engine.resident(p, STRICT_BACKEND)
    for half in (slice(0, configs // 2), slice(configs // 2, None)):  # two batches, one copy in
        SYNCS.clear()
        got = engine.sweep_assigned(res, assignments[half], ttls[half], top, STRICT_BACKEND)
        assert SYNCS == ["int", "asnumpy"]
        assert np.array_equal(got, want[half])


def test_routes_drawn_on_the_strict_module_equal_the_host_routers(conversation: Trace) -> None:
    # cluster.route draws every configuration's nodes on the device at once: round-robin,
    # session and cache-key as cluster.assign places them (keyless requests dealt round-robin
    # among themselves), random from a counter-based hash of the seed and the request.
    trace = conversation.head(400)
    keys = np.where(np.arange(trace.requests) % 5 == 0, -1, np.arange(trace.requests) // 7)
    routes = [
        cluster.Route("round-robin", 3),
        cluster.Route("session", 4),
        cluster.Route("random", 8, seed=1),
        cluster.Route("cache-key", 5),
        cluster.Route("random", 8, seed=2),
    ]
    host = cluster.route(np, routes, trace.requests, keys)
    SYNCS.clear()
    dev = cluster.route(STRICT, routes, trace.requests, STRICT.asarray(keys))
    assert SYNCS == []
    assert np.array_equal(STRICT.asnumpy(dev), host)
    first = trace.ids[trace.starts[:-1]]
    for k, r in enumerate(routes):
        if r.router != "random":
            assert np.array_equal(host[k], cluster.assign(r.router, r.nodes, keys, first)), r
    for k in (2, 4):  # every node drawn about equally, other draws under another seed
        counts = np.bincount(host[k], minlength=8)
        assert counts.min() > trace.requests / 8 * 0.6, counts
    assert not np.array_equal(host[2], host[4])
    with pytest.raises(UserError, match="cache-aware"):
        cluster.Route("sglang", 4)


def test_sweep_assigned_draws_the_routes_on_the_device(conversation: Trace) -> None:
    # Routes instead of node arrays: only the routers' parameters travel; a batch mixing both
    # kinds gives each row what its explicit assignment gives; one copy back a batch.
    trace = conversation.head(300)
    p = engine.plan(trace)
    keys = np.arange(trace.requests, dtype=np.int64) // 8
    routes: list[Any] = [
        cluster.Route("random", 4, seed=3),
        cluster.Route("session", 3),
        cluster.Route("round-robin", 2),
        cluster.Route("random", 8, seed=4),
    ]
    ttls: list[float | None] = [None, 30.0, 120.0, None]
    arrays = list(cluster.route(np, routes, trace.requests, keys).astype(np.int64))
    top = p.n_nodes
    want = engine.sweep_assigned(p, arrays, ttls, top, NUMPY)
    assert np.array_equal(engine.sweep_assigned(p, routes, ttls, top, NUMPY, keys=keys), want)
    res = engine.resident(p, STRICT_BACKEND, keys)
    SYNCS.clear()
    got = engine.sweep_assigned(res, routes, ttls, top, STRICT_BACKEND)
    assert SYNCS == ["int", "asnumpy"]  # the pairs' number, then the results
    assert np.array_equal(got, want)
    mixed = [routes[0], arrays[1], routes[2], arrays[3]]
    SYNCS.clear()
    assert np.array_equal(engine.sweep_assigned(res, mixed, ttls, top, STRICT_BACKEND), want)
    assert SYNCS == ["int", "asnumpy"]  # the pairs' number, then the results
