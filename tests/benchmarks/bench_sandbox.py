"""Figures of the command sandbox's bounds and costs, each against a baseline measured in the
same run: a fork bomb's time to stop at the process cap (against the 60 s timeout that bounded
it before) and the tasks it reached; the unsandboxed command's start under the subreaper helper
(against a plain /bin/sh); the descriptor-based tree walk (against os.walk with a resolve per
file, the walk it replaced).

    .venv/bin/python -m pytest tests/benchmarks/bench_sandbox.py -s
    .venv/bin/python tests/benchmarks/bench_sandbox.py [CAP]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest

from prefixlock.coding.sandbox import Sandbox, SandboxMode, SandboxOptions
from prefixlock.coding.workspace import SKIP_DIRS, Workspace

BOMB = "bash -c ':(){ :|:& };:'; sleep 600"
TIMEOUT = 60.0


async def fork_bomb(root: Path, cap: int) -> dict[str, float] | None:
    """Seconds to stop and the most tasks seen (None where nothing caps: never run it)."""
    mode: SandboxMode = "bwrap" if Sandbox(root).problem() is None else "off"
    sandbox = Sandbox(root, SandboxOptions(mode=mode, max_processes=cap))
    if sandbox.cap_problem():
        return None
    peak = 0

    async def sample() -> None:
        nonlocal peak
        while True:
            for current in Path("/sys/fs/cgroup").glob("**/prefixlock-*/pids.current"):
                try:
                    peak = max(peak, int(current.read_text()))
                except (OSError, ValueError):
                    continue
            await asyncio.sleep(0.01)

    sampler = asyncio.ensure_future(sample())
    started = time.monotonic()
    out = await sandbox.run(BOMB, timeout=TIMEOUT, limit=2000)
    took = time.monotonic() - started
    sampler.cancel()
    assert out.killed_for, out
    return {"seconds": took, "peak": float(peak)}


async def command_start(root: Path, runs: int = 15) -> dict[str, float]:
    """Median ms of `true` unsandboxed: plain, and under the subreaper helper."""
    sandbox = Sandbox(root, SandboxOptions(mode="off", max_processes=0))
    exe = sys.executable
    figures = {}
    for label, executable in (("plain", ""), ("helper", exe)):
        sys.executable = executable  # empty: the sandbox runs no helper
        times = []
        try:
            for _ in range(runs):
                started = time.monotonic()
                await sandbox.run("true", timeout=10, limit=100)
                times.append(time.monotonic() - started)
        finally:
            sys.executable = exe
        figures[label] = statistics.median(times) * 1000
    return figures


def tree_walk(root: Path) -> dict[str, float]:
    """Seconds to list every file of `root`: the old path walk and the new descriptor walk."""
    ws = Workspace(root)

    def old() -> int:
        n = 0
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            n += sum(1 for name in sorted(filenames) if ws._inside(Path(dirpath) / name))
        return n

    def new() -> int:
        return sum(1 for _ in ws._walk(ws.root, "."))

    figures: dict[str, float] = {}
    for label, walk in (("old", old), ("new", new)):
        started = time.perf_counter()
        figures["files"] = float(walk())
        figures[label] = time.perf_counter() - started
    return figures


def _tree(root: Path, dirs: int = 60, files: int = 50) -> None:
    for d in range(dirs):
        sub = root / f"d{d}"
        sub.mkdir()
        for f in range(files):
            (sub / f"f{f}.py").write_text("x = 1\n")


def run(cap: int = 256) -> dict[str, dict[str, float] | None]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _tree(root)
        walk = tree_walk(root)
        start = asyncio.run(command_start(root))
        bomb = asyncio.run(fork_bomb(root, cap))
    print(f"tree walk, {walk['files']:.0f} files: old {walk['old'] * 1000:.0f} ms, "
          f"new {walk['new'] * 1000:.0f} ms ({walk['old'] / walk['new']:.1f}x faster)")  # fmt: skip
    print(f"unsandboxed `true`: plain {start['plain']:.0f} ms, under the subreaper helper "
          f"{start['helper']:.0f} ms (+{start['helper'] - start['plain']:.0f} ms)")  # fmt: skip
    if bomb is None:
        print("fork bomb: not run, nothing caps the process count here")
    else:
        print(f"fork bomb, cap {cap}: stopped after {bomb['seconds']:.2f} s "
              f"({TIMEOUT / bomb['seconds']:.0f}x sooner than the {TIMEOUT:g} s timeout), "
              f"peak {bomb['peak']:.0f} tasks seen")  # fmt: skip
    return {"walk": walk, "start": start, "bomb": bomb}


def test_bounds_and_costs() -> None:
    figures = run()
    walk = figures["walk"]
    assert walk is not None and walk["new"] < walk["old"]
    bomb = figures["bomb"]
    if bomb is None:
        pytest.skip("no process cap here")
    assert bomb["seconds"] < TIMEOUT / 4 and bomb["peak"] <= 256


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 256)
