"""`prefixlock sim --json` writes one versioned shape in every mode, valid against its schema;
degenerate traces are flagged, and the backend note says why numpy ran."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import numpy as np
import pytest

from prefixlock.cli.main import main
from prefixlock.sim.backend import AUTO_GPU_MIN_REFERENCES, auto_note
from prefixlock.sim.schema import SCHEMA, SCHEMA_ID
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace

DATA = Path(__file__).parent / "data"
SYNTHETIC = DATA / "synthetic_head1500.jsonl.gz"


def _valid(path: Path, mode: str) -> dict[str, object]:
    data = json.loads(path.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert data["schema"] == SCHEMA_ID and data["mode"] == mode
    assert set(data) == set(SCHEMA["required"])
    return dict(data)


def test_every_mode_writes_the_one_shape(tmp_path: Path) -> None:
    base = ["sim", str(SYNTHETIC), "--limit", "300", "--price", "none", "--no-progress"]
    replay = tmp_path / "replay.json"
    assert main([*base, "--capacity", "500", "--json", str(replay)]) == 0
    data = _valid(replay, "replay")
    assert data["lru_curve"] is not None and data["slo_ttft_s"] is None
    rate = tmp_path / "rate.json"
    argv = [*base, "--capacity", "500", "--max-rate", "--slo-ttft", "10", "--json", str(rate)]
    assert main(argv) == 0
    assert _valid(rate, "max-rate")["slo_ttft_s"] == 10.0
    matrix = tmp_path / "matrix.json"
    assert main(["sim", "matrix", "--sessions", "6", "--turns", "4", "--json", str(matrix)]) == 0
    assert _valid(matrix, "matrix")["trace"] is None


def test_schema_rejects_a_wrong_document() -> None:
    bad = {"schema": SCHEMA_ID, "mode": "replay", "results": []}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_all_equal_timestamps_warn(tmp_path: Path) -> None:
    with gzip.open(SYNTHETIC, "rt") as f:
        lines = f.read().splitlines()[:200]
    flat = tmp_path / "flat.jsonl"
    flat.write_text(
        "\n".join(json.dumps({**json.loads(x), "timestamp": 0}) for x in lines) + "\n", "utf-8"
    )
    out = tmp_path / "flat.json"
    assert main(["sim", str(flat), "--price", "none", "--no-progress", "--json", str(out)]) == 0
    data = json.loads(out.read_text("utf-8"))
    (result,) = data["results"]
    assert any("arrive at the same instant" in w for w in result["warnings"])
    assert data["warnings"] == result["warnings"]  # the run's warnings, once each
    # a trace with timing has no such warning
    n = 3
    t = Trace(
        np.arange(1, n + 1, dtype=np.int64),
        np.full(n, 16, np.int32),
        np.arange(n + 1, dtype=np.int64),
        np.arange(n, dtype=np.float64),
        np.full(n, 16, np.int64),
        np.ones(n, np.int64),
        np.full(n, -1, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        16,
    )
    assert not simulate(t, SimConfig(price=None)).warnings


def test_backend_note_is_honest() -> None:
    big = AUTO_GPU_MIN_REFERENCES * 9
    assert "below" in auto_note(1000, "numpy", gpu=True)
    note = auto_note(big, "numpy", gpu=False)
    assert "below" not in note and "no usable cupy" in note
    assert auto_note(big, "cupy", gpu=True).startswith("auto: cupy")
