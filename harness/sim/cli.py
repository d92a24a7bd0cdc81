"""`prefixlock sim`: replay a trace through a KV cache model, or run the client x server matrix.

    prefixlock sim TRACE [--capacity N[,N...]] [--policy lru,fifo,...] [--nodes N --router R]
                         [--json out.json] [--plot curve.png] [--backend auto|numpy|cupy]
    prefixlock sim synthetic [--sessions N] [--turns N] [--style STYLE]   (a generated workload)
    prefixlock sim matrix [--sessions N] [--price MODEL]

Comma-separated values make a sweep (their cartesian product), run over local processes or a Ray
cluster (`--executor ray [--address HOST:PORT]`). Heavy imports stay inside `run`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..command import Command
from ..errors import UserError


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "trace",
        metavar="TRACE",
        help="trace file (.jsonl/.jsonl.gz: Mooncake or prefixlock), 'synthetic' for a generated "
        "agent workload (--sessions, --turns, --style), or 'matrix' for client x server",
    )
    g = p.add_argument_group("trace")
    g.add_argument(
        "--format", default="auto", choices=["auto", "mooncake", "prefixlock"], help="trace format"
    )
    g.add_argument(
        "--block-size",
        type=int,
        default=None,
        help="tokens per block (Mooncake: 512; prefixlock: 64)",
    )
    g.add_argument(
        "--skip-bad", action="store_true", help="skip malformed lines (counted) instead of stopping"
    )
    g.add_argument("--limit", type=int, default=0, help="read only the first N requests")
    g = p.add_argument_group("cache")
    g.add_argument(
        "--capacity", default=None, help="blocks per node (comma list sweeps); default: unbounded"
    )
    g.add_argument(
        "--capacity-bytes", default=None, help="bytes per node, e.g. 80GB (comma list sweeps)"
    )
    g.add_argument(
        "--hbm", default=None, help="HBM tier size per node, e.g. 60GB (with --dram/--ssd)"
    )
    g.add_argument("--dram", default=None, help="DRAM tier size per node, e.g. 512GB")
    g.add_argument("--ssd", default=None, help="SSD tier size per node, e.g. 4TB")
    g.add_argument(
        "--model", default="llama-3.3-70b", help="architecture for KV bytes/token and prefill cost"
    )
    g.add_argument(
        "--precision", default="fp8", help="KV precision: bf16, fp16, fp8, int8, fp4, int4"
    )
    g.add_argument(
        "--policy", default="lru", help="eviction: lru, fifo, lfu, optimal (comma list sweeps)"
    )
    g.add_argument("--ttl", type=float, default=None, help="seconds an idle block stays cached")
    g.add_argument(
        "--no-sharing", action="store_true", help="no cross-tenant sharing of identical blocks"
    )
    g = p.add_argument_group("cluster")
    g.add_argument("--nodes", default="1", help="nodes (comma list sweeps)")
    g.add_argument(
        "--router",
        default="session",
        help="random, round-robin, session, cache-key, prefix, ttft (comma list sweeps)",
    )
    g.add_argument(
        "--load-threshold",
        type=float,
        default=2.0,
        help="queue seconds of imbalance before 'prefix' balances",
    )
    g = p.add_argument_group("measurement and cost")
    g.add_argument(
        "--warmup",
        type=float,
        default=0.5,
        help="fraction of requests before the measurement window",
    )
    g.add_argument(
        "--price",
        default="claude-sonnet-4-6",
        help="price-table model for dollars ('none' to skip)",
    )
    g.add_argument("--prices", default=None, help="price file overriding the built-in table")
    g = p.add_argument_group("output and execution")
    g.add_argument(
        "--json", dest="json_out", default=None, help="write results (and the LRU curve) as JSON"
    )
    g.add_argument(
        "--plot", default=None, help="draw the LRU hit-rate curve to this PNG (matplotlib)"
    )
    g.add_argument(
        "--curve", action="store_true", help="print the one-pass LRU curve at a few capacities"
    )
    g.add_argument(
        "--backend", default="auto", choices=["auto", "numpy", "cupy"], help="array backend"
    )
    g.add_argument(
        "--executor", default="process", choices=["process", "serial", "ray"], help="sweep executor"
    )
    g.add_argument("--jobs", type=int, default=None, help="worker processes for sweeps")
    g.add_argument("--address", default=None, help="Ray cluster address (with --executor ray)")
    g.add_argument("--seed", type=int, default=0,
                   help="seed of the random router and synthetic workloads (default 0)")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g = p.add_argument_group("synthetic workloads (sim synthetic, sim matrix)")
    g.add_argument("--sessions", type=int, default=80, help="synthetic sessions (per client style)")
    g.add_argument("--turns", type=int, default=16, help="mean turns per session")
    g.add_argument(
        "--style",
        default="stable",
        help="client style of 'sim synthetic': stable, timestamp, shuffled-tools, model-switch",
    )


def _csv(value: str, kind: Callable[[str], Any], where: str) -> list[Any]:
    out = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            out.append(kind(part))
        except ValueError:
            raise UserError(f"not a valid value: {part!r}", where=where) from None
    if not out:
        raise UserError("expected at least one value", where=where)
    return out


@contextmanager
def _progress(enabled: bool, label: str, total: int | None) -> Iterator[Callable[[int], None]]:
    if not enabled:
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as prog:
        task = prog.add_task(label, total=total)
        yield lambda n: prog.update(task, completed=n)


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _check_output(path: str | None, where: str) -> None:
    """Refuse an output path that cannot be written before any work is done."""
    from pathlib import Path

    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise UserError(f"{path} is a directory", where=where)
    if not target.parent.is_dir():
        raise UserError(f"cannot write {path}: no directory {target.parent}", where=where)
    if not os.access(target.parent, os.W_OK):
        raise UserError(f"cannot write {path}: directory not writable", where=where)


def _write_atomic(path: str, data: bytes, where: str) -> None:
    import tempfile
    from pathlib import Path

    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".sim-", suffix=".tmp")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}", where=where) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, target)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise UserError(f"cannot write {path}: {exc.strerror}", where=where) from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _configs(args: argparse.Namespace, block_size: int) -> list[Any]:
    import itertools

    from .models import arch, blocks_for_bytes, parse_bytes
    from .simulate import SimConfig

    a = arch(args.model)
    a.kv_bytes_per_token(args.precision)
    caps: list[int | None]
    tiers = None
    for flag in ("capacity", "capacity_bytes", "hbm", "dram", "ssd"):
        if getattr(args, flag) is not None and not str(getattr(args, flag)).strip():
            # An empty value (an unset shell variable) must not mean "unbounded".
            opt = "--" + flag.replace("_", "-")
            raise UserError("empty value: give a size (e.g. --capacity 4096)", where=opt)
    if args.hbm or args.dram or args.ssd:
        sizes = [
            parse_bytes(v, f"--{k}") if v else 0.0
            for k, v in (("hbm", args.hbm), ("dram", args.dram), ("ssd", args.ssd))
        ]
        t = tuple(blocks_for_bytes(s, a, args.precision, block_size) for s in sizes)
        tiers = (int(t[0]), int(t[1]), int(t[2]))
        caps = [None]
    elif args.capacity_bytes:
        caps = []
        for s in _csv(args.capacity_bytes, str, "--capacity-bytes"):
            n = blocks_for_bytes(parse_bytes(s, "--capacity-bytes"), a, args.precision, block_size)
            if n <= 0:
                per = a.kv_bytes_per_token(args.precision) * block_size
                raise UserError(
                    f"{s} holds no block of {block_size} tokens "
                    f"({per:,.0f} bytes per block for {a.name} "
                    f"in {args.precision})",
                    where="--capacity-bytes",
                )
            caps.append(n)
    elif args.capacity:
        caps = _csv(args.capacity, int, "--capacity")
    else:
        caps = [None]
    price = None if str(args.price).lower() == "none" else args.price
    out = []
    for cap, pol, nodes, router in itertools.product(
        caps,
        _csv(args.policy, str, "--policy"),
        _csv(args.nodes, int, "--nodes"),
        _csv(args.router, str, "--router"),
    ):
        cfg = SimConfig(
            capacity=cap,
            policy=pol,
            ttl=args.ttl,
            share=not args.no_sharing,
            nodes=nodes,
            router=router,
            load_threshold=args.load_threshold,
            warmup=args.warmup,
            model=args.model,
            precision=args.precision,
            tiers=tiers,
            price=price,
            prices=args.prices,
            seed=args.seed,
        )
        if pol != "lru" and cap is None and tiers is None:
            raise UserError(f"policy {pol} needs --capacity or --capacity-bytes", where="--policy")
        out.append(cfg.check())
    return out


def _read(args: argparse.Namespace, show: bool) -> Any:
    from .trace import read_trace

    with _progress(show, "reading trace (lines)", None) as tick:
        return read_trace(
            args.trace,
            fmt=args.format,
            skip_bad=args.skip_bad,
            block_size=args.block_size,
            limit=args.limit,
            on_progress=tick,
        )


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _table(
    title: str, header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1
) -> str:
    """A plain text table, the first `left` columns left-aligned and the others right-aligned.
    Printed whole, never cut to the terminal's width; the simulator needs no console library."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i < left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([title, line(header), line(["-" * w for w in widths]), *map(line, rows)])


