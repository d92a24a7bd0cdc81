"""Throughput under an SLO: the highest request rate a cluster serves within a latency objective.

The trace is replayed faster or slower (its arrival times divided by a speed-up) and the highest
speed-up whose p-th percentile TTFT stays within the objective is found by bisection; the rate
is the trace's request rate times that speed-up. Past it, an admission controller rejects each
request whose predicted TTFT (its node's queue plus its own prefill) would exceed the objective,
as Mooncake's early rejection does: the served rate levels off and the rest is rejected.

Decode (optional) is a memory-bound step: each step reads the weights once for the whole batch
and every request's KV, so a step takes (weights + batch x context x KV bytes) / HBM bandwidth,
and TPOT is that step time. Co-located with chunked prefill, decode steps share the GPUs with
prefill chunks: a node busy with prefill for a share u of its time leaves 1 - u to decode, so
TPOT stretches to step / (1 - u), and each request's decode occupies its node for
output x step / batch seconds. Disaggregated, a share of the nodes only decodes (their TPOT is
the step time while their load stays under 1) and the others only prefill. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ..errors import UserError
from . import cluster, engine
from .backend import NUMPY, Backend
from .models import PRECISION_BYTES
from .simulate import SimConfig, SimResult, simulate
from .trace import Trace

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Decode:
    """The decode model: continuous batching of `batch` requests, co-located or disaggregated."""

    batch: int = 64
    disaggregated: bool = False
    decode_share: float = 0.5  # share of the nodes that only decode, when disaggregated
    tpot_slo_s: float | None = None  # p90 TPOT objective; None: TPOT reported, not enforced

    def check(self) -> Decode:
        if self.batch < 1:
            raise UserError(f"decode batch must be >= 1, got {self.batch}", where="--decode-batch")
        if not 0.0 < self.decode_share < 1.0:
            raise UserError(
                f"decode share must be in (0, 1), got {self.decode_share}", where="--disaggregate"
            )
        return self


@dataclass(frozen=True)
class Point:
    """One offered rate: what was served, rejected, and at what latency."""

    speedup: float
    offered_rps: float
    served_rps: float
    rejected: float  # share of the measured requests rejected
    ttft_p90_s: float  # of the served requests
    tpot_p90_s: float | None
    ttft_p90_all_s: float = 0.0  # of every request, nobody rejected (what the objective bounds)
    overloaded: bool = False  # a node (prefill with any co-located decode) needs > 100% time


@dataclass(frozen=True)
class Capacity:
    """The highest rate within the objective, and the offered-vs-served curve around it."""

    label: str
    max_rps: float
    speedup: float
    result: SimResult  # the simulation at the highest rate
    curve: list[Point]


def _speed(plan: engine.Plan, s: float) -> engine.Plan:
    t0 = float(plan.times[0]) if plan.times.shape[0] else 0.0
    return replace(plan, times=t0 + (plan.times - t0) / s)


def admit(
    node: I64, arrival: F64, service: F64, nodes: int, slo_s: float
) -> tuple[npt.NDArray[np.bool_], F64]:
    """Early rejection on FIFO node queues: a request is admitted when its queue wait plus its
    own service would stay within `slo_s`; a rejected one takes no time. Returns the admitted
    mask and each admitted request's TTFT (NaN where rejected)."""
    ok = np.zeros(arrival.shape[0], bool)
    ttft = np.full(arrival.shape[0], np.nan)
    busy = [float("-inf")] * nodes
    rows = zip(node.tolist(), arrival.tolist(), service.tolist(), strict=True)
    for i, (n, a, s) in enumerate(rows):
        start = busy[n] if busy[n] > a else a
        if start - a + s <= slo_s:
            busy[n] = start + s
            ok[i] = True
            ttft[i] = start + s - a
    return ok, ttft


def _decode_step_s(cfg: SimConfig, context: float, batch: int) -> float:
    c = cfg.compute()
    weights = c.arch.params() * PRECISION_BYTES[cfg.weight_precision]
    kv = c.arch.kv_bytes_per_token(cfg.precision)
    return (weights + batch * context * kv) / (c.gpus * c.gpu.hbm_bytes_per_s)


