"""Throughput under an SLO: the highest request rate a cluster serves within a latency objective.

The trace is replayed faster or slower (its arrival times divided by a speed-up) and the highest
speed-up whose p-th percentile TTFT stays within the objective is found by bisection; the rate
is the trace's request rate times that speed-up. Past it, an admission controller rejects each
request whose predicted TTFT (its node's queue plus its own prefill) would exceed the objective,
as Mooncake's early rejection does: the served rate levels off and the rest is rejected.

Decode (optional) is a memory-bound step: each step reads the weights once for the whole batch
and every request's KV, so a step takes (weights + batch x context x KV bytes) / HBM bandwidth.
Co-located, as vLLM and SGLang run chunked prefill, a step that carries a prefill chunk of
`chunk_tokens` tokens takes the decode step plus the chunk's compute: while a node has prefill
work, every decode step is stalled by a chunk, so the time between tokens (TBT) of the running
requests jumps from the step to step + chunk, and prefill itself runs at chunk / (step + chunk)
of its own speed. The p90 TBT is the stalled step once more than a tenth of the steps carry a
chunk. Disaggregated (Mooncake), a share of the nodes only decodes (TBT is the plain step while
their load stays under 1) and the others only prefill, undisturbed; each TTFT then includes the
KV's handoff to a decode node (`models.handoff_seconds`). Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ..errors import UserError
from . import cluster, engine
from .backend import NUMPY, Backend
from .models import PRECISION_BYTES, handoff_seconds
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
    tpot_slo_s: float | None = None  # p90 TBT objective; None: TBT reported, not enforced
    # Prefill chunk a co-located step carries: vLLM's max_num_batched_tokens for an API server
    # (2,048 by default; vllm/engine/arg_utils.py).
    chunk_tokens: int = 2048

    def check(self) -> Decode:
        if self.batch < 1:
            raise UserError(f"decode batch must be >= 1, got {self.batch}", where="--decode-batch")
        if self.chunk_tokens < 1:
            raise UserError(
                f"prefill chunk must be >= 1 token, got {self.chunk_tokens}", where="--chunk-tokens"
            )
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
    tpot_p90_s: float | None  # p90 time between tokens (TBT) of the decoding requests
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


def stalled_tbt(
    step_s: float, chunk_s: float, prefill_load: float, steps_needed: float
) -> tuple[float, float]:
    """(p90 time between tokens, share of the node's time decode and prefill take together) of a
    node that spends `prefill_load` of each second on prefill compute in chunks of `chunk_s`
    seconds, each riding on a decode step of `step_s` seconds, and must run `steps_needed` decode
    steps a second to keep up with its output tokens."""
    chunked = prefill_load / chunk_s  # steps a second that carry a chunk
    busy = chunked * (step_s + chunk_s) + max(0.0, steps_needed - chunked) * step_s
    if busy >= 1.0:
        return float("inf"), busy
    plain = (1.0 - chunked * (step_s + chunk_s)) / step_s  # the GPU's idle time runs steps too
    stalled_share = chunked / (chunked + plain) if chunked + plain > 0 else 0.0
    return (step_s + chunk_s if stalled_share > 0.1 else step_s), busy


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
    busy_co = 0.0
    if decode is not None:
        step = _decode_step_s(cfg, float(lengths.mean() + out.mean() / 2), decode.batch)
        window = float(arrival[-1] - arrival[plan.warmup]) or 1.0
        if decode.disaggregated:
            occupancy = out * step / decode.batch  # node seconds of each request's decode
            dec_nodes = cfg.nodes - nodes
            load = float(occupancy[plan.warmup :].sum()) / (window * max(dec_nodes, 1))
            tpot = step if load < 1.0 else float("inf")
        else:
            # Chunked prefill: each chunk rides on a decode step, which it stalls, and prefill
            # runs at chunk / (step + chunk) of its speed; decode-only steps fill the rest.
            c = run_cfg.compute()
            chunk_s = float(c.compute_seconds(decode.chunk_tokens))
            w0 = plan.warmup
            per_node = np.bincount(node[w0:], weights=service[w0:], minlength=nodes) / window
            steps = float(out[w0:].sum()) / decode.batch / (window * nodes)
            tbt, busy_co = stalled_tbt(step, chunk_s, float(per_node.max()), steps)
            tpot = tbt if busy_co < 1.0 else float("inf")
            service = service * (1.0 + step / chunk_s)
    everyone = cluster.queue_ttft(node, arrival, service, nodes)
    ld = cluster.load(node, arrival, service, everyone, nodes, plan.warmup)
    ok, ttft = admit(node, arrival, service, nodes, slo_s)
    if decode is not None and decode.disaggregated:
        # the KV's trip to its decode node, after the prefill node is free (admission judges
        # the prefill node's part, which the scheduler can predict)
        kv = cfg.compute().arch.kv_bytes_per_token(cfg.precision)
        trip = handoff_seconds(lengths, kv)
        everyone, ttft = everyone + trip, ttft + trip
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
        ld.overloaded or busy_co >= 1.0,
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
