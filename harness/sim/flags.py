"""The flags of `prefixlock sim`, one function per group of its --help, in the order shown.

Argparse only: `prefixlock sim --help` imports this module and nothing heavy.
"""

from __future__ import annotations

import argparse


def configure(p: argparse.ArgumentParser) -> None:
    """Every flag of `prefixlock sim`: the trace (or workload) argument, then each group."""
    p.add_argument(
        "trace",
        metavar="TRACE",
        help="trace file (.jsonl/.jsonl.gz: Mooncake or prefixlock), 'synthetic' for a generated "
        "chat-style workload (--sessions, --turns, --style), 'agents' for a coding-agent "
        "workload calibrated on real session logs (--sessions), or 'matrix' for client x server",
    )
    _trace_flags(p)
    _cache_flags(p)
    _cluster_flags(p)
    _compute_flags(p)
    _cost_flags(p)
    _output_flags(p)
    _workload_flags(p)


def _trace_flags(p: argparse.ArgumentParser) -> None:
    """Which trace to read and how: its format, block size, bad lines, length."""
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


def _cache_flags(p: argparse.ArgumentParser) -> None:
    """Each node's KV cache: its size (blocks, bytes or tiers), the model and precision that
    size a block, eviction, TTL and sharing."""
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


def _cluster_flags(p: argparse.ArgumentParser) -> None:
    """The nodes and how requests are routed to them, then --max-rate's search."""
    g = p.add_argument_group("cluster")
    _routing_flags(g)
    _max_rate_flags(g)


def _routing_flags(g: argparse._ArgumentGroup) -> None:
    """How many nodes (or the smallest meeting the TTFT objective), and each router's knobs."""
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
        help="random, round-robin, session, cache-key (ignore cache state); least-loaded (the "
        "shortest queue); sglang (SGLang's cache-aware router), longest-prefix (a heuristic "
        "reading the real caches), ttft (Mooncake's Conductor), ttft-local (the same without "
        "copies between nodes) (comma list sweeps)",
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


def _max_rate_flags(g: argparse._ArgumentGroup) -> None:
    """--max-rate: the highest rate within the objective, with decode and its plot."""
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
        "--slo-tbt",
        "--slo-tpot",
        dest="slo_tpot",
        type=float,
        default=None,
        help="p90 time-between-tokens objective in seconds (--decode)",
    )
    g.add_argument(
        "--chunk-tokens",
        type=int,
        default=2048,
        help="prefill chunk a co-located decode step carries (--decode; default 2048, vLLM's)",
    )
    g.add_argument("--rate-plot", default=None, help="draw offered vs served rate to this PNG")


def _compute_flags(p: argparse.ArgumentParser) -> None:
    """What one node is (GPUs, tensor parallelism, MFU, weight precision), its price, its
    links."""
    g = p.add_argument_group("compute (one node = one model instance)")
    g.add_argument("--gpu", default="h100", help="a800, h100, h200 or b200 (default h100)")
    g.add_argument(
        "--tp",
        type=int,
        default=0,
        help="GPUs per node (tensor parallel); default: the fewest that hold the weights",
    )
    g.add_argument(
        "--mfu",
        type=float,
        default=0.59,
        help="model FLOPs utilisation of prefill's compute (0.59, fitted to Mooncake Fig. 14)",
    )
    g.add_argument(
        "--overhead",
        type=float,
        default=0.096,
        help="fixed prefill seconds a request (0.096, fitted to Mooncake Fig. 14)",
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
    g.add_argument(
        "--handoff",
        action="store_true",
        help="the nodes prefill for separate decode nodes: TTFT adds the KV's handoff "
        "(scheduling, transfer, load into HBM; Mooncake Fig. 14)",
    )


def _cost_flags(p: argparse.ArgumentParser) -> None:
    """The measurement window and the price table the dollars come from."""
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


def _output_flags(p: argparse.ArgumentParser) -> None:
    """Where results go (JSON, plots, the curve), the array backend, how a sweep runs, the seed
    and the progress bar."""
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
        "--max-memory",
        default=None,
        metavar="SIZE",
        help="memory the run may use, e.g. 16GB (default: what the system has available); a "
        "run estimated past it is refused before it starts",
    )
    g.add_argument(
        "--connect-timeout",
        type=float,
        default=30.0,
        help="seconds to reach the Ray cluster at --address before giving up (30)",
    )
    g.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the random router and synthetic workloads (default 0)",
    )
    g.add_argument("--no-progress", action="store_true", help="no progress bar")


def _workload_flags(p: argparse.ArgumentParser) -> None:
    """The generated workloads of `sim synthetic`, `sim agents` and `sim matrix`."""
    g = p.add_argument_group("synthetic workloads (sim synthetic, sim matrix)")
    g.add_argument("--sessions", type=int, default=80, help="synthetic sessions (per client style)")
    g.add_argument("--turns", type=int, default=16, help="mean turns per session")
    g.add_argument(
        "--style",
        default="stable",
        help="client style of 'sim synthetic': stable, timestamp, shuffled-tools, model-switch",
    )
