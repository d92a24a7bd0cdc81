"""The device pipeline on a CPU: today's engine against the one before it, both run with numpy
standing in for cupy, in the same run, with identical curves required.

    .venv/bin/python -m tests.benchmarks.bench_sim_device [--configs 16] [--curve-requests N]

What a GPU would run, timed on one CPU core: the sweep of `gpu_sim` (routed configurations over
Mooncake's conversation trace, `engine.sweep_assigned`) and the CLI's LRU curve on generated
requests (`engine.device_curve`). The baseline is `harness/sim/engine.py` as it was at `--base`
(a git revision, by default the one before the routes were drawn on the device, the
per-configuration wavelet matrices, the pair compaction and the scatter shortfall), loaded from
git beside today's; it gets the routing as host arrays (it cannot draw it), today's engine
draws it itself. Each side runs `--repeat` times, alternating; the medians are compared. Speed on
a CPU says nothing about a GPU's, but the work done per reference is the same array operations,
so a CPU stand-in that got slower would be a warning. Prints the load average: timings on a
shared machine are noisy, the ratio less so.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from prefixlock.sim import cluster, engine
from prefixlock.sim.backend import Backend
from prefixlock.sim.tracefile import read_trace
from tests.benchmarks import gpu_sim  # the sweep's configurations, the generated requests

ROOT = Path(__file__).resolve().parents[2]

BASE = "fb0bbbb"  # main before this change
STAND_IN = Backend("numpy standing in for cupy", np, device=True)


def baseline_engine(rev: str) -> ModuleType:
    """`prefixlock.sim.engine` as it was at git revision `rev`, importable beside today's."""
    src = subprocess.run(
        ["git", "show", f"{rev}:harness/sim/engine.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "engine_base.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("prefixlock.sim._engine_base", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _median_times(runs: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeat):
        for k, f in runs.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=BASE)
    ap.add_argument("--configs", type=int, default=16)
    ap.add_argument("--curve-requests", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trace", default=None)
    args = ap.parse_args(argv)
    old = baseline_engine(args.base)
    path = Path(args.trace) if args.trace else next(p for p in gpu_sim.TRACES if p.exists())
    trace = read_trace(path)
    print(f"load average {os.getloadavg()[0]:.2f}; baseline engine: {args.base}")
    rc = 0

    base = engine.plan(trace)
    cfgs = gpu_sim.configs(args.configs)
    routes = [gpu_sim.as_route(c) for c in cfgs]
    ttls = [c.ttl for c in cfgs]
    keys = gpu_sim.session_keys(trace)
    res_new = engine.resident(base, STAND_IN, keys)
    res_old = old.resident(base, STAND_IN)

    def old_sweep() -> Any:  # the routing drawn on the host, sent as arrays
        nodes = cluster.route(np, routes, base.requests, keys).astype(np.int64)
        return old.sweep_assigned(res_old, list(nodes), ttls, base.n_nodes, STAND_IN)

    def new_sweep() -> Any:
        return engine.sweep_assigned(res_new, routes, ttls, base.n_nodes, STAND_IN)

    same = np.array_equal(old_sweep(), new_sweep())
    t = _median_times({"base": old_sweep, "today": new_sweep}, args.repeat)
    refs = len(cfgs) * base.references
    print(
        f"sweep, {len(cfgs)} configurations of {path.name} ({refs:,} references): "
        f"base {t['base']:.2f} s, today {t['today']:.2f} s = {t['base'] / t['today']:.2f}x; "
        f"curves {'identical' if same else 'DIFFERENT'}"
    )
    rc |= 0 if same else 1

    gen = gpu_sim.session_trace(args.curve_requests)
    p = engine.plan(gen)
    a = old.device_curve(p, None, STAND_IN)
    b = engine.device_curve(p, None, STAND_IN)
    same = all(
        np.array_equal(getattr(a, f), getattr(b, f)) for f in ("hit_blocks", "hit_tokens")
    ) and (a.warmup_unique == b.warmup_unique)
    t = _median_times(
        {
            "base": lambda: old.device_curve(p, None, STAND_IN),
            "today": lambda: engine.device_curve(p, None, STAND_IN),
        },
        args.repeat,
    )
    print(
        f"CLI LRU curve, {gen.requests:,} generated requests ({gen.references:,} references): "
        f"base {t['base']:.2f} s, today {t['today']:.2f} s = {t['base'] / t['today']:.2f}x; "
        f"curves {'identical' if same else 'DIFFERENT'}"
    )
    rc |= 0 if same else 1
    print(f"load average {os.getloadavg()[0]:.2f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
