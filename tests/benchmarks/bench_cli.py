"""Whole-process timings of the console script, each against a baseline measured in the same run.

    .venv/bin/python -m pytest tests/benchmarks/bench_cli.py -s
    .venv/bin/python tests/benchmarks/bench_cli.py

- `prefixlock --help` and `prefixlock sim --help` as multiples of a bare `python -c pass`
  (goal and assertion: within 8x).
- `prefixlock sim conversation_trace.jsonl --curve` (parse, one simulation, the LRU curve at every
  capacity, the tables) against kvcache-simulator's C++ backend computing 8 LRU capacities of the
  same trace, parsing included, as a whole process too (goal and assertion: 3x faster). That part
  skips without the trace (`shared/data/mooncake/` beside the project, or beside a folder above
  it), kvcache-simulator or a C++ compiler.

Every figure is the median of ROUNDS runs; the commands take turns within each round, so they all
see the same background load. One untimed round first warms the bytecode and page caches.

The curve comparison runs both sides with bytecode caching on (PYTHONDONTWRITEBYTECODE unset), as
a user's installed packages have it: where the environment sets that variable (this project's
machines do), every process would compile the modules it imports again (some 60 ms for the
simulator's), which no installed copy of either package pays.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACE = "data/mooncake/conversation_trace.jsonl"
ROUNDS = 7
CAPS8 = [1000, 2000, 5000, 10000, 20000, 40000, 60000, 90000]

HELP_GOAL, HELP_ASSERT = 8.0, 8.0  # prefixlock --help, as a multiple of python -c pass
CURVE_GOAL, CURVE_ASSERT = 3.0, 3.0  # kvcache-simulator C++ (8 capacities) / prefixlock sim --curve

# kvcache-simulator's C++ backend as bench_sim runs it, as one process: parse the trace, write
# it for the binary, run the binary on 8 LRU capacities.
KV8 = f"""
import sys
from kvcache_sim.cpp_backend import run_cpp_sweep
from kvcache_sim.trace import parse_trace_file
tr = parse_trace_file(sys.argv[1], block_size=512)
r = run_cpp_sweep(tr, capacities={CAPS8}, policies=["lru"], warmup_requests=tr.request_count // 2)
print(len(r.results))
"""


def _trace() -> Path | None:
    """The shared Mooncake trace, looked for in `shared/` beside the project root (a checkout at
    /work/main) or beside a folder above it (a worktree one level deeper)."""
    for folder in ROOT.parents:
        path = folder / "shared" / TRACE
        if path.exists():
            return path
    return None


def _prefixlock() -> list[str]:
    """The console script next to this interpreter (what a user runs), else `-m`."""
    script = Path(sys.executable).with_name("prefixlock")
    return [str(script)] if script.exists() else [sys.executable, "-m", "prefixlock.cli.main"]


def _measure(
    commands: dict[str, list[str]], rounds: int = ROUNDS, env: dict[str, str] | None = None
) -> dict[str, float]:
    """Median wall seconds of each command, run in turns; one untimed round first."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(rounds + 1):
        for name, argv in commands.items():
            t0 = time.perf_counter()
            subprocess.run(
                argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, env=env
            )
            if i:
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _with_bytecode() -> dict[str, str]:
    """This environment with bytecode caching on (see the module docstring)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _kv8_ready() -> str | None:
    """Why kvcache-simulator's C++ backend cannot run here (None: it can, compiled now, outside
    the timings, as a warm install would have it)."""
    try:
        from kvcache_sim.cpp_backend import ensure_cpp_simulator
    except ImportError:
        return "kvcache-simulator is not installed (a dev dependency)"
    try:
        ensure_cpp_simulator()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        return f"kvcache-simulator's C++ backend does not build here: {exc}"
    return None


def test_help_is_a_small_multiple_of_python_startup() -> None:
    cli = _prefixlock()
    t = _measure(
        {
            "python -c pass": [sys.executable, "-c", "pass"],
            "prefixlock --help": [*cli, "--help"],
            "prefixlock sim --help": [*cli, "sim", "--help"],
        },
        rounds=ROUNDS * 3,
    )
    base = t["python -c pass"]
    print(f"\nwhole process, median of {ROUNDS * 3} runs (goal: --help within {HELP_GOAL:g}x)")
    for name, secs in t.items():
        print(f"  {name:24} {secs:7.3f} s  {secs / base:5.1f}x")
    assert t["prefixlock --help"] <= HELP_ASSERT * base
    assert t["prefixlock sim --help"] <= HELP_ASSERT * base


def test_sim_curve_against_kvcache_simulator_cpp() -> None:
    trace = _trace()
    if trace is None:
        pytest.skip(f"no shared/{TRACE} beside the project root or a folder above it")
    why = _kv8_ready()
    if why is not None:
        pytest.skip(why)
    t = _measure(
        {
            "python -c pass": [sys.executable, "-c", "pass"],
            "prefixlock sim --curve": [*_prefixlock(), "sim", str(trace), "--curve"],
            "kvcache-simulator C++": [sys.executable, "-c", KV8, str(trace)],
        },
        env=_with_bytecode(),
    )
    ours, theirs = t["prefixlock sim --curve"], t["kvcache-simulator C++"]
    print(f"\n{trace.name}, whole process, median of {ROUNDS} runs (goal: {CURVE_GOAL:g}x faster)")
    print(f"  {'python -c pass':40} {t['python -c pass']:7.3f} s")
    print(f"  {'prefixlock sim TRACE --curve':40} {ours:7.3f} s")
    print(f"  {'kvcache-simulator C++, 8 LRU capacities':40} {theirs:7.3f} s")
    print(f"  prefixlock is {theirs / ours:.1f}x faster")
    assert theirs >= CURVE_ASSERT * ours


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-s", "-q", "-p", "no:cacheprovider"]))