def _probe(
    trace: Trace,
    plan: engine.Plan,
    cfg: SimConfig,
    s: float,
    slo_s: float,
    decode: Decode | None,
    backend: Backend,
) -> tuple[SimResult, Point]:
    kept: list[tuple[I64, F64, F64]] = []
    nodes = cfg.nodes
    run_cfg = cfg
    if decode is not None and decode.disaggregated:
        # the prefill pool: the nodes left after the decode share
        nodes = max(1, round(cfg.nodes * (1 - decode.decode_share)))
        run_cfg = replace(cfg, nodes=nodes)
    r = simulate(trace, run_cfg, backend, plan=_speed(plan, s), keep=kept)
    node, arrival, service = kept[0]
    lengths = np.diff(np.concatenate([[0], np.cumsum(plan.tokens)])[plan.starts])
    out = trace.output_len.astype(np.float64)
    tpot = None
    if decode is not None:
        step = _decode_step_s(cfg, float(lengths.mean() + out.mean() / 2), decode.batch)
        occupancy = out * step / decode.batch  # node seconds of each request's decode
        if decode.disaggregated:
            window = float(arrival[-1] - arrival[plan.warmup]) or 1.0
            dec_nodes = cfg.nodes - nodes
            load = float(occupancy[plan.warmup :].sum()) / (window * max(dec_nodes, 1))
            tpot = step if load < 1.0 else float("inf")
        else:
            # decode steps take the GPU time prefill leaves: TPOT stretches by 1 / (1 - u)
            u = max(r.node_utilisation, default=0.0)
            tpot = step / (1.0 - u) if u < 1.0 else float("inf")
            service = service + occupancy
    everyone = cluster.queue_ttft(node, arrival, service, nodes)
    ld = cluster.load(node, arrival, service, everyone, nodes, plan.warmup)
    ok, ttft = admit(node, arrival, service, nodes, slo_s)
    m = np.arange(ok.shape[0]) >= plan.warmup
    window = float(arrival[-1] - arrival[plan.warmup]) if m.sum() > 1 else 0.0
    served = ok & m
    done = ttft[served]
    p90 = float(np.percentile(done, 90)) if done.shape[0] else float("nan")
    offered, got = int(m.sum()), int(served.sum())
    per_s = 1.0 / window if window > 0 else 0.0
    p90_all = float(np.percentile(everyone[m], 90)) if m.any() else float("nan")
    return r, Point(
        s,
        offered * per_s,
        got * per_s,
        1 - got / max(offered, 1),
        p90,
        tpot,
        p90_all,
        ld.overloaded,
    )


def max_rate(
    trace: Trace,
    config: SimConfig,
    *,
    slo_s: float,
    decode: Decode | None = None,
    backend: Backend = NUMPY,
    plan: engine.Plan | None = None,
    tolerance: float = 0.02,
    curve: tuple[float, ...] = (0.5, 0.8, 1.0, 1.25, 1.6, 2.0),
) -> Capacity:
    """The highest request rate `config` serves with p90 TTFT within `slo_s` (and p90 TPOT within
    `decode.tpot_slo_s` when given) and no node overloaded, every request admitted; then the
    offered-vs-served curve at `curve` multiples of it with early rejection (which also turns
    away, at any rate, a prompt whose own prefill exceeds the objective)."""
    if not slo_s > 0:
        raise UserError(
            f"the TTFT objective must be positive seconds, got {slo_s}", where="--slo-ttft"
        )
    cfg = config.check()
    if decode is not None:
        decode.check()
    p = engine.plan(trace, warmup=cfg.warmup, share=cfg.share) if plan is None else plan

    def meets(s: float) -> tuple[bool, SimResult, Point]:
        r, pt = _probe(trace, p, cfg, s, slo_s, decode, backend)
        # Without admission control: the p90 of every request (a prompt too long to prefill
        # within the objective even on an idle node is in the tail at any rate).
        ok = pt.ttft_p90_all_s <= slo_s and not pt.overloaded
        if decode is not None:
            limit = decode.tpot_slo_s
            ok = ok and pt.tpot_p90_s is not None and np.isfinite(pt.tpot_p90_s)
            ok = ok and (limit is None or (pt.tpot_p90_s or 0.0) <= limit)
        return ok, r, pt

    # bracket the answer: double from 1x until it fails, or halve until it holds
    ok, r, pt = meets(1.0)
    best = (r, pt) if ok else None
    lo, hi = (1.0, 2.0) if ok else (0.5, 1.0)
    while True:
        s = hi if ok else lo
        ok_s, r, pt = meets(s)
        if ok and not ok_s:
            break
        if not ok and ok_s:
            best = (r, pt)
            break
        if ok_s:
            best = (r, pt)
        lo, hi = (hi, hi * 2) if ok else (lo / 2, lo)
        if hi > 1e6 or lo < 1e-6:
            if best is None:
                raise UserError(
                    f"no request rate meets p90 TTFT <= {slo_s:g} s on this cluster",
                    where="--slo-ttft",
                )
            break
    while hi - lo > tolerance * lo:
        mid = (lo + hi) / 2
        res = meets(mid)
        if res[0]:
            lo, best = mid, (res[1], res[2])
        else:
            hi = mid
    assert best is not None
    points = [_probe(trace, p, cfg, lo * k, slo_s, decode, backend)[1] for k in curve]
    return Capacity(cfg.label(), best[1].offered_rps, lo, best[0], points)
