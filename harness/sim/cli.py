"""`prefixlock sim`: replay a trace through a KV cache model, or run the client x server matrix.

    prefixlock sim TRACE [--capacity N[,N...]] [--policy lru,fifo,...] [--nodes N --router R]
                         [--json out.json] [--plot curve.png] [--backend auto|numpy|cupy]
    prefixlock sim synthetic [--sessions N] [--turns N] [--style STYLE]   (a generated workload)
    prefixlock sim agents [--sessions N]          (coding-agent sessions calibrated on real logs)
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

from ..cli.command import Command
from ..errors import UserError


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "trace",
        metavar="TRACE",
        help="trace file (.jsonl/.jsonl.gz: Mooncake or prefixlock), 'synthetic' for a generated "
        "chat-style workload (--sessions, --turns, --style), 'agents' for a coding-agent "
        "workload calibrated on real session logs (--sessions), or 'matrix' for client x server",
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
    g.add_argument(
        "--nodes",
        default="1",
        help="nodes (comma list sweeps), or 'auto': the smallest cluster meeting --slo-ttft",
    )
    g.add_argument(
        "--slo-ttft",
        type=float,
        default=2.0,
        help="TTFT objective in seconds for --nodes auto (default 2)",
    )
    g.add_argument(
        "--slo-pct",
        type=float,
        default=90.0,
        help="percentile the TTFT objective applies to: 50, 90 or 99 (default 90)",
    )
    g.add_argument(
        "--router",
        default="session",
        help="random, round-robin, session, cache-key (ignore cache state); sglang (SGLang's "
        "cache-aware router), longest-prefix (a heuristic reading the real caches), ttft "
        "(Mooncake's Conductor) (comma list sweeps)",
    )
    g.add_argument(
        "--load-threshold",
        type=float,
        default=2.0,
        help="queue seconds of imbalance before 'longest-prefix' balances",
    )
    g.add_argument(
        "--cache-threshold",
        type=float,
        default=0.5,
        help="sglang: least prefix match rate that routes to the best match (default 0.5)",
    )
    g.add_argument(
        "--balance-abs-threshold",
        type=int,
        default=32,
        help="sglang: in-flight requests of imbalance before it balances (default 32)",
    )
    g.add_argument(
        "--balance-rel-threshold",
        type=float,
        default=1.0001,
        help="sglang: ratio of the longest to the shortest load before it balances",
    )
    g.add_argument(
        "--max-rate",
        action="store_true",
        help="find the highest request rate each configuration serves with p90 TTFT within "
        "--slo-ttft (the trace replayed faster or slower), and the served rate past it with "
        "early rejection",
    )
    g.add_argument(
        "--decode",
        action="store_true",
        help="with --max-rate: model decode (memory-bound steps, co-located chunked prefill)",
    )
    g.add_argument("--decode-batch", type=int, default=64, help="decode batch (default 64)")
    g.add_argument(
        "--disaggregate",
        type=float,
        default=None,
        metavar="SHARE",
        help="with --decode: this share of the nodes only decodes, the rest only prefill",
    )
    g.add_argument(
        "--slo-tpot", type=float, default=None, help="p90 TPOT objective in seconds (--decode)"
    )
    g.add_argument("--rate-plot", default=None, help="draw offered vs served rate to this PNG")
    g = p.add_argument_group("compute (one node = one model instance)")
    g.add_argument("--gpu", default="h100", help="h100, h200 or b200 (default h100)")
    g.add_argument(
        "--tp",
        type=int,
        default=0,
        help="GPUs per node (tensor parallel); default: the fewest that hold the weights",
    )
    g.add_argument(
        "--mfu", type=float, default=0.45, help="model FLOPs utilisation of prefill (0.45)"
    )
    g.add_argument(
        "--weight-precision", default="fp8", help="weights: bf16, fp8, ... (sizes TP, picks peak)"
    )
    g.add_argument(
        "--gpu-price",
        type=float,
        default=None,
        help="$ per GPU-hour for GPU dollars (default: the catalogue's assumed price)",
    )
    g.add_argument(
        "--dram-gbps", type=float, default=25.0, help="GB/s DRAM -> GPU for a DRAM hit (25)"
    )
    g.add_argument("--ssd-gbps", type=float, default=5.0, help="GB/s SSD -> GPU (5)")
    g.add_argument(
        "--net-gbps", type=float, default=25.0, help="GB/s node -> node KV copies (ttft, 25)"
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
    g.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the random router and synthetic workloads (default 0)",
    )
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g = p.add_argument_group("synthetic workloads (sim synthetic, sim matrix)")
    g.add_argument("--sessions", type=int, default=80, help="synthetic sessions (per client style)")
    g.add_argument("--turns", type=int, default=16, help="mean turns per session")
    g.add_argument(
        "--style",
        default="stable",
        help="client style of 'sim synthetic': stable, timestamp, shuffled-tools, model-switch",
    )


def _nodes(text: str) -> int:
    """A node count, or 0 for 'auto' (the smallest cluster meeting the TTFT objective).
    A literal 0 (or less) is a mistake, not a way to spell 'auto'."""
    if text.lower() == "auto":
        return 0
    if int(text) < 1:
        raise ValueError(text)
    return int(text)


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
    from ..atomicfile import write_bytes

    try:
        write_bytes(path, data)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}", where=where) from None


def _configs(args: argparse.Namespace, block_size: int) -> list[tuple[Any, bool]]:
    """Each configuration of the sweep, and whether its node count is 'auto'."""
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
        _csv(args.nodes, _nodes, "--nodes"),
        _csv(args.router, str, "--router"),
    ):
        cfg = SimConfig(
            capacity=cap,
            policy=pol,
            ttl=args.ttl,
            share=not args.no_sharing,
            nodes=max(nodes, 1),
            router=router,
            load_threshold=args.load_threshold,
            cache_threshold=args.cache_threshold,
            balance_abs_threshold=args.balance_abs_threshold,
            balance_rel_threshold=args.balance_rel_threshold,
            gpu=args.gpu,
            gpus=args.tp,
            mfu=args.mfu,
            weight_precision=args.weight_precision,
            gpu_price=args.gpu_price,
            dram_gbps=args.dram_gbps,
            ssd_gbps=args.ssd_gbps,
            net_gbps=args.net_gbps,
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
        out.append((cfg.check(), nodes == 0))
    return out


def _read(args: argparse.Namespace, show: bool) -> Any:
    from .tracefile import read_trace

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


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
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
    _check_output(args.rate_plot, "--rate-plot")
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
    from .backend import AUTO_GPU_MIN_REFERENCES, get_backend
    from .simulate import lru_curve, simulate

    get_backend(args.backend, references=0)  # an unusable choice fails before any reading
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
    elif args.trace == "agents":
        from .agents import CALIBRATION, AgentWorkload, generate_agents

        if args.sessions <= 0:
            raise UserError("sessions must be positive", where="--sessions")
        aw = AgentWorkload(sessions=args.sessions, seed=args.seed)
        if args.block_size:
            aw = replace(aw, block_size=args.block_size)
        trace = generate_agents(aw)
        print(f"note: coding-agent workload {CALIBRATION}", file=sys.stderr)
    else:
        trace = _read(args, show)
    backend = get_backend(args.backend, references=trace.references)
    chosen = _configs(args, trace.block_size)
    configs = [c for c, _ in chosen]
    if args.max_rate:
        return _max_rate(args, trace, configs, backend)
    plan = None  # the trace on its prefix trie, shared by the simulations and the curve
    if len(configs) == 1 or any(auto for _, auto in chosen):
        from .engine import plan as make_plan
        from .simulate import smallest_cluster

        plan = make_plan(trace, warmup=configs[0].warmup, share=configs[0].share)
        results = []
        for cfg, auto in chosen:
            if auto:
                with _progress(show, "sizing the cluster", None) as tick:
                    r, _ = smallest_cluster(
                        trace,
                        cfg,
                        slo_s=args.slo_ttft,
                        percentile=args.slo_pct,
                        backend=backend,
                        plan=plan,
                    )
                    tick(1)
            else:
                with _progress(show, "simulating (requests)", trace.requests) as tick:
                    r = simulate(trace, cfg, backend, on_progress=tick, plan=plan)
            results.append(r)
        # label each row with the cluster it ran on ('auto' resolved)
        configs = [
            replace(c, nodes=int(r.config["nodes"])) for c, r in zip(configs, results, strict=True)
        ]
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
        + "".join(f"\nnode: {n}" for n in dict.fromkeys(r.node for r in results))
        + f"\nbackend: {', '.join(dict.fromkeys(r.backend for r in results))}"
        + (
            f" (auto: numpy below {AUTO_GPU_MIN_REFERENCES:,} references)"
            if args.backend == "auto"
            else ""
        )
    )
    header = (
        "config",
        "router used",
        "hit tok",
        "hit blk",
        "prefill tok",
        "GPU-s saved",
        "TTFT mean/p90/p99 s",
        "util max",
        "queue s/s",
        "load max/mean req|tok",
        "GPU $ (no cache)",
        "API $ (no cache)",
    )
    rows = []
    for cfg, r in zip(configs, results, strict=True):
        money = "-" if r.dollars is None else f"{r.dollars:,.2f} ({r.dollars_without_cache:,.2f})"
        rows.append(
            (
                cfg.label() + (" (underfilled)" if r.underfilled else ""),
                r.router_used,
                _pct(r.hit_rate_tokens),
                _pct(r.hit_rate_blocks),
                f"{r.prefill_tokens:,}",
                f"{r.prefill_gpu_s_saved:,.0f}",
                f"{r.ttft_mean_s:,.2f} / {r.ttft_p90_s:,.2f} / {r.ttft_p99_s:,.2f}",
                f"{max(r.node_utilisation, default=0.0):.0%}" + (" !" if r.overloaded else ""),
                f"{r.queue_growth_s_per_s:+.2f}",
                f"{r.load_max_mean_requests:.2f} | {r.load_max_mean_tokens:.2f}",
                f"{r.gpu_dollars:,.2f} ({r.gpu_dollars_without_cache:,.2f})",
                money,
            )
        )
    print(_table(title, header, rows), flush=True)
    for cfg, r in zip(configs, results, strict=True):
        for note in dict.fromkeys(r.notes):
            print(f"note ({cfg.label()}): {note}", file=sys.stderr)
        for warning in r.warnings:
            print(f"warning ({cfg.label()}): {warning}", file=sys.stderr)
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
            "backend": backend.name,
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


def _max_rate(args: argparse.Namespace, trace: Any, configs: list[Any], backend: Any) -> int:
    """`--max-rate`: each configuration's highest rate within the objective, then the curve."""
    import json

    from .capacity import Decode, max_rate

    decode = None
    if args.decode:
        decode = Decode(
            batch=args.decode_batch,
            disaggregated=args.disaggregate is not None,
            decode_share=args.disaggregate if args.disaggregate is not None else 0.5,
            tpot_slo_s=args.slo_tpot,
        ).check()
    show = not args.no_progress and sys.stderr.isatty()
    caps = []
    for cfg in configs:
        with _progress(show, f"max rate: {cfg.label()}", None) as tick:
            caps.append(max_rate(trace, cfg, slo_s=args.slo_ttft, decode=decode, backend=backend))
            tick(1)
    base = caps[0].max_rps
    rows = []
    for c in caps:
        r = c.result
        at = next((p for p in c.curve if p.speedup == c.speedup), c.curve[0])
        rows.append(
            (
                c.label,
                r.router_used,
                f"{c.max_rps:,.3f}",
                f"{c.max_rps / base - 1:+.0%}" if base else "-",
                f"{c.speedup:,.3g}x",
                _pct(r.hit_rate_tokens),
                f"{r.ttft_p90_s:,.2f}",
                "-" if at.tpot_p90_s is None else f"{1000 * at.tpot_p90_s:,.1f}",
                f"{max(r.node_utilisation, default=0.0):.0%}",
            )
        )
    title = (
        f"{trace.name}: highest request rate with p90 TTFT <= {args.slo_ttft:g} s"
        + (
            ""
            if decode is None
            else f" (decode modelled, batch {decode.batch}"
            + (", disaggregated)" if decode.disaggregated else ", co-located)")
        )
        + f"\nnode: {caps[0].result.node}"
    )
    header = (
        "config",
        "router used",
        "req/s",
        "vs first",
        "trace speed",
        "hit tok",
        "TTFT p90 s",
        "TPOT ms",
        "util max",
    )
    print(_table(title, header, rows), flush=True)
    print()
    curve_rows = [
        (
            c.label,
            f"{p.offered_rps:,.3f}",
            f"{p.served_rps:,.3f}",
            f"{p.rejected:.1%}",
            f"{p.ttft_p90_s:,.2f}",
        )
        for c in caps
        for p in c.curve
    ]
    print(
        _table(
            "with early rejection"
            " (a request is turned away when its TTFT would exceed the objective)",
            ("config", "offered req/s", "served req/s", "rejected", "served TTFT p90 s"),
            curve_rows,
        )
    )
    if args.json_out:
        payload = {
            "trace": trace.name,
            "slo_ttft_s": args.slo_ttft,
            "capacities": [
                {
                    "config": c.label,
                    "max_rps": c.max_rps,
                    "speedup": c.speedup,
                    "result": c.result.to_dict(),
                    "curve": [p.__dict__ for p in c.curve],
                }
                for c in caps
            ],
        }
        _write_atomic(
            args.json_out, json.dumps(payload, indent=1, default=float).encode("utf-8"), "--json"
        )
    if args.rate_plot:
        _plot_rates(caps, trace.name, args.slo_ttft, args.rate_plot)
    return 0