def run(args: argparse.Namespace) -> int:
    import json
    from dataclasses import replace

    import numpy as np

    show = not args.no_progress and sys.stderr.isatty()
    # Flags checked before any work, so a typo never costs a whole replay.
    _check_output(args.json_out, "--json")
    _check_output(args.plot, "--plot")
    if args.block_size is not None and args.block_size <= 0:
        raise UserError(
            f"must be a positive number of tokens, got {args.block_size}", where="--block-size"
        )
    if args.jobs is not None and args.jobs < 1:
        raise UserError(f"must be at least 1, got {args.jobs}", where="--jobs")
    if args.seed < 0:
        raise UserError(f"must be >= 0, got {args.seed}", where="--seed")
    if args.trace == "matrix":
        return _matrix(args)
    from .backend import get_backend
    from .simulate import lru_curve, simulate

    backend = get_backend(args.backend)
    if args.limit < 0:
        raise UserError("must be >= 0", where="--limit")
    if args.trace == "synthetic":
        from .synthetic import Workload, generate

        if args.sessions <= 0 or args.turns <= 0:
            raise UserError("sessions and turns must be positive", where="--sessions/--turns")
        w = Workload(sessions=args.sessions, turns=args.turns, style=args.style, seed=args.seed)
        if args.block_size:
            w = replace(w, block_size=args.block_size)
        trace = generate(w)
    else:
        trace = _read(args, show)
    configs = _configs(args, trace.block_size)
    plan = None  # the trace on its prefix trie, shared by the one simulation and the curve
    if len(configs) == 1:
        from .engine import plan as make_plan

        plan = make_plan(trace, warmup=configs[0].warmup, share=configs[0].share)
        with _progress(show, "simulating (requests)", trace.requests) as tick:
            results = [simulate(trace, configs[0], backend, on_progress=tick, plan=plan)]
    else:
        from .sweep import run_sweep  # processes or Ray: only for a sweep

        with _progress(show, "sweep", len(configs)) as tick:
            results = run_sweep(
                trace,
                configs,
                executor=args.executor,
                jobs=args.jobs,
                address=args.address,
                on_done=tick,
                backend=backend.name,
            )
    title = (
        f"{trace.name}: {trace.requests:,} requests, "
        f"{trace.references:,} blocks of {trace.block_size} tokens"
        + (f", {trace.skipped} bad lines skipped" if trace.skipped else "")
    )
    header = (
        "config",
        "hit tok",
        "hit blk",
        "prefill tok",
        "GPU-s saved",
        "TTFT mean/p99 s",
        "load max/mean req|tok",
        "$ (no cache $)",
    )
    rows = []
    for cfg, r in zip(configs, results, strict=True):
        money = "-" if r.dollars is None else f"{r.dollars:,.2f} ({r.dollars_without_cache:,.2f})"
        rows.append(
            (
                cfg.label() + (" (underfilled)" if r.underfilled else ""),
                _pct(r.hit_rate_tokens),
                _pct(r.hit_rate_blocks),
                f"{r.prefill_tokens:,}",
                f"{r.prefill_gpu_s_saved:,.0f}",
                f"{r.ttft_mean_s:,.2f} / {r.ttft_p99_s:,.2f}",
                f"{r.load_max_mean_requests:.2f} | {r.load_max_mean_tokens:.2f}",
                money,
            )
        )
    print(_table(title, header, rows), flush=True)
    curve = None
    if args.curve or args.plot or args.json_out:
        curve = lru_curve(
            trace,
            warmup=args.warmup,
            share=not args.no_sharing,
            ttl=args.ttl,
            backend=backend,
            plan=plan,
        )
    if args.curve and curve is not None:
        top = int(curve.capacities[-1])
        points = []
        for frac in (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0):
            c = max(1, int(top * frac))
            tr_, br_ = curve.at(c)
            points.append((f"{c:,}", f"{frac:.1%}", _pct(tr_), _pct(br_)))
        columns = ("capacity (blocks)", "share of unique", "hit (tokens)", "hit (blocks)")
        print()
        print(_table("LRU hit rate at every capacity (one pass)", columns, points, left=0))
    if args.json_out:
        assert curve is not None
        idx = np.unique(np.geomspace(1, len(curve.capacities), 600).astype(np.int64)) - 1
        payload = {
            "trace": {
                "name": trace.name,
                "requests": trace.requests,
                "blocks": trace.references,
                "block_size": trace.block_size,
                "skipped": trace.skipped,
            },
            "results": [r.to_dict() for r in results],
            "lru_curve": {
                "capacities": curve.capacities[idx].tolist(),
                "hit_rate_tokens": curve.token_rate[idx].tolist(),
                "hit_rate_blocks": curve.block_rate[idx].tolist(),
                "warmup_unique_blocks": curve.warmup_unique,
            },
        }
        _write_atomic(
            args.json_out, json.dumps(payload, indent=1, default=float).encode("utf-8"), "--json"
        )
    if args.plot:
        assert curve is not None
        _plot(curve, trace.name, args.plot)
    return 0


