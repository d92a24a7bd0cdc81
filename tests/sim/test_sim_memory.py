"""A run that would not fit in memory is refused before it starts, with the flag that fixes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.errors import UserError
from prefixlock.sim.memory import check_fits, estimate_bytes

SLICE = Path(__file__).parent / "data" / "synthetic_head1500.jsonl.gz"


def test_estimate_grows_with_the_trace_and_the_router() -> None:
    small = estimate_bytes(1000, 10_000)
    assert estimate_bytes(2000, 20_000) > small
    assert estimate_bytes(1000, 10_000, aware_caches=16) > small
    # the compiled routers' caches count distinct blocks, not references
    assert estimate_bytes(10, 10_000, aware_caches=8, distinct=100) < estimate_bytes(
        10, 10_000, aware_caches=8
    )
    # 10M requests of 7.5 references each (the scale benchmark's shape) fit in 16 GB
    assert estimate_bytes(10_000_000, 75_000_000) < 16e9


def test_refusal_names_the_limit_that_fits() -> None:
    with pytest.raises(UserError, match=r"--limit [0-9,]+ \(about what fits\)") as info:
        check_fits(10_000_000, 240_000_000, 16e9)
    assert info.value.where == "--max-memory"
    check_fits(1000, 10_000, 16e9)


def test_cli_refuses_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    rc = main(["sim", str(SLICE), "--max-memory", "100MB", "--json", str(out), "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--max-memory" in err and "--limit" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()  # nothing half-written
    assert main(["sim", str(SLICE), "--max-memory", "lots"]) == 2
