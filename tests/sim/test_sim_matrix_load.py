"""The client x server matrix shows load balance beside every hit rate, and its good server
spreads the load (a router that sends everything to one node is not a good router)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.sim.matrix import SERVERS, run_matrix
from prefixlock.sim.synthetic import Workload


def test_every_cell_carries_its_load_balance() -> None:
    cells = run_matrix(Workload(sessions=40, turns=8, seed=1))
    nodes = {name: cfg.nodes for name, cfg in SERVERS.items()}
    for c in cells:
        assert 1.0 <= c.load_max_mean_requests <= nodes[c.server]
    good = [c for c in cells if c.server == "cache-aware"]
    # far from piling onto one node of eight (8.0), and still the best hit rate
    assert max(c.load_max_mean_requests for c in good) < 3.0
    assert max(cells, key=lambda c: c.hit_rate).server == "cache-aware"


def test_matrix_command_prints_and_writes_the_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.json"
    assert main(["sim", "matrix", "--sessions", "12", "--turns", "6", "--json", str(out)]) == 0
    assert "load max/mean" in capsys.readouterr().out
    cells = json.loads(out.read_text())["results"]
    assert all(c["load_max_mean_requests"] >= 1.0 for c in cells)
