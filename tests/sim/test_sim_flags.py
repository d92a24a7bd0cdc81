"""Bad flags of `prefixlock sim` end in one line naming the flag, exit code 2, before any replay,
and nothing is left half-written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.errors import UserError
from prefixlock.sim import models
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.sweep import run_sweep
from prefixlock.sim.synthetic import Workload, generate
from prefixlock.sim.trace import Trace
from prefixlock.sim.tracefile import read_trace


def _trace(tmp_path: Path) -> Path:
    f = tmp_path / "t.jsonl"
    recs = [
        {"timestamp": i, "input_length": 1000, "output_length": 5, "hash_ids": [1, 2 + i]}
        for i in range(4)
    ]
    f.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return f


@pytest.mark.parametrize(
    ("flags", "where"),
    [
        (["--block-size", "0"], "--block-size"),
        (["--block-size", "-5"], "--block-size"),
        (["--seed", "-1", "--nodes", "2", "--router", "random"], "--seed"),
        (["--jobs", "0", "--capacity", "1,2"], "--jobs"),
        (
            ["--load-threshold", "-1", "--nodes", "2", "--router", "longest-prefix"],
            "--load-threshold",
        ),
        (["--capacity-bytes", "nan"], "--capacity-bytes"),
        (["--capacity-bytes", "-5"], "--capacity-bytes"),
        (["--hbm", "inf"], "--hbm"),
        (["--json", "/nonexistent-dir/out.json"], "--json"),
        (["--plot", "/nonexistent-dir/curve.png"], "--plot"),
        (["--rate-plot", "/nonexistent-dir/rate.png", "--max-rate"], "--rate-plot"),
        (["--mfu", "0"], "--mfu"),
        (["--mfu", "1.5"], "--mfu"),
        (["--gpu", "a100"], "--gpu"),
        (["--tp", "1"], "--tp"),  # Llama-3.3-70B in FP8 needs 2 x H100
        (["--weight-precision", "fp3"], "--weight-precision"),
        (["--dram-gbps", "0"], "--dram-gbps"),
        (["--net-gbps", "-1"], "--net-gbps"),
        (["--gpu-price", "-2"], "--gpu-price"),
        (["--cache-threshold", "2", "--nodes", "2", "--router", "sglang"], "--cache-threshold"),
        (["--nodes", "2", "--router", "prefix"], "--router"),
        (["--nodes", "2", "--router", "sglang", "--hbm", "1GB", "--dram", "8GB"], "--router"),
        (["--nodes", "auto", "--slo-ttft", "0"], "--slo-ttft"),
        (["--max-rate", "--slo-ttft", "-1"], "--slo-ttft"),
        (["--max-rate", "--decode", "--decode-batch", "0"], "--decode-batch"),
        (["--max-rate", "--decode", "--disaggregate", "1.5"], "--disaggregate"),
    ],
)
def test_bad_flag_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], where: str
) -> None:
    assert main(["sim", str(_trace(tmp_path)), "--no-progress", *flags]) == 2
    cap = capsys.readouterr()
    assert cap.err.startswith(f"prefixlock: error: {where}: ") and cap.err.count("\n") == 1
    assert "Traceback" not in cap.err
    assert cap.out == ""  # refused before the replay printed anything


def test_output_that_is_a_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", str(_trace(tmp_path)), "--json", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_matrix_checks_its_json_path_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "matrix", "--json", "/nonexistent-dir/m.json"]) == 2
    assert capsys.readouterr().err.startswith("prefixlock: error: --json: ")


def test_synthetic_negative_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "synthetic", "--seed", "-3"]) == 2
    assert "--seed" in capsys.readouterr().err
    with pytest.raises(UserError, match="seed"):
        generate(Workload(seed=-1))


def test_library_calls_refuse_the_same_values(tmp_path: Path, synthetic: Trace) -> None:
    with pytest.raises(UserError, match="block-size"):
        read_trace(_trace(tmp_path), block_size=0)
    for cfg in (SimConfig(seed=-1), SimConfig(load_threshold=-0.5)):
        with pytest.raises(UserError):
            simulate(synthetic.head(20), cfg)
    with pytest.raises(UserError, match="--jobs"):
        run_sweep(synthetic.head(20), [SimConfig(), SimConfig(capacity=10)], jobs=0)
    for text in ("nan", "inf", "-1", "-2GB"):
        with pytest.raises(UserError, match="not a size"):
            models.parse_bytes(text, "--capacity-bytes")
    assert models.parse_bytes("2e9", "x") == 2e9
