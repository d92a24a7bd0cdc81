"""Regenerate kvcache_simulator.json with the `kvcache-simulator` package (PyPI, Mooncake team).

    .venv/bin/python tests/sim/golden/make_golden.py

Runs the package's C++ backend (and checks its Python backend agrees) over the trace slices in
tests/sim/data with 512-token blocks, capacities in blocks and its default measurement window
(the last 50% of requests), for LRU, FIFO and optimal. The test compares prefixlock's simulator
with the numbers written here; the benchmark compares against the package itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from kvcache_sim.cpp_backend import run_cpp_sweep
from kvcache_sim.plan import build_execution_plan
from kvcache_sim.policies import simulate_policy
from kvcache_sim.trace import parse_trace_file

HERE = Path(__file__).parent
CASES = {
    "conversation_head3000.jsonl.gz": [
        1,
        2,
        7,
        64,
        240,
        241,
        300,
        1000,
        4000,
        12000,
        25000,
        30634,
        30635,
    ],
    "synthetic_head1500.jsonl.gz": [1, 3, 50, 263, 264, 500, 2000, 6000, 12000, 15342, 15343],
}
POLICIES = ["lru", "fifo", "optimal"]


def main() -> None:
    out: dict[str, object] = {
        "package": "kvcache-simulator 0.1.3",
        "block_size": 512,
        "warmup_fraction": 0.5,
    }
    traces = {}
    for name, caps in CASES.items():
        trace = parse_trace_file(HERE.parent / "data" / name, block_size=512)
        warm = trace.request_count // 2
        cpp = run_cpp_sweep(trace, capacities=caps, policies=POLICIES, warmup_requests=warm)
        plan = build_execution_plan(trace, warmup_fraction=0.5)
        points = []
        for cap in caps:
            row: dict[str, object] = {"capacity": cap}
            for pol in POLICIES:
                r = cpp.results[(pol, cap)]
                py = simulate_policy(plan, pol, cap)
                assert (py.hitTokens, py.totalTokens, py.measurementMode) == (
                    r.hitTokens,
                    r.totalTokens,
                    r.measurementMode,
                ), (name, pol, cap)
                row[pol] = {
                    "hit_tokens": r.hitTokens,
                    "total_tokens": r.totalTokens,
                    "hit_rate": r.hitRate,
                    "underfilled": r.measurementMode == "underfilled_at_window",
                }
            points.append(row)
        traces[name] = {"requests": trace.request_count, "warmup_requests": warm, "points": points}
    out["traces"] = traces
    (HERE / "kvcache_simulator.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
