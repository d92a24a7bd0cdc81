"""Golden comparisons with the Mooncake paper (Qin et al., FAST'25) on its published traces.

- Fig. 9, LRU hit rate against cache capacity, request order only: the curve of the whole
  synthetic trace (shipped in data/) within 0.015 of the paper's at every point the figure draws,
  read from the figure's vector paths (golden/mooncake_fig9.json, golden/fig9_from_pdf.py); the
  conversation curve beside it when the full trace is present.
- Fig. 10, local vs global cache: ten nodes with their own LRU cache each (requests sent to the
  longest match unless queues are unbalanced) against one pool ten times the size. Paper,
  conversation trace: 0.169 -> 0.375 (2.22x).
- Scheduling order (the paper's comparison of random, load-balancing, local cache-aware and
  KVCache-centric scheduling): mean TTFT falls in that order.
The slice of the conversation trace shipped with the tests always runs; the full trace runs when
the shared data folder is beside the checkout (as tests/benchmarks/bench_sim finds it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prefixlock.sim import engine
from prefixlock.sim.simulate import SimConfig, lru_curve, simulate
from prefixlock.sim.trace import Trace
from prefixlock.sim.tracefile import read_trace

ROOT = Path(__file__).resolve().parents[2]
FULL = (
    next(
        (d / "shared" / "data" / "mooncake" for d in ROOT.parents if (d / "shared").is_dir()),
        ROOT.parent / "shared" / "data" / "mooncake",
    )
    / "conversation_trace.jsonl"
)
PAPER_GLOBAL = 0.375
FIG9 = json.loads((Path(__file__).parent / "golden" / "mooncake_fig9.json").read_text("utf-8"))
SYNTHETIC = Path(__file__).parent / "data" / "synthetic_trace.jsonl.gz"
# Mooncake's nodes: 8 x A800 running a LLaMA-70B (the prefill times matter to the routers)
A800: dict[str, Any] = {
    "model": "llama-2-70b",
    "gpu": "a800",
    "gpus": 8,
    "weight_precision": "bf16",
    "precision": "bf16",
}


def _fig9(curve: engine.Curve, trace: Trace, name: str) -> list[tuple[int, float, float]]:
    """(capacity in tokens, the paper's hit rate, ours) at each point of the paper's curve."""
    return [
        (tokens, paper, curve.at(max(1, round(tokens / trace.block_size)))[0])
        for tokens, paper in FIG9[name]
    ]


def test_fig9_synthetic_lru_curve_within_0015() -> None:
    trace = read_trace(SYNTHETIC)
    assert trace.requests == 3993
    curve = lru_curve(trace, warmup=0.0)  # the figure replays the whole sequence, cold start
    rows = _fig9(curve, trace, "synthetic")
    assert len(rows) >= 9
    # measured: worst |ours - paper| 0.0116 (at 10M tokens: 0.5770 vs 0.5886)
    assert max(abs(ours - paper) for _, paper, ours in rows) < 0.015, rows
    # The figure's label: a 3M-token local cache reaches 46% of the synthetic maximum.
    at_3m = curve.at(3_000_000 // trace.block_size)[0] / rows[-1][2]
    assert at_3m == pytest.approx(0.46, abs=0.03)


def test_fig9_conversation_lru_curve_on_the_full_trace() -> None:
    if not FULL.exists():
        pytest.skip(f"full Mooncake trace {FULL} not present")
    trace = read_trace(FULL)
    rows = _fig9(lru_curve(trace, warmup=0.0), trace, "conversation")
    # measured: ours runs below the paper's everywhere, by 0.002 at 10K tokens and 0.027-0.037
    # from 0.1M up (0.0543 vs 0.0866 at 1M, 0.3736 vs 0.4006 at 100M); the synthetic curve
    # matches, so the gap is in the conversation data (the paper's curve may come from more than
    # the hour released), not the replay. Pinned so a change shows.
    gaps = [paper - ours for _, paper, ours in rows]
    assert max(gaps) < 0.04 and min(gaps) > -0.005, rows


# Mooncake Fig. 10 (§5.3.2): 10 prefill nodes with 3M tokens of cache each; "local": each node
# reads only its own cache and the scheduler sends a request to the node with the higher prefix
# match ratio; "global": the ten caches shared. The conversation bars: 2.22x, from about 0.169 to
# 0.375 (the global bar against Fig. 9's curve; local = 0.375 / 2.22). Here: 5,960 blocks a node
# (1 TB of DRAM at 320 KB a token, §5.3.1); local routed by longest-prefix (the longest match
# unless queues differ by more than its default 2 s: the paper's scheduler must balance load too,
# and does not say how); global as one pool of 59,600 blocks.
PAPER_LOCAL = 0.375 / 2.22


def _local_global(trace: Trace) -> tuple[float, float]:
    p = engine.plan(trace)
    local = simulate(
        trace,
        SimConfig(capacity=5960, nodes=10, router="longest-prefix", price=None, **A800),
        plan=p,
    )
    pool = simulate(trace, SimConfig(capacity=59_600, price=None, **A800), plan=p)
    return local.hit_rate_blocks, pool.hit_rate_blocks


# Tolerance 0.02 on the local hit rate (12% of it): how the scheduler trades match against load
# is not published, and the hit rate depends on it (a 1 s threshold gives 0.12, 4 s 0.21 on the
# full trace); 0.02 is what the default's distance from the paper may be, not the threshold's
# whole range. The global pool within 0.015 as before.


def test_fig10_local_vs_global_on_the_slice(conversation: Trace) -> None:
    local, pool = _local_global(conversation)
    assert local == pytest.approx(0.1484, abs=0.002)
    assert pool == pytest.approx(0.3665, abs=0.002)
    assert abs(local - PAPER_LOCAL) < 0.025  # the first 14 minutes: a colder start
    assert abs(pool - PAPER_GLOBAL) < 0.015


@pytest.mark.slow  # the full trace, 12,031 requests
def test_fig10_local_vs_global_on_the_full_trace() -> None:
    if not FULL.exists():
        pytest.skip(f"full Mooncake trace {FULL} not present")
    local, pool = _local_global(read_trace(FULL))
    # measured: 0.155 -> 0.375, 2.42x (paper 0.169 -> 0.375, 2.22x)
    assert local == pytest.approx(0.155, abs=0.002)
    assert pool == pytest.approx(0.375, abs=0.002)
    assert abs(local - PAPER_LOCAL) < 0.02
    assert abs(pool - PAPER_GLOBAL) < 0.015
    assert pool / local == pytest.approx(2.22, rel=0.1)


def test_scheduling_order(conversation: Trace) -> None:
    p = engine.plan(conversation)
    ttft = {}
    hit = {}
    for router in ("random", "round-robin", "sglang", "ttft"):
        r = simulate(
            conversation, SimConfig(capacity=5000, nodes=8, router=router, price=None), plan=p
        )
        assert not r.overloaded
        ttft[router], hit[router] = r.ttft_mean_s, r.hit_rate_tokens
    # random 3.5 s > load-balancing 2.7 s > local cache-aware 1.3 s > KVCache-centric 0.9 s
    assert ttft["random"] > ttft["round-robin"] > ttft["sglang"] > ttft["ttft"]
    assert min(hit["sglang"], hit["ttft"]) > 2.5 * max(hit["random"], hit["round-robin"])
