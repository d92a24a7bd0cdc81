"""`prefixlock sim`: replay a trace through a KV cache model, or run the client x server matrix.

    prefixlock sim TRACE [--capacity N[,N...]] [--policy lru,fifo,...] [--nodes N --router R]
                         [--json out.json] [--plot curve.png] [--backend auto|numpy|cupy]
    prefixlock sim synthetic [--sessions N] [--turns N] [--style STYLE]   (a generated workload)
    prefixlock sim agents [--sessions N]          (coding-agent sessions calibrated on real logs)
    prefixlock sim matrix [--sessions N] [--price MODEL]

Comma-separated values make a sweep (their cartesian product), run over local processes or a Ray
cluster (`--executor ray [--address HOST:PORT]`). A run goes in steps: check the flags, make or
read the trace, build the configurations, simulate them, report (`report` prints and writes;
`flags` declares the flags). Heavy imports stay inside the steps.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..cli.command import Command
from ..errors import UserError
from . import flags

if TYPE_CHECKING:
    from .backend import Backend
    from .capacity import Capacity, Decode
    from .engine import Curve, Plan
    from .models import Arch
    from .simulate import SimConfig, SimResult
    from .trace import Trace


def run(args: argparse.Namespace) -> int:
    """`prefixlock sim`: check the flags, make or read the trace, build the configurations,
    then simulate and report them (or find their highest rates, or run the matrix)."""
    from .backend import get_backend

    _check_flags(args)
    if args.trace == "matrix":
        return _matrix(args)
    _check_replay_flags(args)
    show = not args.no_progress and sys.stderr.isatty()
    trace = _workload(args, show)
    backend = get_backend(args.backend, references=trace.references)
    chosen = _configs(args, trace.block_size)
    _check_memory(args, trace, [c for c, _ in chosen])
    if args.max_rate:
        return _max_rate(args, trace, [c for c, _ in chosen], backend)
    configs, results, plan = _simulate(args, trace, chosen, backend, show)
    _report(args, trace, backend, configs, results, plan)
    return 0


# ---- the inputs ----------------------------------------------------------------------------------


def available_memory() -> float:
    """Bytes of memory the system can give this run now (Linux MemAvailable; elsewhere the
    free physical pages)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return float("inf")


def _check_memory(args: argparse.Namespace, trace: Trace, configs: list[SimConfig]) -> None:
    """Refuse, before the engine starts, a run that would not fit in memory (--max-memory)."""
    from .cluster import AWARE
    from .memory import check_fits
    from .models import parse_bytes

    budget = parse_bytes(args.max_memory, "--max-memory") if args.max_memory else available_memory()
    caches = max(
        (c.nodes * (2 if c.router == "sglang" else 1) for c in configs if c.router in AWARE),
        default=0,
    )
    caches = caches if any(c.nodes > 1 for c in configs) else 0
    distinct = None
    if caches and trace.references:
        import numpy as np

        # ids are dense in Mooncake traces: the largest bounds the distinct ones cheaply; else
        # count them (a sort, small beside the run it guards)
        distinct = min(trace.references, int(trace.ids.max()) + 1)
        try:
            check_fits(
                trace.requests, trace.references, budget, aware_caches=caches, distinct=distinct
            )
            return
        except UserError:
            distinct = int(np.unique(trace.ids).shape[0])
    check_fits(trace.requests, trace.references, budget, aware_caches=caches, distinct=distinct)


def _check_flags(args: argparse.Namespace) -> None:
    """Refuse unwritable output paths and impossible numbers before any work, so a typo never
    costs a whole replay."""
    from .report import check_output

    check_output(args.json_out, "--json")
    check_output(args.plot, "--plot")
    check_output(args.rate_plot, "--rate-plot")
    if args.block_size is not None and args.block_size <= 0:
        raise UserError(
            f"must be a positive number of tokens, got {args.block_size}", where="--block-size"
        )
    if args.jobs is not None and args.jobs < 1:
        raise UserError(f"must be at least 1, got {args.jobs}", where="--jobs")
    if args.seed < 0:
        raise UserError(f"must be >= 0, got {args.seed}", where="--seed")


def _check_replay_flags(args: argparse.Namespace) -> None:
    """The flags only a replay reads (`sim matrix` does not): an unusable --backend fails before
    any reading, and --limit."""
    from .backend import get_backend

    get_backend(args.backend, references=0)
    if args.limit < 0:
        raise UserError("must be >= 0", where="--limit")


def _workload(args: argparse.Namespace, show: bool) -> Trace:
    """The trace to replay: generated (`synthetic`, `agents`) or read from the file named."""
    from dataclasses import replace

    if args.trace == "synthetic":
        from .synthetic import Workload, generate

        if args.sessions <= 0 or args.turns <= 0:
            raise UserError("sessions and turns must be positive", where="--sessions/--turns")
        w = Workload(sessions=args.sessions, turns=args.turns, style=args.style, seed=args.seed)
        if args.block_size:
            w = replace(w, block_size=args.block_size)
        return generate(w)
    if args.trace == "agents":
        from .agents import CALIBRATION, AgentWorkload, generate_agents

        if args.sessions <= 0:
            raise UserError("sessions must be positive", where="--sessions")
        aw = AgentWorkload(sessions=args.sessions, seed=args.seed)
        if args.block_size:
            aw = replace(aw, block_size=args.block_size)
        trace = generate_agents(aw)
        print(f"note: coding-agent workload {CALIBRATION}", file=sys.stderr)
        return trace
    return _read(args, show)


