"""What `prefixlock sim` prints and writes: its plain-text tables, the JSON results and the PNG
plots, and the check that an output path can be written before any work is done.

The tables are printed whole, never cut to the terminal's width: the simulator needs no console
library. numpy and matplotlib are imported only by the functions that need them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:
    from .capacity import Capacity, Decode
    from .engine import Curve
    from .matrix import Cell
    from .simulate import SimConfig, SimResult
    from .trace import Trace

# One row a configuration: the replay's figures, in the order of `replay_row`.
REPLAY_HEADER = (
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
RATE_HEADER = (
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
CURVE_POINTS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0)  # shares of the unique blocks
JSON_CURVE_POINTS = 600  # capacities of the LRU curve written to --json, spaced geometrically


def check_output(path: str | None, where: str) -> None:
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


def write_json(path: str, payload: Any, where: str = "--json") -> None:
    """`payload` as indented JSON at `path`, whole or not at all (numpy floats as floats)."""
    from ..atomicfile import write_bytes

    data = json.dumps(payload, indent=1, default=float).encode("utf-8")
    try:
        write_bytes(path, data)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}", where=where) from None


def pct(x: float) -> str:
    """A rate as a percentage with two decimals."""
    return f"{100 * x:.2f}%"


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain text table, the first `left` columns left-aligned and the others right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i < left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([title, line(header), line(["-" * w for w in widths]), *map(line, rows)])


# ---- a replay ------------------------------------------------------------------------------------


def replay_title(trace: Trace, results: Sequence[SimResult], backend_choice: str) -> str:
    """The trace, the nodes and the backends the results ran on (`backend_choice`: --backend)."""
    from .backend import auto_note

    chosen = results[0].backend if results else "numpy"
    return (
        f"{trace.name}: {trace.requests:,} requests, "
        f"{trace.references:,} blocks of {trace.block_size} tokens"
        + (f", {trace.skipped} bad lines skipped" if trace.skipped else "")
        + "".join(f"\nnode: {n}" for n in dict.fromkeys(r.node for r in results))
        + f"\nbackend: {', '.join(dict.fromkeys(r.backend for r in results))}"
        + (f" ({auto_note(trace.references, chosen)})" if backend_choice == "auto" else "")
    )


def replay_row(cfg: SimConfig, r: SimResult) -> tuple[str, ...]:
    """One configuration's row under `REPLAY_HEADER`."""
    money = "-" if r.dollars is None else f"{r.dollars:,.2f} ({r.dollars_without_cache:,.2f})"
    return (
        cfg.label() + (" (underfilled)" if r.underfilled else ""),
        r.router_used,
        pct(r.hit_rate_tokens),
        pct(r.hit_rate_blocks),
        f"{r.prefill_tokens:,}",
        f"{r.prefill_gpu_s_saved:,.0f}",
        f"{r.ttft_mean_s:,.2f} / {r.ttft_p90_s:,.2f} / {r.ttft_p99_s:,.2f}",
        f"{max(r.node_utilisation, default=0.0):.0%}" + (" !" if r.overloaded else ""),
        f"{r.queue_growth_s_per_s:+.2f}",
        f"{r.load_max_mean_requests:.2f} | {r.load_max_mean_tokens:.2f}",
        f"{r.gpu_dollars:,.2f} ({r.gpu_dollars_without_cache:,.2f})",
        money,
    )


def print_replay(
    trace: Trace,
    configs: Sequence[SimConfig],
    results: Sequence[SimResult],
    backend_choice: str,
) -> None:
    """The results table on stdout, then each configuration's notes and warnings on stderr."""
    rows = [replay_row(cfg, r) for cfg, r in zip(configs, results, strict=True)]
    print(table(replay_title(trace, results, backend_choice), REPLAY_HEADER, rows), flush=True)
    for cfg, r in zip(configs, results, strict=True):
        for note in dict.fromkeys(r.notes):
            print(f"note ({cfg.label()}): {note}", file=sys.stderr)
        for warning in r.warnings:
            print(f"warning ({cfg.label()}): {warning}", file=sys.stderr)


def curve_table(curve: Curve) -> str:
    """The one-pass LRU curve at a few shares of the trace's unique blocks."""
    top = int(curve.capacities[-1])
    points = []
    for frac in CURVE_POINTS:
        c = max(1, int(top * frac))
        tr_, br_ = curve.at(c)
        points.append((f"{c:,}", f"{frac:.1%}", pct(tr_), pct(br_)))
    columns = ("capacity (blocks)", "share of unique", "hit (tokens)", "hit (blocks)")
    return table("LRU hit rate at every capacity (one pass)", columns, points, left=0)


