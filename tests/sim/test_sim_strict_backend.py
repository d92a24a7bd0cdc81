"""The engine's array code keeps to what cupy allows, checked here without a GPU.

`STRICT` is an array module that behaves like numpy but refuses what cupy refuses or would do
silently slowly: a numpy function applied to a device array (cupy raises on the implicit
device-to-host conversion), a host array mixed into a device operation or used as an index (an
implicit transfer), a sort kind other than 'stable', an array module function outside the short
list the engine needs (each one is in cupy 14 with the keywords used here). The engine run on it
must give exactly the numpy backend's ranks; the real cupy check runs in test_sim_backend.py where
a GPU exists.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from prefixlock.sim import engine
from prefixlock.sim.backend import NUMPY, Backend
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace


class Refused(TypeError):
    """What cupy would refuse (or do only through a hidden transfer)."""


class DeviceArray(np.ndarray):
    """A numpy array standing in for a device array."""

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
    return _dev(np.flatnonzero(_host(a)))


def _compress(condition: Any, a: Any) -> Any:
    _on_device(condition, a)
    return _dev(np.compress(_host(condition), _host(a)))


def _bincount(x: Any, minlength: int = 0) -> Any:
    _on_device(x)
    return _dev(np.bincount(_host(x), minlength=minlength))


def _asnumpy(a: Any) -> Any:
    _on_device(a)
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
    arange=lambda n, dtype: _dev(np.arange(n, dtype=dtype)),
    argsort=_argsort,
    cumsum=_cumsum,
    where=_where,
    concatenate=_concatenate,
    flatnonzero=_flatnonzero,
    compress=_compress,
    bincount=_bincount,
)
STRICT_BACKEND = Backend("cupy", STRICT)


def test_the_strict_module_refuses_what_cupy_refuses() -> None:
    a = STRICT.arange(4, np.int64)
    with pytest.raises(Refused):
        np.diff(a)  # a numpy function on device data
    with pytest.raises(Refused):
        a + np.ones(4, np.int64)  # a host array in a device operation
    with pytest.raises(Refused):
        a[np.array([0, 1])]  # a host index
    with pytest.raises(Refused):
        STRICT.argsort(a, kind="quicksort")
    assert isinstance(a + 1, DeviceArray) and isinstance(a[1], DeviceArray)


def test_stack_ranks_on_the_strict_module_equal_numpy(mooncake: Trace) -> None:
    p = engine.plan(mooncake.head(700))
    r_np, prev_np = engine.stack_ranks(p, NUMPY)
    r_dev, prev_dev = engine.stack_ranks(p, STRICT_BACKEND)
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
