"""Sweeps: many configurations over one trace, in parallel.

`run_sweep(trace, configs, executor=...)` runs each `SimConfig` and returns the results in the
order given, whatever ran where: `serial` in this process, `process` (the default) over local
worker processes, `ray` over a Ray cluster (`pip install prefixlock[ray]`; `address=None` starts
a local one). The trace is shipped once per worker, not once per configuration. A single
multi-node configuration whose router ignores cache state is spread over Ray by node instead:
routed here, then each node's stream served as its own task.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from ..errors import UserError
from .backend import get_backend
from .cluster import STATELESS
from .simulate import SimConfig, SimResult, serve_node, simulate
from .trace import Trace

EXECUTORS = ("process", "serial", "ray")
CONNECT_TIMEOUT_S = 30.0

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
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> list[SimResult]:
    """Results of `configs` over `trace`, in order, each on the array `backend` named.
    `connect_timeout`: seconds to reach a Ray cluster at `address` before giving up."""
    for c in configs:
        c.check()
    if jobs is not None and jobs < 1:
        raise UserError(f"must be at least 1, got {jobs}", where="--jobs")
    if not 0 < connect_timeout < float("inf"):
        raise UserError(
            f"must be positive seconds, got {connect_timeout}", where="--connect-timeout"
        )
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
        return _ray_sweep(trace, configs, address, on_done, backend, connect_timeout)
    raise UserError(
        f"unknown executor {executor!r}; choose from {', '.join(EXECUTORS)}", where="--executor"
    )


def _ray_sweep(
    trace: Trace,
    configs: Sequence[SimConfig],
    address: str | None,
    on_done: Callable[[int], None] | None,
    backend: str,
    connect_timeout: float = CONNECT_TIMEOUT_S,
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
            reach(address, connect_timeout)
        try:
            if address:
                # Ray retries an unresponsive cluster for minutes and holds SIGTERM meanwhile
                within(
                    lambda: ray.init(**kwargs), connect_timeout, f"connecting to Ray at {address}"
                )
            else:  # a local cluster starts in this thread, as Ray expects
                ray.init(**kwargs)
        except (ConnectionError, TimeoutError, ValueError) as exc:
            # an address with no cluster behind it, or one Ray cannot parse
            raise UserError(
                f"cannot start or reach the Ray cluster: {exc}", where="--address"
            ) from None
        started = True
    try:
        if len(configs) == 1 and configs[0].nodes > 1 and configs[0].router in STATELESS:
            # one configuration: route here, then serve each node's stream as its own task
            node_task = ray.remote(serve_node)

            def spread(fn: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
                del fn  # serve_node, already remote
                return list(ray.get([node_task.remote(job) for job in jobs]))

            result = simulate(trace, configs[0], get_backend(backend), node_map=spread)
            if on_done:
                on_done(1)
            return [result]
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


def reach(address: str, timeout: float) -> None:
    """Refuse, within `timeout` seconds, a Ray address nothing listens at (Ray itself retries
    for minutes). 'auto' and 'local' are Ray's own words and pass."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(
            f"not a Ray address: {address!r} (use HOST:PORT or ray://HOST:PORT)", where="--address"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise UserError(
            f"cannot reach the Ray cluster at {hostport} within {timeout:g} s: {why}",
            where="--address",
        ) from None


def within(call: Callable[[], Any], timeout: float, what: str) -> Any:
    """`call()`, given up after `timeout` seconds with a UserError, SIGTERM ending it (Ray's own
    handlers would otherwise hold it while it retries). In the main thread a timer signal
    interrupts the call there (Ray must start in the main thread); elsewhere the call runs in a
    helper thread that is abandoned."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

        def expire(signum: int, frame: object) -> None:
            raise _Expired

        def terminate(signum: int, frame: object) -> None:
            raise SystemExit(128 + signum)

        old_alarm = signal.signal(signal.SIGALRM, expire)
        old_term = signal.signal(signal.SIGTERM, terminate)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return call()
        except _Expired:
            raise UserError(
                f"gave up {what} after {timeout:g} s", where="--connect-timeout"
            ) from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_alarm)
            signal.signal(signal.SIGTERM, old_term)
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise UserError(f"gave up {what} after {timeout:g} s", where="--connect-timeout")
    if "error" in box:
        raise box["error"]
    return box.get("value")


class _Expired(Exception):
    """The timer of `within` went off."""


def _ray_task(trace: Trace, config: SimConfig, backend: str) -> SimResult:
    return simulate(trace, config, get_backend(backend))