def _plot_rates(caps: list[Any], title: str, slo: float, path: str) -> None:
    plt = _pyplot("--rate-plot")
    fig, ax = plt.subplots(figsize=(7, 4))
    for c in caps:
        ax.plot(
            [p.offered_rps for p in c.curve],
            [p.served_rps for p in c.curve],
            marker="o",
            label=f"{c.label}: {c.max_rps:.2f} req/s",
        )
        ax.axvline(c.max_rps, linestyle=":", color=ax.lines[-1].get_color())
    ax.set_xlabel("offered requests/s")
    ax.set_ylabel(f"served within {slo:g} s TTFT (req/s)")
    ax.set_title(f"{title}: throughput under a p90 TTFT objective")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, plt, path, "--rate-plot")


def _pyplot(where: str) -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError(
            f"{where} needs matplotlib: pip install 'prefixlock[plot]'", where=where
        ) from None
    return plt


def _save(fig: Any, plt: Any, path: str, where: str) -> None:
    from ..atomicfile import replacing

    try:
        with replacing(path) as fh:
            fig.savefig(fh, dpi=110, bbox_inches="tight", format="png")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}", where=where) from None
    finally:
        plt.close(fig)


def _plot(curve: Any, title: str, path: str) -> None:
    plt = _pyplot("--plot")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(curve.capacities, curve.token_rate, label="tokens")
    ax.plot(curve.capacities, curve.block_rate, label="blocks", linestyle="--")
    ax.set_xscale("log")
    ax.set_xlabel("capacity (blocks)")
    ax.set_ylabel("LRU hit rate")
    ax.set_title(f"{title}: LRU hit rate by capacity")
    ax.grid(True, alpha=0.3)
    ax.legend()
    _save(fig, plt, path, "--plot")


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