def _plot(curve: Any, title: str, path: str) -> None:
    import tempfile
    from pathlib import Path

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError(
            "--plot needs matplotlib: pip install 'prefixlock[plot]'", where="--plot"
        ) from None
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(curve.capacities, curve.token_rate, label="tokens")
    ax.plot(curve.capacities, curve.block_rate, label="blocks", linestyle="--")
    ax.set_xscale("log")
    ax.set_xlabel("capacity (blocks)")
    ax.set_ylabel("LRU hit rate")
    ax.set_title(f"{title}: LRU hit rate by capacity")
    ax.grid(True, alpha=0.3)
    ax.legend()
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".plot-", suffix=".png")
    except OSError as exc:
        plt.close(fig)
        raise UserError(f"cannot write {path}: {exc.strerror}", where="--plot") from None
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=110, bbox_inches="tight", format="png")
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, target)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}", where="--plot") from None
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)


def _matrix(args: argparse.Namespace) -> int:
    import json
    from dataclasses import replace

    from .matrix import run_matrix, summary
    from .synthetic import Workload

    if args.sessions <= 0 or args.turns <= 0:
        raise UserError("sessions and turns must be positive", where="--sessions/--turns")
    price = "claude-sonnet-4-6" if str(args.price).lower() == "none" else args.price
    w = replace(Workload(), sessions=args.sessions, turns=args.turns, seed=args.seed)
    cells = run_matrix(w, price=price)
    servers = sorted({c.server for c in cells}, key=lambda s: s != "cache-aware")
    header = ["client style"]
    for s in servers:
        header += [f"{s}: hit", f"{s}: $", f"{s}: load max/mean"]
    rows = []
    for style in dict.fromkeys(c.style for c in cells):
        row = [style]
        for s in servers:
            c = next(c for c in cells if c.style == style and c.server == s)
            row += [_pct(c.hit_rate), f"{c.dollars:,.2f}", f"{c.load_max_mean_requests:.2f}"]
        rows.append(row)
    title = f"client x server: {args.sessions} sessions per style, priced as {price}"
    print(_table(title, header, rows))
    ratios = summary(cells)
    print(
        "Cost relative to a stable client on a cache-aware server: "
        + ", ".join(f"{k} {v:.1f}x" for k, v in ratios.items())
    )
    if args.json_out:
        payload = {"cells": [c.__dict__ for c in cells], "relative_cost": ratios}
        _write_atomic(
            args.json_out, json.dumps(payload, indent=1, default=float).encode("utf-8"), "--json"
        )
    return 0


COMMAND = Command(
    help="simulate KV-prefix caches on traces (hit rates, routing, cost); "
    "'sim matrix' for client x server",
    configure=configure,
    run=run,
    order=60,
)
