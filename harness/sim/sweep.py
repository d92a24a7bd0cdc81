"""Sweeps: many configurations over one trace, in parallel.

`run_sweep(trace, configs, executor=...)` runs each `SimConfig` and returns the results in the
order given, whatever ran where: `serial` in this process, `process` (the default) over local
worker processes, `ray` over a Ray cluster (`pip install prefixlock[ray]`; `address=None` starts
a local one). The trace is shipped once per worker, not once per configuration.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from ..errors import UserError
from .backend import get_backend
from .simulate import SimConfig, SimResult, simulate
from .trace import Trace

EXECUTORS = ("process", "serial", "ray")

_TRACE: Trace | None = None
_BACKEND = "numpy"


def _init(trace: Trace, backend: str) -> None:
    global _TRACE, _BACKEND
    _TRACE = trace
    _BACKEND = backend


def _run_one(config: SimConfig) -> SimResult:
    assert _TRACE is not None
    return simulate(_TRACE, config, get_backend(_BACKEND))


def run_sweep(
    trace: Trace,
    configs: Sequence[SimConfig],
    *,
    executor: str = "process",
    jobs: int | None = None,
    address: str | None = None,
    on_done: Callable[[int], None] | None = None,
    backend: str = "numpy",
) -> list[SimResult]:
    """Results of `configs` over `trace`, in order, each on the array `backend` named."""
    for c in configs:
        c.check()
    if jobs is not None and jobs < 1:
        raise UserError(f"must be at least 1, got {jobs}", where="--jobs")
    if executor == "serial" or (executor == "process" and (len(configs) <= 1 or jobs == 1)):
        out = []
        for i, c in enumerate(configs):
            out.append(simulate(trace, c, get_backend(backend)))
            if on_done:
                on_done(i + 1)
        return out
    if executor == "process":
        workers = max(1, min(jobs or os.cpu_count() or 1, len(configs)))
        results: list[SimResult | None] = [None] * len(configs)
        # Not plain fork: the caller may run threads (a progress bar, Ray), and a child forked
        # while one of them holds a lock can hang.
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init, initargs=(trace, backend)
        ) as pool:
            futures = {pool.submit(_run_one, c): i for i, c in enumerate(configs)}
            for done, fut in enumerate(as_completed(futures), 1):
                results[futures[fut]] = fut.result()
                if on_done:
                    on_done(done)
        return [r for r in results if r is not None]
    if executor == "ray":
        return _ray_sweep(trace, configs, address, on_done, backend)
    raise UserError(
        f"unknown executor {executor!r}; choose from {', '.join(EXECUTORS)}", where="--executor"
    )


def _ray_sweep(
    trace: Trace,
    configs: Sequence[SimConfig],
    address: str | None,
    on_done: Callable[[int], None] | None,
    backend: str,
) -> list[SimResult]:
    try:
        import ray
    except ImportError:
        raise UserError(
            "the ray executor needs ray: pip install 'prefixlock[ray]'", where="--executor"
        ) from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        try:
            ray.init(**kwargs)
        except (ConnectionError, TimeoutError, ValueError) as exc:
            # an address with no cluster behind it, or one Ray cannot parse
            raise UserError(
                f"cannot start or reach the Ray cluster: {exc}", where="--address"
            ) from None
        started = True
    try:
        remote = ray.remote(_ray_task)
        ref = ray.put(trace)
        pending = [remote.remote(ref, c, backend) for c in configs]
        index = {r: i for i, r in enumerate(pending)}
        results: list[SimResult | None] = [None] * len(configs)
        done = 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                results[index[r]] = ray.get(r)
                done += 1
                if on_done:
                    on_done(done)
        return [r for r in results if r is not None]
    finally:
        if started:
            ray.shutdown()


def _ray_task(trace: Trace, config: SimConfig, backend: str) -> SimResult:
    return simulate(trace, config, get_backend(backend))
