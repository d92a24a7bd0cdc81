"""Golden comparisons with the Mooncake paper (Qin et al., FAST'25) on its published traces.

- Fig. 9, LRU hit rate against cache capacity, request order only: the curve of the whole
  synthetic trace (shipped in data/) within 0.015 of the paper's at every point the figure draws,
  read from the figure's vector paths (golden/mooncake_fig9.json, golden/fig9_from_pdf.py); the
  conversation curve beside it when the full trace is present.
- Fig. 10, local vs global cache: ten nodes with their own LRU cache each (requests spread at
  random) against one pool ten times the size. Paper, conversation trace: about 0.17 -> 0.375.
- Scheduling order (the paper's comparison of random, load-balancing, local cache-aware and
  KVCache-centric scheduling): mean TTFT falls in that order.
The slice of the conversation trace shipped with the tests always runs; the full trace runs when
the shared data folder is beside the checkout (as tests/benchmarks/bench_sim finds it).
"""

from __future__ import annotations

import json
from pathlib import Path

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


def _local_global(trace: Trace) -> tuple[float, float]:
    p = engine.plan(trace)
    local = simulate(trace, SimConfig(capacity=5000, nodes=10, router="random", price=None), plan=p)
    pool = simulate(trace, SimConfig(capacity=50_000, price=None), plan=p)
    return local.hit_rate_blocks, pool.hit_rate_blocks


def test_fig10_local_vs_global_on_the_slice(conversation: Trace) -> None:
    local, pool = _local_global(conversation)
    assert local == pytest.approx(0.1065, abs=0.002)
    assert pool == pytest.approx(0.3665, abs=0.002)
    assert abs(pool - PAPER_GLOBAL) < 0.015 and pool > 3 * local


def test_fig10_local_vs_global_on_the_full_trace() -> None:
    if not FULL.exists():
        pytest.skip(f"full Mooncake trace {FULL} not present")
    local, pool = _local_global(read_trace(FULL))
    # measured: 0.110 -> 0.369 (paper about 0.17 -> 0.375)
    assert local == pytest.approx(0.110, abs=0.002)
    assert pool == pytest.approx(0.369, abs=0.002)
    assert abs(pool - PAPER_GLOBAL) < 0.015


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
