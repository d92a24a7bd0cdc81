"""Figures of the subagent scenario on the emulator: a 25-turn main session on claude-opus-4-7
that hands three side tasks (turns 8, 12, 16) to an explorer on haiku, against the baselines
measured in the same run: the same session without the side tasks (hit rate) and the same
tasks done in the main session (cost). Also warm-then-fan-out against a cold parallel start.

    .venv/bin/python -m pytest tests/benchmarks/bench_agents.py -s
    .venv/bin/python -m tests.benchmarks.bench_agents
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from tests.helpers.agents_scenario import make_workspace, run_session


async def _figures() -> dict[str, float]:
    root = make_workspace(Path(tempfile.mkdtemp()))
    out: dict[str, float] = {}
    for mode in ("none", "delegate", "self"):
        t0 = time.perf_counter()
        run = await run_session(root, mode)
        wall = time.perf_counter() - t0
        out[f"{mode}_hit"] = run.parent_hit_rate
        out[f"{mode}_cost"] = float(run.total_cost)
        label = {
            "none": "without side tasks",
            "delegate": "3 tasks in subagents",
            "self": "3 tasks in the main session",
        }[mode]
        sub = ""
        if len(run.subagents):
            s = run.subagents
            sub = (
                f"; subagents ${s.cost:.4f}, their hit rate {s.hit_rate:.1%}, "
                f"compression {s.compression:.0f}x"
            )
        print(
            f"{label:<28} main hit rate {run.parent_hit_rate:.2%}, main ${run.parent_cost:.4f}, "
            f"total ${run.total_cost:.4f}{sub} ({wall:.1f}s)"
        )
    return out


def test_bench_agents() -> None:
    f = asyncio.run(_figures())
    print(f"hit-rate change from spawning: {100 * (f['delegate_hit'] - f['none_hit']):+.2f} points")
    print(f"cost vs doing the tasks in the main session: {f['delegate_cost'] / f['self_cost']:.0%}")
    assert abs(f["delegate_hit"] - f["none_hit"]) <= 0.01
    assert f["delegate_cost"] < f["self_cost"]


if __name__ == "__main__":
    test_bench_agents()