def trace_info(trace: Trace) -> dict[str, Any]:
    """The --json `trace` object."""
    return {
        "name": trace.name,
        "requests": trace.requests,
        "blocks": trace.references,
        "block_size": trace.block_size,
        "skipped": trace.skipped,
    }


def replay_payload(
    trace: Trace,
    backend: str,
    results: Iterable[SimResult],
    curve: Curve,
    warnings: Sequence[str] = (),
) -> dict[str, Any]:
    """The replay's --json (schema.SCHEMA, mode "replay"): the trace, each result, and the LRU
    curve at `JSON_CURVE_POINTS` capacities."""
    import numpy as np

    from .schema import envelope

    idx = np.unique(np.geomspace(1, len(curve.capacities), JSON_CURVE_POINTS).astype(np.int64)) - 1
    return envelope(
        "replay",
        [r.to_dict() for r in results],
        trace=trace_info(trace),
        backend=backend,
        warnings=list(warnings),
        lru_curve={
            "capacities": curve.capacities[idx].tolist(),
            "hit_rate_tokens": curve.token_rate[idx].tolist(),
            "hit_rate_blocks": curve.block_rate[idx].tolist(),
            "warmup_unique_blocks": curve.warmup_unique,
        },
    )


def plot_curve(
    curve: Curve,
    title: str,
    path: str,
    nodes: Sequence[Curve] = (),
    cluster: Curve | None = None,
    cluster_label: str = "",
    note: str = "",
) -> None:
    """--plot: the LRU hit rate (tokens) by capacity, on a log scale: the whole trace in one
    cache, and for a multi-node run the cluster (hits of every node over every request, at that
    capacity per node) and each node's own curve, each line labelled for what it is."""
    plt = _pyplot("--plot")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, c in enumerate(nodes):
        ax.plot(
            c.capacities,
            c.token_rate,
            linewidth=0.8,
            alpha=0.6,
            label=f"node {i} (its own requests)" if len(nodes) <= 8 or i == 0 else None,
        )
    if cluster is not None:
        ax.plot(
            cluster.capacities,
            cluster.token_rate,
            linewidth=2.2,
            color="black",
            label=f"cluster: {cluster_label}, capacity per node",
        )
    ax.plot(
        curve.capacities,
        curve.token_rate,
        linewidth=2.0,
        linestyle="--",
        label="one pool: every request in one cache",
    )
    ax.set_xscale("log")
    ax.set_xlabel("capacity of each cache (blocks)")
    ax.set_ylabel("LRU hit rate (tokens)")
    ax.set_title(f"{title}: LRU hit rate by capacity" + (f"\n{note}" if note else ""), fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    _save(fig, plt, path, "--plot")


# ---- --max-rate ----------------------------------------------------------------------------------


def rate_title(trace: Trace, caps: Sequence[Capacity], slo: float, decode: Decode | None) -> str:
    """The objective, the decode model if any, and the node the rates were found on."""
    return (
        f"{trace.name}: highest request rate with p90 TTFT <= {slo:g} s"
        + (
            ""
            if decode is None
            else f" (decode modelled, batch {decode.batch}"
            + (", disaggregated)" if decode.disaggregated else ", co-located)")
        )
        + f"\nnode: {caps[0].result.node}"
    )


def rate_row(c: Capacity, base: float) -> tuple[str, ...]:
    """One configuration's row under `RATE_HEADER` (`base`: the first one's rate)."""
    r = c.result
    at = next((p for p in c.curve if p.speedup == c.speedup), c.curve[0])
    return (
        c.label,
        r.router_used,
        f"{c.max_rps:,.3f}",
        f"{c.max_rps / base - 1:+.0%}" if base else "-",
        f"{c.speedup:,.3g}x",
        pct(r.hit_rate_tokens),
        f"{r.ttft_p90_s:,.2f}",
        "-" if at.tpot_p90_s is None else f"{1000 * at.tpot_p90_s:,.1f}",
        f"{max(r.node_utilisation, default=0.0):.0%}",
    )


def rejection_table(caps: Sequence[Capacity]) -> str:
    """Each configuration's offered-vs-served curve with early rejection."""
    rows = [
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
    return table(
        "with early rejection (a request is turned away when its TTFT would exceed the objective)",
        ("config", "offered req/s", "served req/s", "rejected", "served TTFT p90 s"),
        rows,
    )


def print_rates(trace: Trace, caps: Sequence[Capacity], slo: float, decode: Decode | None) -> None:
    """The highest rates, then the curves with early rejection."""
    base = caps[0].max_rps
    rows = [rate_row(c, base) for c in caps]
    print(table(rate_title(trace, caps, slo, decode), RATE_HEADER, rows), flush=True)
    print()
    print(rejection_table(caps))


def rates_payload(
    trace: Trace, caps: Iterable[Capacity], slo: float, warnings: Sequence[str] = ()
) -> dict[str, Any]:
    """--max-rate's --json (schema.SCHEMA, mode "max-rate"): each configuration's rate, speed-up,
    result and curve."""
    from .schema import envelope

    caps = list(caps)
    return envelope(
        "max-rate",
        [
            {
                "config": c.label,
                "max_rps": c.max_rps,
                "speedup": c.speedup,
                "result": c.result.to_dict(),
                "curve": [p.__dict__ for p in c.curve],
            }
            for c in caps
        ],
        trace=trace_info(trace),
        backend=caps[0].result.backend if caps else None,
        warnings=list(warnings),
        slo_ttft_s=slo,
    )


def matrix_payload(cells: Iterable[Cell], ratios: dict[str, float]) -> dict[str, Any]:
    """`sim matrix`'s --json (schema.SCHEMA, mode "matrix")."""
    from .schema import envelope

    return envelope("matrix", [c.__dict__ for c in cells], relative_cost=dict(ratios))


def plot_rates(caps: Sequence[Capacity], title: str, slo: float, path: str) -> None:
    """--rate-plot: p90 TTFT against the offered rate (every request admitted), with the
    objective and each configuration's highest rate, where the curve crosses it (the knee); and
    beside it the served rate with early rejection."""
    plt = _pyplot("--rate-plot")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    for c in caps:
        pts = sorted(c.curve, key=lambda p: p.offered_rps)
        (line,) = ax.plot(
            [p.offered_rps for p in pts],
            [max(p.ttft_p90_all_s, 1e-3) for p in pts],
            marker="o",
            label=f"{c.label}: {c.max_rps:.2f} req/s",
        )
        ax.axvline(c.max_rps, linestyle=":", color=line.get_color())
        bx.plot(
            [p.offered_rps for p in pts],
            [p.served_rps for p in pts],
            marker="o",
            color=line.get_color(),
        )
    ax.axhline(slo, color="red", linestyle="--", label=f"objective: p90 TTFT {slo:g} s")
    ax.set_yscale("log")
    ax.set_xlabel("offered requests/s")
    ax.set_ylabel("p90 TTFT, every request admitted (s)")
    ax.set_title("TTFT against rate: the knee is where it crosses the objective", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    top = max((p.offered_rps for c in caps for p in c.curve), default=1.0)
    bx.plot([0, top], [0, top], color="grey", linewidth=0.8, label="served = offered")
    bx.set_xlabel("offered requests/s")
    bx.set_ylabel(f"served within {slo:g} s TTFT (req/s)")
    bx.set_title("served with early rejection", fontsize=9)
    bx.grid(True, alpha=0.3)
    bx.legend(fontsize=7)
    fig.suptitle(f"{title}: throughput under a p90 TTFT objective", fontsize=10)
    _save(fig, plt, path, "--rate-plot")


# ---- sim matrix ----------------------------------------------------------------------------------


def print_matrix(
    cells: Sequence[Cell], ratios: dict[str, float], sessions: int, price: str
) -> None:
    """One row a client style, three columns a server design (cache-aware first), then each
    cell's cost relative to a stable client on a cache-aware server."""
    servers = sorted({c.server for c in cells}, key=lambda s: s != "cache-aware")
    header = ["client style"]
    for s in servers:
        header += [f"{s}: hit", f"{s}: $", f"{s}: load max/mean"]
    rows = []
    for style in dict.fromkeys(c.style for c in cells):
        row = [style]
        for s in servers:
            c = next(c for c in cells if c.style == style and c.server == s)
            row += [pct(c.hit_rate), f"{c.dollars:,.2f}", f"{c.load_max_mean_requests:.2f}"]
        rows.append(row)
    title = f"client x server: {sessions} sessions per style, priced as {price}"
    print(table(title, header, rows))
    print(
        "Cost relative to a stable client on a cache-aware server: "
        + ", ".join(f"{k} {v:.1f}x" for k, v in ratios.items())
    )


# ---- plots ---------------------------------------------------------------------------------------


def _pyplot(where: str) -> Any:
    """matplotlib's pyplot on the Agg backend, or a UserError naming `where` without it."""
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
    """`fig` as a PNG at `path`, whole or not at all, then closed."""
    from ..atomicfile import replacing

    try:
        with replacing(path) as fh:
            fig.savefig(fh, dpi=110, bbox_inches="tight", format="png")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}", where=where) from None
    finally:
        plt.close(fig)
