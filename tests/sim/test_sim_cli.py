"""`prefixlock sim`: the table, --json, --plot, sweeps (processes and Ray) and the matrix."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.sweep import run_sweep
from prefixlock.sim.trace import Trace

DATA = Path(__file__).parent / "data"
SLICES = {
    "conversation": DATA / "conversation_head3000.jsonl.gz",
    "synthetic": DATA / "synthetic_head1500.jsonl.gz",
}


def test_table_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, png = tmp_path / "r.json", tmp_path / "curve.png"
    rc = main(
        [
            "sim",
            str(SLICES["synthetic"]),
            "--limit",
            "600",
            "--capacity",
            "2000,8000",
            "--policy",
            "lru,fifo",
            "--executor",
            "serial",
            "--curve",
            "--json",
            str(out),
            "--plot",
            str(png),
            "--no-progress",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert (
        "lru cap=2000" in text
        and "fifo cap=8000" in text
        and "LRU hit rate at every capacity" in text
    )
    data = json.loads(out.read_text())
    assert [r["config"]["policy"] for r in data["results"]] == ["lru", "fifo", "lru", "fifo"]
    first = data["results"][0]
    for key in (
        "hit_rate_tokens",
        "hit_rate_blocks",
        "prefill_gpu_s_saved",
        "ttft_p99_s",
        "load_max_mean_requests",
        "load_max_mean_tokens",
        "dollars",
    ):
        assert key in first
    curve = data["lru_curve"]
    assert curve["capacities"][0] == 1 and len(curve["capacities"]) == len(curve["hit_rate_tokens"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp_path.glob(".*tmp"))  # nothing half-written left behind


def test_bytes_tiers_and_cluster_flags(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "sim",
            str(SLICES["conversation"]),
            "--limit",
            "500",
            "--hbm",
            "8GB",
            "--dram",
            "64GB",
            "--ssd",
            "1TB",
            "--model",
            "deepseek-v3",
            "--precision",
            "bf16",
            "--ttl",
            "600",
            "--no-progress",
        ]
    )
    assert rc == 0
    assert "lru cap=" in capsys.readouterr().out
    rc = main(
        [
            "sim",
            str(SLICES["conversation"]),
            "--limit",
            "300",
            "--capacity-bytes",
            "40GB",
            "--nodes",
            "4",
            "--router",
            "ttft",
            "--no-progress",
        ]
    )
    assert rc == 0
    assert "4xttft" in capsys.readouterr().out


def test_process_sweep_equals_serial(synthetic: Trace) -> None:
    trace = synthetic.head(400)
    configs = [SimConfig(capacity=c, policy=p) for c in (500, 3000) for p in ("lru", "fifo", "lfu")]
    done: list[int] = []
    parallel = run_sweep(trace, configs, executor="process", jobs=2, on_done=done.append)
    serial = run_sweep(trace, configs, executor="serial")
    assert [r.to_dict() for r in parallel] == [r.to_dict() for r in serial]
    assert sorted(done) == list(range(1, len(configs) + 1))


@pytest.mark.slow  # starts a Ray cluster
def test_ray_sweep_equals_serial(synthetic: Trace) -> None:
    ray = pytest.importorskip("ray")
    trace = synthetic.head(200)
    configs = [SimConfig(capacity=c) for c in (300, 1200)]
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        got = run_sweep(trace, configs, executor="ray")
    finally:
        ray.shutdown()
    assert [r.to_dict() for r in got] == [
        r.to_dict() for r in run_sweep(trace, configs, executor="serial")
    ]


@pytest.mark.slow  # starts a Ray cluster
def test_ray_spreads_one_configuration_by_node(synthetic: Trace) -> None:
    ray = pytest.importorskip("ray")
    trace = synthetic.head(300)
    configs = [SimConfig(capacity=400, nodes=4, router="round-robin", price=None)]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        got = run_sweep(trace, configs, executor="ray")
    finally:
        ray.shutdown()
    assert got[0].to_dict() == simulate(trace, configs[0]).to_dict()


def test_node_streams_served_in_other_processes_equal_serial(synthetic: Trace) -> None:
    # what the Ray sweep does with one configuration, on a local process pool: after routing,
    # each node's stream is served elsewhere and the results merged
    trace = synthetic.head(400)
    for cfg in (
        SimConfig(capacity=300, nodes=4, router="round-robin", price=None),
        SimConfig(capacity=300, nodes=3, router="random", policy="fifo", price=None, seed=2),
        SimConfig(nodes=2, router="round-robin", ttl=60.0, price=None),
    ):
        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
            spread = simulate(trace, cfg, node_map=lambda f, jobs: list(pool.map(f, jobs)))
        assert spread.to_dict() == simulate(trace, cfg).to_dict()


def test_matrix_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.json"
    assert main(["sim", "matrix", "--sessions", "12", "--turns", "6", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    for style in ("stable", "timestamp", "shuffled-tools", "model-switch"):
        assert style in text
    data = json.loads(out.read_text())
    assert data["mode"] == "matrix"
    assert len(data["results"]) == 8 and "stable/crude" in data["relative_cost"]


def test_synthetic_workload_command(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "sim",
        "synthetic",
        "--sessions",
        "10",
        "--turns",
        "5",
        "--capacity",
        "4000",
        "--no-progress",
    ]
    assert main([*args, "--style", "stable"]) == 0
    stable = capsys.readouterr().out
    assert main([*args, "--style", "shuffled-tools"]) == 0
    shuffled = capsys.readouterr().out
    assert "synthetic:stable" in stable and "synthetic:shuffled-tools" in shuffled
    assert main([*args, "--style", "chaotic"]) == 2
    assert "--style" in capsys.readouterr().err


def test_price_table_override_and_unknown_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {"models": [{"model": "house-model", "input": "1", "output": "2", "cache_read": "0.1"}]}
        )
    )
    trace = str(SLICES["conversation"])
    out = tmp_path / "r.json"
    base = ["sim", trace, "--limit", "200", "--capacity", "3000", "--no-progress"]
    assert main([*base, "--prices", str(prices), "--price", "house-model", "--json", str(out)]) == 0
    r = json.loads(out.read_text())["results"][0]
    want = ((r["input_tokens"] - r["cached_tokens"]) * 1 + r["cached_tokens"] * 0.1) / 1e6
    assert r["dollars"] > want  # plus output tokens at $2/M
    assert main([*base, "--price", "house-model"]) == 2  # not in the built-in table
    assert "house-model" in capsys.readouterr().err


def test_handoff_flag_adds_the_kv_trip_to_ttft(tmp_path: Path) -> None:
    # --handoff: the nodes prefill for decode nodes elsewhere; each TTFT adds the KV's trip
    # (Mooncake Fig. 14), never less than the 0.05 s of scheduling, and the prefill is unchanged
    base = ["sim", str(SLICES["conversation"]), "--limit", "400", "--nodes", "4"]
    base += ["--router", "round-robin", "--capacity", "2000", "--price", "none", "--no-progress"]
    plain, handed = tmp_path / "plain.json", tmp_path / "handed.json"
    assert main([*base, "--json", str(plain)]) == 0
    assert main([*base, "--handoff", "--json", str(handed)]) == 0
    a = json.loads(plain.read_text())["results"][0]
    b = json.loads(handed.read_text())["results"][0]
    assert b["config"]["handoff"] is True and a["config"]["handoff"] is False
    assert b["prefill_gpu_s"] == a["prefill_gpu_s"]
    assert b["ttft_mean_s"] - a["ttft_mean_s"] > 0.05
    assert b["ttft_p50_s"] > a["ttft_p50_s"]
