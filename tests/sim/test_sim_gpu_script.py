"""The GPU check script and benchmark run their numpy path here (no GPU on this machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from prefixlock.sim.backend import cupy_available

ROOT = Path(__file__).resolve().parents[2]
SLICE = ROOT / "tests" / "sim" / "data" / "conversation_head3000.jsonl.gz"


def test_gpu_sim_numpy_path(tmp_path: Path) -> None:
    from tests.benchmarks import gpu_sim

    assert len(gpu_sim.configs(256)) == 256
    out = tmp_path / "b.json"
    rc = gpu_sim.main(
        ["--trace", str(SLICE), "--configs", "6", "--numpy-configs", "3", "--json", str(out)]
    )
    assert rc == (0 if cupy_available() else 3)
    report = json.loads(out.read_text())
    assert report["numpy"]["refs_per_s"] > 0 and report["configs"] == 6


def test_gpu_sim_gpu_half_on_a_stand_in(tmp_path: Path) -> None:
    # The GPU half (device pipeline, parity, crossover, report) run with numpy standing in for
    # cupy, so a lent GPU's minutes are not spent finding a bug in the script.
    if cupy_available():
        pytest.skip("a GPU is present: gpu_check.sh runs the real thing")
    from tests.benchmarks import gpu_sim

    out = tmp_path / "b.json"
    argv = ["--trace", str(SLICE), "--configs", "5", "--numpy-configs", "5", "--stand-in"]
    rc = gpu_sim.main(
        [*argv, "--crossover", "1,2", "--batch-refs", "200000", "--profile", "--json", str(out)]
    )
    assert rc == 3  # still no GPU
    report = json.loads(out.read_text())
    assert report["stand_in"] and report["cupy"]["parity_with_numpy"] is True
    # the stage profile: every stage of the device pipeline ran and took its share
    stages = report["profile"]
    ranks = "ranks (next uses, pairs, wavelet)"
    for name in ("routing", ranks, "shortfall below the longest request", "histograms"):
        assert 0 < stages[name] <= stages["total"], name
    assert 0 < stages["  of which the wavelet matrix"] <= stages[ranks]
    assert [r["references"] for r in report["crossover"]["rows"]] == [80_619, 161_238]


def test_cli_curve_on_generated_requests_on_a_stand_in(tmp_path: Path) -> None:
    # gpu_check.sh's CLI-curve comparison (10M requests on a GPU) at 20,000 requests on numpy
    # standing in for cupy: the device curve equals numpy's at every capacity.
    from prefixlock.sim.backend import Backend
    from tests.benchmarks import gpu_sim

    t = gpu_sim.session_trace(20_000)
    assert t.requests == 20_000 and 7 <= t.references / t.requests <= 8
    assert (np.diff(t.times) >= 0).all()
    c = gpu_sim.cli_curve(20_000, Backend("stand-in", np, device=True))
    assert c["identical"] is True and c["requests"] == 20_000


@pytest.mark.slow  # the whole GPU check script, numpy half and stand-in
@pytest.mark.skipif(os.name != "posix", reason="bash script")
def test_gpu_check_script_writes_results(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "OUT": str(tmp_path),
        "PYTHON": sys.executable,
        "GPU_SIM_ARGS": f"--configs 4 --numpy-configs 2 --trace {SLICE}",
    }
    proc = subprocess.run(
        ["bash", str(ROOT / "tests/benchmarks/gpu_check.sh")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == (0 if cupy_available() else 3), proc.stdout + proc.stderr
    for name in ("environment.txt", "parity.txt", "bench.txt", "bench.json", "summary.txt"):
        assert (tmp_path / name).stat().st_size > 0
    assert "parity tests exit code: 0" in (tmp_path / "summary.txt").read_text()
