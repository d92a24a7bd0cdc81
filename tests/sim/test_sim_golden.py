"""Golden comparisons with the Mooncake paper (Qin et al., FAST'25) on its published traces.

- Fig. 10, local vs global cache: ten nodes with their own LRU cache each (requests spread at
  random) against one pool ten times the size. Paper, conversation trace: about 0.17 -> 0.375.
- Scheduling order (the paper's comparison of random, load-balancing, local cache-aware and
  KVCache-centric scheduling): mean TTFT falls in that order.
The slice of the conversation trace shipped with the tests always runs; the full trace runs when
the shared data folder is beside the checkout (as tests/benchmarks/bench_sim finds it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.sim import engine
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace, read_trace

ROOT = Path(__file__).resolve().parents[2]
FULL = next(
    (d / "shared" / "data" / "mooncake" for d in ROOT.parents if (d / "shared").is_dir()),
    ROOT.parent / "shared" / "data" / "mooncake",
) / "conversation_trace.jsonl"
PAPER_GLOBAL = 0.375


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
