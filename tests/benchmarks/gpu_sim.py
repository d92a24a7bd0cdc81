"""GPU sweep benchmark: block references per second on cupy and on numpy, plus a parity check.

    .venv/bin/python tests/benchmarks/gpu_sim.py [--configs 256] [--numpy-configs 16] [--json F]

A sweep of at least 256 configurations over a Mooncake trace: cluster size (1, 2, 4, 8 nodes) x
router (round-robin, random with 8 seeds, session affinity) x TTL (none, 60 s, 300 s, 1800 s) x
cross-tenant sharing... each configuration gives the LRU hit rate at every capacity per node.
On a GPU the trace's arrays are copied to the device once and stay there (engine.resident); a
batch of configurations sends only each configuration's router, node count and seed
(cluster.Route): the routing is drawn, the per-node streams are cut, laid end to end and swept on
the device (engine.sweep_assigned: ranks, TTL and every configuration's curve, one copy back per
batch), all of it timed. numpy is timed on streams built beforehand (the same routes drawn by
cluster.route on the host, cut by cluster.sub_plan, both outside its timing), so the ratio does
not favour the GPU.
numpy runs the same configurations (or the first --numpy-configs of them when that would take
long); references per second are compared, and every configuration both backends ran must give
identical curves. Without cupy or a GPU it measures numpy only and says so (exit code 3).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from prefixlock.sim import cluster, engine
from prefixlock.sim.backend import (
    AUTO_GPU_MIN_REFERENCES,
    NUMPY,
    Backend,
    cupy_available,
    get_backend,
)
from prefixlock.sim.trace import Trace
from prefixlock.sim.tracefile import read_trace

ROOT = Path(__file__).resolve().parents[2]

# The full Mooncake conversation trace where it is: shared/ beside the checkout or a folder
# above it (as bench_sim looks), or .gpu-data/ in the repo (an ignored folder a device run can
# carry: only the repo travels there); else the 3,000-request slice the tests ship.
TRACES = [
    *(d / "shared" / "data" / "mooncake" / "conversation_trace.jsonl" for d in ROOT.parents),
    ROOT / ".gpu-data" / "conversation_trace.jsonl",
    ROOT / "tests" / "sim" / "data" / "conversation_head3000.jsonl.gz",
]


@dataclass(frozen=True)
class Config:
    nodes: int
    router: str
    seed: int
    ttl: float | None

    def label(self) -> str:
        ttl = "none" if self.ttl is None else f"{self.ttl:g}s"
        return f"{self.nodes}x{self.router}(seed {self.seed}) ttl={ttl}"


def configs(n: int) -> list[Config]:
    routers = [("round-robin", 0), ("session", 0)] + [("random", s) for s in range(8)]
    out = [
        Config(nodes, r, seed, ttl)
        for (nodes, (r, seed), ttl) in itertools.product(
            (1, 2, 4, 8), routers, (None, 60.0, 300.0, 1800.0)
        )
        if not (nodes == 1 and r != "round-robin")  # one node: the router does not matter
    ]
    while len(out) < n:  # more random seeds until the sweep is as large as asked
        s = len(out)
        out.append(Config(8, "random", 100 + s, (None, 60.0, 300.0, 1800.0)[s % 4]))
    return out[:n]


def session_keys(trace: Trace) -> np.ndarray:
    """Pseudo-sessions of 8 requests (Mooncake's traces carry no session ids)."""
    return np.arange(trace.requests, dtype=np.int64) // 8


def as_route(cfg: Config) -> cluster.Route:
    return cluster.Route("round-robin" if cfg.nodes == 1 else cfg.router, cfg.nodes, cfg.seed)


def run(
    trace: Trace, cfgs: list[Config], backend: Backend, batch_refs: int
) -> tuple[float, int, list[np.ndarray]]:
    """Seconds in the engine, references processed, and each configuration's cluster curve:
    measured hit tokens at every per-node capacity (the shortfall below the longest request
    included). Each batch is one engine call. numpy: the routes are drawn and the node streams
    built outside the timed part and swept with engine.sweep_curves. A device backend: the
    trace goes to the device once (timed), then per batch only the routes travel and the
    routing runs there (engine.sweep_assigned, timed)."""
    base = engine.plan(trace)
    top = base.n_nodes
    per_batch = max(1, batch_refs // max(1, base.references))
    routes = [as_route(c) for c in cfgs]
    keys = session_keys(trace)
    spent = 0.0
    curves: list[np.ndarray] = []
    if backend.device:
        t0 = time.perf_counter()
        res = engine.resident(base, backend, keys)
        spent += time.perf_counter() - t0
    for i in range(0, len(cfgs), per_batch):
        batch = routes[i : i + per_batch]
        ttls = [c.ttl for c in cfgs[i : i + per_batch]]
        if backend.device:
            t0 = time.perf_counter()
            out = engine.sweep_assigned(res, batch, ttls, top, backend)
        else:
            nodes = cluster.route(np, batch, base.requests, keys)
            streams = [engine.node_streams(base, a.astype(np.int64)) for a in nodes]
            t0 = time.perf_counter()
            out = engine.sweep_curves(streams, ttls, top, backend)
        spent += time.perf_counter() - t0
        curves.extend(out)
    return spent, len(cfgs) * base.references, curves


# The device pipeline's stages, timed one by one in `profile` (the wavelet matrix is part of
# the ranks): module, function, label.
STAGES = (
    (cluster, "route", "routing"),
    (engine, "device_ranks", "ranks (next uses, pairs, wavelet)"),
    (engine, "_count_less_fixed", "  of which the wavelet matrix"),
    (engine, "_expire", "TTL expiry"),
    (engine, "_shortfall_fixed", "shortfall below the longest request"),
    (engine, "_sorted_bincounts", "histograms"),
)


def profile(
    trace: Trace, cfgs: list[Config], backend: Backend, batch_refs: int
) -> dict[str, float]:
    """Seconds in each stage of the device pipeline over the whole sweep: each stage's
    function is wrapped to wait for the device before and after it (so the stages cannot
    overlap, and the sum is a little above the timed sweep's); the rest is the stream cuts,
    gathers and copies between them."""
    xp = backend.xp
    sync: Callable[[], None] = (
        xp.cuda.Device().synchronize if hasattr(xp, "cuda") else (lambda: None)
    )
    spent = {label: 0.0 for _, _, label in STAGES}
    saved = [(mod, name, getattr(mod, name)) for mod, name, _ in STAGES]

    def timed(f: Callable[..., object], label: str) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            sync()
            t0 = time.perf_counter()
            out = f(*args, **kwargs)
            sync()
            spent[label] += time.perf_counter() - t0
            return out

        return wrapper

    for (mod, name, f), (_, _, label) in zip(saved, STAGES, strict=True):
        setattr(mod, name, timed(f, label))
    try:
        sync()
        t0 = time.perf_counter()
        run(trace, cfgs, backend, batch_refs)
        sync()
        total = time.perf_counter() - t0
    finally:
        for mod, name, f in saved:
            setattr(mod, name, f)
    top_level = sum(v for k, v in spent.items() if not k.startswith(" "))
    spent["the rest (stream cuts, gathers, copies)"] = max(0.0, total - top_level)
    spent["total"] = total
    return spent


def _best(f: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def crossover(trace: Trace, gpu: Backend, copies: Sequence[int]) -> list[dict[str, float]]:
    """Ranks of one stream of k copies of the trace (engine.stack_ranks, copy back included)
    on numpy and on the GPU, best of 3 after a warm-up: where the GPU starts to win, which is
    what backend.AUTO_GPU_MIN_REFERENCES should be."""
    base = engine.plan(trace)
    rows = []
    for k in copies:
        p = engine.concat_plans([base] * k)
        engine.stack_ranks(p, gpu)  # warm-up: kernels compile for these shapes' dtypes
        t_np = _best(lambda p=p: engine.stack_ranks(p, NUMPY))  # type: ignore[misc]
        t_gpu = _best(lambda p=p: engine.stack_ranks(p, gpu))  # type: ignore[misc]
        rows.append(
            {"references": p.references, "numpy_s": t_np, "gpu_s": t_gpu, "speedup": t_np / t_gpu}
        )
        print(
            f"  ranks of {p.references:>11,} references: numpy {t_np * 1e3:9.1f} ms, "
            f"GPU {t_gpu * 1e3:8.1f} ms ({t_np / t_gpu:.1f}x)"
        )
    return rows


def session_trace(requests: int, turns: int = 8, seed: int = 0) -> Trace:
    """`requests` chat requests built without a file: sessions of `turns` turns over 8 shared
    4-block system prompts, each turn one 512-token block longer than the last, sessions
    interleaved by Poisson arrivals (about 7.5 references a request)."""
    rng = np.random.default_rng(seed)
    sessions = max(1, requests // turns)
    n = sessions * turns
    s = np.repeat(np.arange(sessions, dtype=np.int64), turns)
    j = np.tile(np.arange(turns, dtype=np.int64), sessions)
    start = rng.uniform(0.0, sessions / 50.0, sessions)  # 50 new sessions a second
    times = start[s] + j * 30.0 + rng.exponential(5.0, n)
    times = times + j * 1e-9  # a session's turns stay in order
    order = np.argsort(times, kind="stable")
    s, j, times = s[order], j[order], times[order] - times[order][0]
    lengths = 4 + j
    starts = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    k = np.arange(int(starts[-1]), dtype=np.int64) - np.repeat(starts[:-1], lengths)
    sr = np.repeat(s, lengths)
    ids = np.where(k < 4, (sr % 8) * 4 + k + 1, 1000 + sr * turns + k - 4)
    return Trace(
        ids,
        np.full(ids.shape[0], 512, np.int32),
        starts,
        times,
        lengths * 512,
        np.full(n, 200, np.int64),
        s,
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        512,
        name=f"sessions-{n}",
    )


def cli_curve(requests: int, backend: Backend) -> dict[str, object]:
    """The CLI's LRU curve (simulate.lru_curve) on `requests` generated requests: numpy against
    `backend`, whole curves compared."""
    from prefixlock.sim.simulate import lru_curve

    trace = session_trace(requests)
    plan = engine.plan(trace, warmup=0.5)
    t0 = time.perf_counter()
    ours = lru_curve(trace, backend=NUMPY, plan=plan)
    t_np = time.perf_counter() - t0
    lru_curve(session_trace(2000), backend=backend)  # warm-up: kernels compile on first use
    t0 = time.perf_counter()
    theirs = lru_curve(trace, backend=backend, plan=plan)
    t_dev = time.perf_counter() - t0
    same = bool(
        np.array_equal(ours.token_rate, theirs.token_rate)
        and np.array_equal(ours.block_rate, theirs.block_rate)
    )
    return {
        "requests": trace.requests,
        "references": trace.references,
        "numpy_s": t_np,
        "device_s": t_dev,
        "speedup_vs_numpy": t_np / t_dev,
        "identical": same,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=None)
    ap.add_argument("--configs", type=int, default=256)
    ap.add_argument("--numpy-configs", type=int, default=16)
    ap.add_argument(
        "--batch-refs", type=int, default=20_000_000, help="references per GPU array job"
    )
    ap.add_argument(
        "--crossover", default="1,4,16,64", help="copies of the trace timed as one stream"
    )
    ap.add_argument(
        "--stand-in",
        action="store_true",
        help="without a GPU, run the GPU half on numpy standing in for cupy (checks the "
        "script and the device pipeline's results on a CPU; its speed means nothing)",
    )
    ap.add_argument(
        "--curve-requests",
        type=int,
        default=0,
        help="also time the CLI's LRU curve on this many generated requests, numpy vs the GPU",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="after the timed sweep, run it again with each stage of the device pipeline "
        "timed on its own",
    )
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    path = Path(args.trace) if args.trace else next(p for p in TRACES if p.exists())
    trace = read_trace(path)
    cfgs = configs(max(args.configs, 1))
    report: dict[str, object] = {
        "trace": str(path),
        "configs": len(cfgs),
        "references": trace.references,
    }
    print(
        f"{path.name}: {trace.requests:,} requests, {trace.references:,} references; "
        f"{len(cfgs)} configurations"
    )

    n_np = min(len(cfgs), max(1, args.numpy_configs))
    t_np, refs_np, curves_np = run(trace, cfgs[:n_np], NUMPY, args.batch_refs)
    report["numpy"] = {"configs": n_np, "seconds": t_np, "refs_per_s": refs_np / t_np}
    print(
        f"numpy: {n_np} configurations, {refs_np:,} references in {t_np:.2f} s = "
        f"{refs_np / t_np:,.0f} refs/s"
    )

    rc = 0
    cp: Backend | None = None
    if cupy_available():
        cp = get_backend("cupy")
    elif args.stand_in:
        cp = Backend("numpy standing in for cupy", np, device=True)
        report["stand_in"] = True
        print("no GPU: the GPU half runs on numpy standing in for cupy (timings mean nothing)")
    if cp is not None:
        run(trace, cfgs[:2], cp, args.batch_refs)  # warm-up: kernels compile on first use
        t_gpu, refs_gpu, curves_gpu = run(trace, cfgs, cp, args.batch_refs)
        same = all(np.array_equal(a, b) for a, b in zip(curves_np, curves_gpu[:n_np], strict=True))
        report["cupy"] = {
            "configs": len(cfgs),
            "seconds": t_gpu,
            "refs_per_s": refs_gpu / t_gpu,
            "parity_with_numpy": same,
            "speedup_vs_numpy": (refs_gpu / t_gpu) / (refs_np / t_np),
        }
        label = "cupy" if cp.xp is not np else "stand-in"
        print(
            f"{label}:  {len(cfgs)} configurations, {refs_gpu:,} references in {t_gpu:.2f} s = "
            f"{refs_gpu / t_gpu:,.0f} refs/s ({(refs_gpu / t_gpu) / (refs_np / t_np):.1f}x numpy)"
        )
        print(
            f"parity (first {n_np} configurations, every capacity): "
            f"{'identical' if same else 'DIFFERENT'}"
        )
        rc = 0 if same else 1
        if args.profile:
            stages = profile(trace, cfgs, cp, args.batch_refs)
            report["profile"] = stages
            print(f"{label} sweep by stage (each waited for; total {stages['total']:.3f} s):")
            for name, sec in stages.items():
                if name != "total":
                    print(f"  {name:<40} {sec:8.3f} s {sec / stages['total']:6.1%}")
        print(f"crossover (one trace, auto uses numpy below {AUTO_GPU_MIN_REFERENCES:,}):")
        rows = crossover(trace, cp, [int(k) for k in args.crossover.split(",") if k])
        wins = [r["references"] for r in rows if r["speedup"] > 1]
        report["crossover"] = {"rows": rows, "gpu_wins_from": min(wins) if wins else None}
        if args.curve_requests > 0:
            c = cli_curve(args.curve_requests, cp)
            report["cli_curve"] = c
            print(
                f"CLI LRU curve, {c['requests']:,} requests ({c['references']:,} references): "
                f"numpy {c['numpy_s']:.2f} s, {label} {c['device_s']:.2f} s = "
                f"{c['speedup_vs_numpy']:.1f}x numpy; curves "
                f"{'identical' if c['identical'] else 'DIFFERENT'}"
            )
            rc = rc if c["identical"] else 1
        if cp.xp is not np:
            sweep = report["cupy"]
            assert isinstance(sweep, dict)
            targets = {
                "sweep >= 1e9 references/s": sweep["refs_per_s"] >= 1e9,
                "sweep >= 50x numpy": sweep["speedup_vs_numpy"] >= 50,
            }
            if "cli_curve" in report:
                cc = report["cli_curve"]
                assert isinstance(cc, dict)
                targets["CLI curve >= 10x numpy"] = cc["speedup_vs_numpy"] >= 10
            report["targets"] = targets
            for name, met in targets.items():
                print(f"target {name}: {'met' if met else 'NOT met'}")
    if cp is None or cp.xp is np:
        if cp is None:
            report["cupy"] = "unavailable (no cupy or no CUDA device)"
        print("cupy: unavailable (no cupy or no CUDA device); numpy figures only")
        rc = rc or 3
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
