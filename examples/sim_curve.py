"""The LRU hit rate at every cache size in one pass, checked against a replay, on a Mooncake trace.

Reads the first 3,000 requests of Mooncake's conversation trace (shipped with the tests,
Apache-2.0), computes the whole LRU curve (stack distances), and replays three capacities with the
request-by-request engine to show they agree; FIFO and optimal come from replays only.
"""

from __future__ import annotations

from pathlib import Path

from prefixlock.sim import engine
from prefixlock.sim.replay import replay
from prefixlock.sim.simulate import lru_curve
from prefixlock.sim.tracefile import read_trace

TRACE = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "sim"
    / "data"
    / "conversation_head3000.jsonl.gz"
)

trace = read_trace(TRACE)
curve = lru_curve(trace, warmup=0.5)
print(
    f"{trace.name}: {trace.requests:,} requests, "
    f"{trace.references:,} blocks of {trace.block_size} tokens"
)
print(f"LRU curve over {len(curve.capacities):,} capacities in one pass")
plan = engine.plan(trace, warmup=0.5)
measured = int(plan.tokens[plan.req >= plan.warmup].sum())
for cap in (500, 4000, 20000):
    one_pass, _ = curve.at(cap)
    rates = {
        pol: float(replay(plan, pol, cap).hit_tokens[plan.warmup :].sum()) / measured
        for pol in ("lru", "fifo", "optimal")
    }
    assert abs(rates["lru"] - one_pass) < 1e-12
    print(
        f"  {cap:>6} blocks: LRU {one_pass:6.2%} (replay {rates['lru']:6.2%}), "
        f"FIFO {rates['fifo']:6.2%}, optimal {rates['optimal']:6.2%}"
    )