def _read(args: argparse.Namespace, show: bool) -> Trace:
    """The trace file, with a progress bar of the lines read."""
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


# ---- the configurations --------------------------------------------------------------------------


def _configs(args: argparse.Namespace, block_size: int) -> list[tuple[SimConfig, bool]]:
    """Each configuration of the sweep (the product of the comma lists), and whether its node
    count is 'auto'."""
    import itertools

    from .models import arch
    from .simulate import SimConfig

    a = arch(args.model)
    a.kv_bytes_per_token(args.precision)
    caps, tiers = _capacities(args, a, block_size)
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
            overhead_s=args.overhead,
            weight_precision=args.weight_precision,
            gpu_price=args.gpu_price,
            dram_gbps=args.dram_gbps,
            ssd_gbps=args.ssd_gbps,
            net_gbps=args.net_gbps,
            handoff=args.handoff,
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


def _capacities(
    args: argparse.Namespace, a: Arch, block_size: int
) -> tuple[list[int | None], tuple[int, int, int] | None]:
    """The cache sizes to sweep, in blocks of `block_size` tokens (None: unbounded), and the
    tiers (HBM, DRAM, SSD blocks) when --hbm/--dram/--ssd give them."""
    from .models import blocks_for_bytes, parse_bytes

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
    return caps, tiers


# ---- the run -------------------------------------------------------------------------------------


def _simulate(
    args: argparse.Namespace,
    trace: Trace,
    chosen: list[tuple[SimConfig, bool]],
    backend: Backend,
    show: bool,
) -> tuple[list[SimConfig], list[SimResult], Plan | None]:
    """Each configuration's result, with the configurations as they ran ('auto' node counts
    resolved) and the trace's plan where it was made here (the curve reuses it): one
    configuration, or any with 'auto' nodes, runs in this process; a sweep runs over processes
    or Ray."""
    configs = [c for c, _ in chosen]
    if len(configs) == 1 or any(auto for _, auto in chosen):
        return _simulate_here(args, trace, chosen, backend, show)
    return configs, _sweep(args, trace, configs, backend, show), None


def _simulate_here(
    args: argparse.Namespace,
    trace: Trace,
    chosen: list[tuple[SimConfig, bool]],
    backend: Backend,
    show: bool,
) -> tuple[list[SimConfig], list[SimResult], Plan]:
    """Each configuration in turn on one plan of the trace; an 'auto' node count is sized to
    the smallest cluster meeting the TTFT objective."""
    from dataclasses import replace

    from .engine import plan as make_plan
    from .simulate import simulate, smallest_cluster

    configs = [c for c, _ in chosen]
    # the trace on its prefix trie, shared by the simulations and the curve
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
    return configs, results, plan


def _sweep(
    args: argparse.Namespace,
    trace: Trace,
    configs: list[SimConfig],
    backend: Backend,
    show: bool,
) -> list[SimResult]:
    """A sweep's results, over local processes or a Ray cluster (--executor)."""
    from .sweep import run_sweep  # processes or Ray: only for a sweep

    with _progress(show, "sweep", len(configs)) as tick:
        return run_sweep(
            trace,
            configs,
            executor=args.executor,
            jobs=args.jobs,
            address=args.address,
            connect_timeout=args.connect_timeout,
            on_done=tick,
            backend=backend.name,
        )


def _report(
    args: argparse.Namespace,
    trace: Trace,
    backend: Backend,
    configs: list[SimConfig],
    results: list[SimResult],
    plan: Plan | None,
) -> None:
    """The results table and notes, then what the flags ask of the LRU curve: its table
    (--curve), the JSON (--json, with the results) and the plot (--plot)."""
    from . import report

    report.print_replay(trace, configs, results, args.backend)
    curve = _curve(args, trace, backend, plan)
    if args.curve and curve is not None:
        print()
        print(report.curve_table(curve))
    if args.json_out:
        assert curve is not None
        every = list(dict.fromkeys(w for r in results for w in r.warnings))
        report.write_json(
            args.json_out, report.replay_payload(trace, backend.name, results, curve, every)
        )
    if args.plot:
        assert curve is not None
        _plot(args, trace, configs, curve, plan, backend)


