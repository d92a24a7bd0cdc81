"""One simulation: a trace, a cache and cluster configuration, and everything reported about it.

`simulate(trace, SimConfig(...))` returns a `SimResult`: hit rate by blocks and by tokens over the
measurement window, prefill tokens and GPU-seconds (spent and saved), estimated TTFT, load balance
per node, and dollars under a price table. `lru_curve(trace, ...)` gives the LRU hit rate at every
capacity in one pass. Pure: the trace is already in memory and nothing is printed.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..billing.prices import PriceTable
from ..errors import UserError
from . import cluster, engine, models
from .backend import NUMPY, Backend
from .replay import POLICIES, replay
from .trace import Trace

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SimConfig:
    """A cache and cluster to replay a trace through. Capacities are in blocks per node."""

    capacity: int | None = None  # None: unbounded (the hit-rate ceiling)
    policy: str = "lru"
    ttl: float | None = None
    share: bool = True  # cross-tenant sharing of identical blocks
    nodes: int = 1
    router: str = "session"
    load_threshold: float = 2.0  # queue seconds of imbalance before `longest-prefix` balances
    cache_threshold: float = 0.5  # sglang: least match rate that routes to the best match
    balance_abs_threshold: int = 32  # sglang: in-flight requests of imbalance ...
    balance_rel_threshold: float = 1.0001  # ... and their ratio, before it balances
    warmup: float = 0.5
    model: str = "llama-3.3-70b"
    precision: str = "fp8"
    tiers: tuple[int, int, int] | None = None  # HBM, DRAM, SSD blocks; capacity = their sum
    gpu: str = "h100"  # models.GPUS
    gpus: int = 0  # GPUs per node (tensor parallel); 0: the fewest that hold the weights
    mfu: float = models.DEFAULT_MFU
    overhead_s: float = models.DEFAULT_OVERHEAD_S  # fixed prefill seconds a request
    weight_precision: str = "fp8"
    gpu_price: float | None = None  # $ per GPU-hour; None: the catalogue's assumed price
    dram_gbps: float = 25.0  # GB/s host-to-GPU for a DRAM hit (overlapped with compute)
    ssd_gbps: float = 5.0  # GB/s
    net_gbps: float = 25.0  # GB/s node-to-node KV transfer (ttft router)
    # The nodes prefill for separate decode nodes (Mooncake): each TTFT adds the KV's handoff
    # to a decode node (models.handoff_seconds), which does not hold the prefill node.
    handoff: bool = False
    price: str | None = "claude-sonnet-4-6"
    prices: str | None = None  # price file overriding the built-in table (else PREFIXLOCK_PRICES)
    seed: int = 0
    name: str = ""

    def check(self) -> SimConfig:
        if self.router == "prefix":
            raise UserError(
                "router 'prefix' is gone: use 'sglang' (SGLang's cache-aware router) or "
                "'longest-prefix' (this simulator's heuristic that reads the real caches)",
                where="--router",
            )
        if self.tiers is not None and self.nodes > 1 and self.router in cluster.AWARE:
            raise UserError(
                f"tiers (--hbm/--dram/--ssd) are simulated for the routers that ignore cache "
                f"state; {self.router} keeps one cache per node: give --capacity or "
                "--capacity-bytes, or route with random, round-robin, session or cache-key",
                where="--router",
            )
        for name in ("dram_gbps", "ssd_gbps", "net_gbps"):
            if not getattr(self, name) > 0:
                raise UserError(
                    f"link speed must be positive GB/s, got {getattr(self, name)}",
                    where=f"--{name.replace('_', '-')}",
                )
        if self.gpu_price is not None and not self.gpu_price >= 0:
            raise UserError(f"price must be >= 0, got {self.gpu_price}", where="--gpu-price")
        if not 0.0 <= self.cache_threshold <= 1.0:
            raise UserError(
                f"must be in [0, 1], got {self.cache_threshold}", where="--cache-threshold"
            )
        self.compute()
        if self.tiers is not None:
            if any(t < 0 for t in self.tiers) or sum(self.tiers) <= 0:
                raise UserError(
                    "tier capacities must be >= 0 and not all zero", where="--hbm/--dram/--ssd"
                )
            if self.policy != "lru":
                # An exclusive LRU hierarchy is one LRU stack cut at the tier sizes; other
                # policies have no such cut.
                raise UserError("tiers are modelled for LRU; use --policy lru", where="--policy")
            replace(self, capacity=sum(self.tiers), tiers=None).check()
            return self
        if self.capacity is not None and self.capacity <= 0:
            raise UserError(
                f"capacity must be at least one block, got {self.capacity}", where="--capacity"
            )
        if self.policy not in POLICIES:
            raise UserError(
                f"unknown policy {self.policy!r}; choose from {', '.join(POLICIES)}",
                where="--policy",
            )
        if self.router not in cluster.ROUTERS:
            raise UserError(
                f"unknown router {self.router!r}; choose from {', '.join(cluster.ROUTERS)}",
                where="--router",
            )
        if self.nodes < 1:
            raise UserError(f"need at least one node, got {self.nodes}", where="--nodes")
        if self.load_threshold < 0:
            raise UserError(
                f"load threshold must be >= 0 seconds, got {self.load_threshold}",
                where="--load-threshold",
            )
        if self.seed < 0:
            raise UserError(f"seed must be >= 0, got {self.seed}", where="--seed")
        if self.ttl is not None and self.ttl <= 0:
            raise UserError(f"TTL must be positive seconds, got {self.ttl}", where="--ttl")
        if not 0.0 <= self.warmup < 1.0:
            raise UserError(
                f"warm-up fraction must be in [0, 1), got {self.warmup}", where="--warmup"
            )
        if self.policy != "lru" and self.nodes > 1 and self.router not in cluster.STATELESS:
            raise UserError(
                "cache-aware routers simulate LRU caches; use --policy lru", where="--policy"
            )
        if self.policy == "optimal" and self.ttl is not None:
            raise UserError("optimal eviction with a TTL is not defined here", where="--ttl")
        models.arch(self.model)
        if self.price:
            PriceTable.default(self.prices).require(self.price)  # fail before the replay
        return self

    def compute(self) -> models.Compute:
        """The serving instance each node is: the model on its GPUs at this MFU."""
        return models.Compute.build(
            self.model,
            self.gpu,
            gpus=self.gpus,
            mfu=self.mfu,
            weight_precision=self.weight_precision,
            overhead_s=self.overhead_s,
        )

    @property
    def total_capacity(self) -> int | None:
        return sum(self.tiers) if self.tiers is not None else self.capacity

    def label(self) -> str:
        if self.name:
            return self.name
        cap = "inf" if self.total_capacity is None else str(self.total_capacity)
        parts = [self.policy, f"cap={cap}"]
        if self.nodes > 1:
            parts.append(f"{self.nodes}x{self.router}")
        if self.ttl is not None:
            parts.append(f"ttl={self.ttl:g}s")
        if not self.share:
            parts.append("private")
        return " ".join(parts)


@dataclass(frozen=True)
class SimResult:
    """What one simulation reports, all over the measurement window."""

    config: dict[str, Any]
    requests: int
    measured_requests: int
    hit_rate_tokens: float
    hit_rate_blocks: float
    input_tokens: int
    cached_tokens: int
    prefill_tokens: int
    prefill_gpu_s: float
    prefill_gpu_s_saved: float
    ttft_mean_s: float
    ttft_p50_s: float
    ttft_p99_s: float
    load_max_mean_requests: float
    load_max_mean_tokens: float
    dollars: float | None
    dollars_without_cache: float | None
    underfilled: bool
    tier_tokens: dict[str, int] = field(default_factory=dict)
    fetched_blocks: int = 0
    backend: str = "numpy"
    ttft_p90_s: float = 0.0
    router_used: str = ""  # the router that really placed the requests (see notes)
    node_utilisation: list[float] = field(default_factory=list)  # busy s / window s per node
    queue_growth_s_per_s: float = 0.0  # worst node's queueing added per second of trace
    overloaded: bool = False  # a node needs more than all its time: TTFT is a growing backlog
    notes: list[str] = field(default_factory=list)  # how the configuration was read
    node: str = ""  # what one node is: model, GPUs, MFU
    gpus_per_node: int = 0
    gpu_dollars: float = 0.0  # prefill GPU-hours at the $/GPU-hour price
    gpu_dollars_without_cache: float = 0.0
    warnings: list[str] = field(default_factory=list)  # what makes a figure untrustworthy

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _tier_of(rank: I64, tiers: tuple[int, int, int]) -> I64:
    """The tier holding each hit block: an exclusive LRU hierarchy with demotion is one LRU
    stack cut at the tier sizes (rank < HBM, < HBM + DRAM, < total)."""
    h, d, _ = tiers
    return np.where(rank < h, 0, np.where(rank < h + d, 1, 2))


def _first_uses(p: engine.Plan) -> I64:
    """Each node's first reference in `p` (p.references where it has none): one pass, where
    np.unique would sort."""
    first = np.full(p.n_nodes + 1, p.references, np.int64)
    np.minimum.at(first, p.nodes, np.arange(p.references, dtype=np.int64))
    return first


def _percentile(values: F64, q: float) -> float:
    """`np.percentile(values, q)` (its default 'linear' method: the same operations in the same
    order, so the same float) without the import of numpy.ma (about 12 ms) that np.percentile
    makes through np.unique."""
    s = np.sort(values)
    if np.isnan(s[-1]):
        return float("nan")
    n = s.shape[0]
    virtual = (n - 1) * (q / 100)
    below = math.floor(virtual)
    above = below + 1
    if virtual >= n - 1:
        below = above = -1
    gamma = virtual - below
    a, b = s[below], s[above]
    diff = b - a
    return float(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma)


def degenerate_times(times: F64) -> str | None:
    """A warning when the arrival times cannot support a latency or load figure."""
    if times.shape[0] > 1 and float(times[-1]) == float(times[0]):
        return (
            f"all {times.shape[0]:,} requests arrive at the same instant: the trace has no "
            "timing, so utilisation reads 0% and TTFT is one burst's queue, not a serving "
            "latency (hit rates are unaffected)"
        )
    return None


NodeJob = tuple[engine.Plan, "SimConfig", "Backend | str"]
NodeMap = Callable[
    [Callable[[NodeJob], tuple[I64, I64, bool]], list[NodeJob]], list[tuple[I64, I64, bool]]
]


def serve_node(job: NodeJob) -> tuple[I64, I64, bool]:
    """One node's stream through its cache: (hit blocks per request, tokens found in each tier
    per request (requests x 3), whether the cache never filled in the warm-up). A router that
    ignores cache state makes the nodes independent, so these can run anywhere (the backend by
    name where the job travels)."""
    from .backend import get_backend

    sub, cfg, named = job
    backend = get_backend(named) if isinstance(named, str) else named
    cap = cfg.total_capacity
    underfilled = False
    if cfg.policy == "lru":
        if cap is None and cfg.ttl is None:
            # Unbounded, no TTL: a block is cached iff used before; no ranks needed.
            hit = np.ones(sub.references + 1, bool)
            hit[_first_uses(sub)] = False
            hit = hit[:-1]
            eff = None
        else:
            rank, prev = engine.stack_ranks(sub, backend)
            eff = engine.effective_ranks(sub, rank, prev, cfg.ttl)
            hit = engine.hit_mask(sub, eff, cap)
        hits = np.flatnonzero(hit)
        r_hit = sub.req[hits]
        hb = np.bincount(r_hit, minlength=sub.requests).astype(np.int64)
        tiers = cfg.tiers or (cap if cap is not None else 0, 0, 0)
        tier = _tier_of(eff[hits], tiers) if cap is not None and eff is not None else 0
        # Tokens each request finds in each tier, one count for all three (float sums of
        # integers: exact).
        per_tier = np.bincount(
            r_hit * 3 + tier, weights=sub.tokens[hits], minlength=3 * sub.requests
        )
        tier_tok = np.rint(per_tier).astype(np.int64).reshape(-1, 3)
        if cap is not None and sub.warmup > 0:
            warm = int((_first_uses(sub) < int(sub.starts[sub.warmup])).sum())
            underfilled = cap > warm
        return hb, tier_tok, underfilled
    if cap is None:
        raise UserError(f"{cfg.policy} needs a capacity", where="--capacity")
    rp = replay(sub, cfg.policy, cap, cfg.ttl)
    tier_tok = np.zeros((sub.requests, 3), np.int64)
    tier_tok[:, 0] = rp.hit_tokens
    return (
        np.asarray(rp.hit_blocks, np.int64),
        tier_tok,
        bool(sub.warmup > 0 and not rp.filled),
    )


def simulate(
    trace: Trace,
    config: SimConfig,
    backend: Backend = NUMPY,
    on_progress: Callable[[int], None] | None = None,
    plan: engine.Plan | None = None,
    keep: list[tuple[I64, F64, F64]] | None = None,
    node_map: NodeMap | None = None,
) -> SimResult:
    """Replay `trace` through the cache and cluster of `config`.

    `node_map(fn, jobs)`: how the nodes' streams are served when a router that ignores cache
    state placed them (default: one after another here; the Ray sweep spreads them over its
    cluster). Every job is `(sub-plan, config, backend name)` and `fn` is `serve_node`.

    `keep`: a list that receives (node, arrival, service seconds) per request, for callers that
    replay the queues themselves (`capacity`).

    `on_progress(requests_done)` is called now and then by the request-by-request engines.
    `plan`: `engine.plan(trace, warmup=config.warmup, share=config.share)` where the caller has
    it already (the CLI shares one between the simulation and the curve)."""
    cfg = config.check()
    arch = models.arch(cfg.model)
    p = engine.plan(trace, warmup=cfg.warmup, share=cfg.share) if plan is None else plan
    cap = cfg.total_capacity
    R = p.requests
    node = np.zeros(R, np.int64)
    hb = np.zeros(R, np.int64)
    ht = np.zeros(R, np.int64)
    fetched = np.zeros(R, np.int64)
    tier_tok = np.zeros((R, 3), np.int64)
    underfilled = False
    router_used, notes = cfg.router, []
    if cfg.nodes == 1:
        router_used = "single node"
    if cfg.nodes > 1 and cfg.router not in cluster.STATELESS:
        routed = cluster.simulate_aware(
            p,
            router=cfg.router,
            nodes=cfg.nodes,
            capacity=cap,
            ttl=cfg.ttl,
            compute=cfg.compute().scalar(),
            load_threshold=cfg.load_threshold,
            seed=cfg.seed,
            sglang=cluster.SGLang(
                cache_threshold=cfg.cache_threshold,
                balance_abs_threshold=cfg.balance_abs_threshold,
                balance_rel_threshold=cfg.balance_rel_threshold,
            ),
            block_size=trace.block_size,
            on_progress=on_progress,
            transfer_s_per_block=arch.kv_bytes_per_token(cfg.precision)
            * trace.block_size
            / (cfg.net_gbps * 1e9),
        )
        node, hb, ht, fetched = (
            routed.node,
            routed.hit_blocks,
            routed.hit_tokens,
            routed.fetched_blocks,
        )
        tier_tok[:, 0] = ht
    else:
        if cfg.nodes > 1:
            first = trace.ids[trace.starts[:-1]]
            keys = trace.session if cfg.router == "session" else trace.keys()
            if cfg.router in ("session", "cache-key"):
                router_used, why = cluster.keyed_router_note(cfg.router, keys)
                notes.append(why)
            node = cluster.assign(cfg.router, cfg.nodes, keys, first, cfg.seed)

        def part(n: int) -> tuple[engine.Plan, I64]:
            return cluster.sub_plan(p, node == n) if cfg.nodes > 1 else (p, np.arange(R))

        def keep_node(rows: I64, served: tuple[I64, I64, bool]) -> None:
            nonlocal underfilled
            hb[rows], tier_tok[rows] = served[0], served[1]
            ht[rows] = served[1].sum(axis=1)
            underfilled |= served[2]

        if node_map is None:  # one node at a time: only one sub-plan in memory
            for n in range(cfg.nodes):
                sub, rows = part(n)
                if sub.requests:
                    keep_node(rows, serve_node((sub, cfg, backend)))
        else:  # after routing each node's stream is independent: spread them
            parts = [(sub, rows) for sub, rows in map(part, range(cfg.nodes)) if sub.requests]
            done = node_map(serve_node, [(sub, cfg, backend.name) for sub, _ in parts])
            for (_, rows), served in zip(parts, done, strict=True):
                keep_node(rows, served)
    res = _report(trace, p, cfg, arch, node, hb, ht, fetched, tier_tok, underfilled, backend, keep)
    return replace(res, router_used=router_used, notes=notes + res.notes)


def _report(
    trace: Trace,
    p: engine.Plan,
    cfg: SimConfig,
    arch: models.Arch,
    node: I64,
    hb: I64,
    ht: I64,
    fetched: I64,
    tier_tok: I64,
    underfilled: bool,
    backend: Backend,
    keep: list[tuple[I64, F64, F64]] | None = None,
) -> SimResult:
    R = p.requests
    m = np.arange(R) >= p.warmup
    cum = np.zeros(p.references + 1, np.int64)
    np.cumsum(p.tokens, out=cum[1:])
    length_tok = cum[p.starts[1:]] - cum[p.starts[:-1]]  # tokens of each request
    del cum
    blocks = p.lengths
    bpt = arch.kv_bytes_per_token(cfg.precision)
    load_s = tier_tok[:, 1] * bpt / (cfg.dram_gbps * 1e9) + tier_tok[:, 2] * bpt / (
        cfg.ssd_gbps * 1e9
    )
    load_s = load_s + fetched * bpt * trace.block_size / (cfg.net_gbps * 1e9)
    compute = cfg.compute()
    # Loading cached KV overlaps with computing the rest, layer by layer (as Mooncake and
    # LMCache do): a request takes the longer of the two, not their sum.
    service = np.maximum(compute.prefill_seconds(length_tok, ht), load_s)
    ttft = cluster.queue_ttft(node, p.times, service, cfg.nodes)
    if keep is not None:
        keep.append((node, p.times, service))
    full = compute.prefill_seconds(length_tok, 0)
    gpus = compute.gpus
    per_gpu_s = (cfg.gpu_price if cfg.gpu_price is not None else compute.gpu.usd_per_hour) / 3600
    dollars = dollars0 = None
    if cfg.price:
        price = PriceTable.default(cfg.prices).require(cfg.price)
        unc = (length_tok - ht)[m].sum()
        write_rate = float(price.write_5m)
        out = float(trace.output_len[m].sum())
        dollars = (
            float(
                unc * write_rate + ht[m].sum() * float(price.cache_read) + out * float(price.output)
            )
            / 1e6
        )
        dollars0 = float(length_tok[m].sum() * float(price.input) + out * float(price.output)) / 1e6
    ld = cluster.load(node, p.times, service, ttft, cfg.nodes, p.warmup)
    if cfg.handoff:  # after the load: the prefill node is free before the KV's trip
        ttft = ttft + models.handoff_seconds(length_tok, bpt)
    tm = ttft[m] if m.any() else np.zeros(1)
    warnings = [w for w in (ld.warning(cfg.nodes), degenerate_times(p.times)) if w]
    return SimResult(
        config={k: v for k, v in asdict(cfg).items()},
        requests=R,
        measured_requests=int(m.sum()),
        hit_rate_tokens=float(ht[m].sum() / max(length_tok[m].sum(), 1)),
        hit_rate_blocks=float(hb[m].sum() / max(blocks[m].sum(), 1)),
        input_tokens=int(length_tok[m].sum()),
        cached_tokens=int(ht[m].sum()),
        prefill_tokens=int((length_tok - ht)[m].sum()),
        prefill_gpu_s=float(service[m].sum() * gpus),
        prefill_gpu_s_saved=float((full - compute.prefill_seconds(length_tok, ht))[m].sum() * gpus),
        ttft_mean_s=float(tm.mean()),
        ttft_p50_s=_percentile(tm, 50),
        ttft_p99_s=_percentile(tm, 99),
        load_max_mean_requests=cluster.balance(node[m], np.ones(int(m.sum())), cfg.nodes),
        load_max_mean_tokens=cluster.balance(node[m], length_tok[m], cfg.nodes),
        dollars=dollars,
        dollars_without_cache=dollars0,
        underfilled=bool(underfilled),
        tier_tokens={k: int(tier_tok[m, i].sum()) for i, k in enumerate(("hbm", "dram", "ssd"))},
        fetched_blocks=int(fetched[m].sum()),
        backend=backend.name,
        ttft_p90_s=_percentile(tm, 90),
        node_utilisation=ld.utilisation,
        queue_growth_s_per_s=ld.max_queue_growth,
        overloaded=ld.overloaded,
        warnings=warnings,
        node=compute.describe(),
        gpus_per_node=gpus,
        gpu_dollars=float(service[m].sum() * gpus * per_gpu_s),
        gpu_dollars_without_cache=float(full[m].sum() * gpus * per_gpu_s),
    )


def lru_curve(
    trace: Trace,
    *,
    warmup: float = 0.5,
    share: bool = True,
    ttl: float | None = None,
    backend: Backend = NUMPY,
    max_capacity: int | None = None,
    plan: engine.Plan | None = None,
) -> engine.Curve:
    """LRU hit rates at every capacity from 1 block up, in one pass over the trace.

    `plan`: `engine.plan(trace, warmup=warmup, share=share)` where the caller has it already."""
    p = engine.plan(trace, warmup=warmup, share=share) if plan is None else plan
    if backend.device:  # the whole curve on the device, one copy back
        return engine.device_curve(p, ttl, backend, max_capacity)
    rank, prev = engine.stack_ranks(p, backend)
    return engine.lru_curve(p, engine.effective_ranks(p, rank, prev, ttl), max_capacity)


def node_curves(
    trace: Trace, config: SimConfig, plan: engine.Plan | None = None, backend: Backend = NUMPY
) -> list[engine.Curve]:
    """The LRU curve of each node of `config`'s cluster (a router that ignores cache state), every
    curve over the same capacities 1..(the trace's distinct blocks), each node's own requests
    measured; `cluster_curve` adds them up. A cache-aware router's placement depends on the
    cache size, so it has no one-pass curve: refused."""
    cfg = config.check()
    if cfg.router not in cluster.STATELESS:
        raise UserError(
            f"the {cfg.router} router places requests by cache state, so its cluster has no "
            "one-pass curve",
            where="--router",
        )
    p = engine.plan(trace, warmup=cfg.warmup, share=cfg.share) if plan is None else plan
    if cfg.nodes == 1:
        return [lru_curve(trace, ttl=cfg.ttl, backend=backend, plan=p)]
    keys = trace.session if cfg.router == "session" else trace.keys()
    node = cluster.assign(cfg.router, cfg.nodes, keys, trace.ids[trace.starts[:-1]], cfg.seed)
    top = max(1, p.n_nodes)
    out = []
    for n in range(cfg.nodes):
        sub, _ = cluster.sub_plan(p, node == n)
        rank, prev = engine.stack_ranks(sub, backend)
        out.append(engine.lru_curve(sub, engine.effective_ranks(sub, rank, prev, cfg.ttl), top))
    return out


def cluster_curve(curves: list[engine.Curve]) -> engine.Curve:
    """The cluster's hit rate at each capacity per node: every node's hits over every node's
    measured blocks and tokens."""
    first = curves[0]
    return engine.Curve(
        capacities=first.capacities,
        hit_blocks=np.sum([c.hit_blocks for c in curves], axis=0).astype(np.int64),
        hit_tokens=np.sum([c.hit_tokens for c in curves], axis=0).astype(np.int64),
        total_blocks=sum(c.total_blocks for c in curves),
        total_tokens=sum(c.total_tokens for c in curves),
        warmup_unique=max(c.warmup_unique for c in curves),
    )


def smallest_cluster(
    trace: Trace,
    config: SimConfig,
    *,
    slo_s: float,
    percentile: float = 90.0,
    max_nodes: int = 512,
    backend: Backend = NUMPY,
    plan: engine.Plan | None = None,
) -> tuple[SimResult, list[tuple[int, float]]]:
    """The smallest node count whose TTFT percentile is within `slo_s` with no node overloaded.

    Doubles the node count until one meets the objective, then bisects between the last that
    failed and the first that met it (TTFT falls with more nodes for every router here, up to
    routing noise). Returns that cluster's result and every (nodes, TTFT) tried, in order."""
    if percentile not in (50.0, 90.0, 99.0):
        raise UserError(f"percentile must be 50, 90 or 99, got {percentile:g}", where="--slo-pct")
    if not slo_s > 0:
        raise UserError(
            f"the TTFT objective must be positive seconds, got {slo_s}", where="--slo-ttft"
        )
    p = engine.plan(trace, warmup=config.warmup, share=config.share) if plan is None else plan
    tried: list[tuple[int, float]] = []
    seen: dict[int, SimResult] = {}

    def run(n: int) -> bool:
        r = simulate(trace, replace(config, nodes=n), backend, plan=p)
        seen[n] = r
        at = {50.0: r.ttft_p50_s, 90.0: r.ttft_p90_s, 99.0: r.ttft_p99_s}[percentile]
        tried.append((n, at))
        return not r.overloaded and at <= slo_s

    lo, hi = 0, 1
    while not run(hi):
        lo, hi = hi, hi * 2
        if hi > max_nodes:
            raise UserError(
                f"no cluster of up to {max_nodes} nodes keeps p{percentile:g} TTFT within "
                f"{slo_s:g} s (at {lo} nodes: {tried[-1][1]:,.2f} s)",
                where="--nodes",
            )
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if run(mid):
            hi = mid
        else:
            lo = mid
    best = seen[hi]
    note = (
        f"--nodes auto: {hi} node(s) is the smallest cluster with p{percentile:g} TTFT <= "
        f"{slo_s:g} s and no node overloaded (tried "
        + ", ".join(f"{n}: {t:,.2f} s" for n, t in tried)
        + ")"
    )
    return replace(best, notes=[*best.notes, note]), tried
