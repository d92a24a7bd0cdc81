"""What the plots draw: a multi-node run's cluster curve is the cluster's own hit rate at each
capacity per node (equal to the simulation's), and the rate plot's TTFT crosses the objective at
the highest rate found (the knee)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.errors import UserError
from prefixlock.sim import engine
from prefixlock.sim.capacity import max_rate
from prefixlock.sim.simulate import SimConfig, cluster_curve, node_curves, simulate
from prefixlock.sim.trace import Trace

SLICE = Path(__file__).parent / "data" / "conversation_head3000.jsonl.gz"


def test_cluster_curve_is_the_clusters_hit_rate(conversation: Trace) -> None:
    t = conversation.head(1200)
    p = engine.plan(t)
    cfg = SimConfig(nodes=4, router="round-robin", price=None)
    nodes = node_curves(t, cfg, p)
    whole = cluster_curve(nodes)
    assert len(nodes) == 4
    for cap in (50, 400, 3000):
        r = simulate(t, SimConfig(capacity=cap, nodes=4, router="round-robin", price=None), plan=p)
        assert whole.at(cap)[0] == pytest.approx(r.hit_rate_tokens, abs=1e-12)
    # four caches of C blocks hold less of the trace than one pool of C blocks each would
    pool = node_curves(t, SimConfig(price=None), p)[0]
    assert whole.at(400)[0] < pool.at(1600)[0]
    with pytest.raises(UserError, match="no one-pass curve"):
        node_curves(t, SimConfig(nodes=4, router="sglang", price=None), p)


def test_rate_curve_has_its_knee_at_the_objective(conversation: Trace) -> None:
    t = conversation.head(1200)
    cap = max_rate(t, SimConfig(capacity=476, nodes=4, router="random", price=None), slo_s=10.0)
    pts = sorted(cap.curve, key=lambda p: p.offered_rps)
    below = [p for p in pts if p.speedup <= cap.speedup]
    above = [p for p in pts if p.speedup > cap.speedup * 1.2]
    assert all(p.ttft_p90_all_s <= 10.0 for p in below)
    assert above and all(p.ttft_p90_all_s > 10.0 or p.overloaded for p in above)
    # not the old y = x picture of served against offered: the TTFT the plot draws runs from
    # under the objective to past twice it (measured 6.2 s at 0.62 req/s, 20.8 s at 2.5 req/s)
    assert below[0].ttft_p90_all_s < 10.0 < 20.0 < above[-1].ttft_p90_all_s


def test_plots_are_written(tmp_path: Path) -> None:
    curve_png, rate_png = tmp_path / "c.png", tmp_path / "r.png"
    base = ["sim", str(SLICE), "--limit", "600", "--price", "none", "--no-progress"]
    argv = [*base, "--nodes", "4", "--router", "round-robin", "--capacity", "300"]
    assert main([*argv, "--plot", str(curve_png)]) == 0
    assert curve_png.read_bytes()[:4] == b"\x89PNG"
    argv = [*base, "--nodes", "4", "--capacity", "300", "--max-rate", "--slo-ttft", "10"]
    assert main([*argv, "--rate-plot", str(rate_png)]) == 0
    assert rate_png.read_bytes()[:4] == b"\x89PNG"