def _plot(
    args: argparse.Namespace,
    trace: Trace,
    configs: list[SimConfig],
    curve: Curve,
    plan: Plan | None,
    backend: Backend,
) -> None:
    """--plot: the one-pool curve, and the first multi-node configuration's cluster and nodes
    where its router has a one-pass curve (else the plot says it shows the pool only)."""
    from . import report
    from .cluster import STATELESS
    from .simulate import cluster_curve, node_curves

    multi = next((c for c in configs if c.nodes > 1), None)
    if multi is None:
        report.plot_curve(curve, trace.name, args.plot)
        return
    if multi.router not in STATELESS:
        note = (
            f"one pool only: {multi.label()} places requests by cache state, so its cluster "
            "has no one-pass curve (its hit rate at its capacity is in the table)"
        )
        report.plot_curve(curve, trace.name, args.plot, note=note)
        return
    nodes = node_curves(trace, multi, plan, backend)
    label = f"{multi.nodes} nodes, {multi.router}"
    report.plot_curve(
        curve, trace.name, args.plot, nodes, cluster_curve(nodes), label, f"cluster: {label}"
    )


def _curve(
    args: argparse.Namespace, trace: Trace, backend: Backend, plan: Plan | None
) -> Curve | None:
    """The one-pass LRU curve, where --curve, --plot or --json wants it."""
    if not (args.curve or args.plot or args.json_out):
        return None
    from .simulate import lru_curve

    return lru_curve(
        trace,
        warmup=args.warmup,
        share=not args.no_sharing,
        ttl=args.ttl,
        backend=backend,
        plan=plan,
    )


# ---- --max-rate ----------------------------------------------------------------------------------


def _max_rate(
    args: argparse.Namespace, trace: Trace, configs: list[SimConfig], backend: Backend
) -> int:
    """`--max-rate`: each configuration's highest rate within the objective, then the curve."""
    from . import report
    from .capacity import max_rate

    decode = _decode(args)
    show = not args.no_progress and sys.stderr.isatty()
    caps: list[Capacity] = []
    for cfg in configs:
        with _progress(show, f"max rate: {cfg.label()}", None) as tick:
            caps.append(max_rate(trace, cfg, slo_s=args.slo_ttft, decode=decode, backend=backend))
            tick(1)
    report.print_rates(trace, caps, args.slo_ttft, decode)
    if args.json_out:
        every = list(dict.fromkeys(w for c in caps for w in c.result.warnings))
        report.write_json(args.json_out, report.rates_payload(trace, caps, args.slo_ttft, every))
    if args.rate_plot:
        report.plot_rates(caps, trace.name, args.slo_ttft, args.rate_plot)
    return 0


def _decode(args: argparse.Namespace) -> Decode | None:
    """The decode model --decode asks for (None: prefill only)."""
    from .capacity import Decode

    if not args.decode:
        return None
    return Decode(
        batch=args.decode_batch,
        disaggregated=args.disaggregate is not None,
        decode_share=args.disaggregate if args.disaggregate is not None else 0.5,
        tpot_slo_s=args.slo_tpot,
        chunk_tokens=args.chunk_tokens,
    ).check()


# ---- sim matrix ----------------------------------------------------------------------------------


def _matrix(args: argparse.Namespace) -> int:
    """`sim matrix`: every client style on every server design, priced as --price."""
    from dataclasses import replace

    from . import report
    from .matrix import run_matrix, summary
    from .synthetic import Workload

    if args.sessions <= 0 or args.turns <= 0:
        raise UserError("sessions and turns must be positive", where="--sessions/--turns")
    price = "claude-sonnet-4-6" if str(args.price).lower() == "none" else args.price
    w = replace(Workload(), sessions=args.sessions, turns=args.turns, seed=args.seed)
    cells = run_matrix(w, price=price)
    ratios = summary(cells)
    report.print_matrix(cells, ratios, args.sessions, price)
    if args.json_out:
        report.write_json(args.json_out, report.matrix_payload(cells, ratios))
    return 0


# ---- helpers -------------------------------------------------------------------------------------


def _nodes(text: str) -> int:
    """A node count, or 0 for 'auto' (the smallest cluster meeting the TTFT objective).
    A literal 0 (or less) is a mistake, not a way to spell 'auto'."""
    if text.lower() == "auto":
        return 0
    if int(text) < 1:
        raise ValueError(text)
    return int(text)


def _csv(value: str, kind: Callable[[str], Any], where: str) -> list[Any]:
    """A comma list's values, each read by `kind`; a bad or missing one is said with `where`."""
    out = []
    for part in value.split(","):
        part = part.strip()
        if not part:  # "1,,2": a value lost to a typo must not shrink the sweep unsaid
            raise UserError(f"an empty item in the list {value!r}", where=where)
        try:
            out.append(kind(part))
        except ValueError:
            raise UserError(f"not a valid value: {part!r}", where=where) from None
    if not out:
        raise UserError("expected at least one value", where=where)
    return out


@contextmanager
def _progress(enabled: bool, label: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A transient progress bar on stderr while the block runs, fed by the callback it yields
    (a no-op when not `enabled`)."""
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


COMMAND = Command(
    help="simulate KV-prefix caches on traces (hit rates, routing, cost); "
    "'sim matrix' for client x server",
    configure=flags.configure,
    run=run,
    order=60,
)
