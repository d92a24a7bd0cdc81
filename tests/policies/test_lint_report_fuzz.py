"""`prefixlock lint --report` over mutated traces (tests/helpers/fuzz.py, seeded): every one ends
in a report or one-line errors naming the line, never a traceback. A quick count here; the
reliability benchmark runs 1,000."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import run_cli
from tests.helpers.fuzz import mutations

CORPUS = Path(__file__).parent / "corpus" / "positive" / "traces"
QUICK = 60


def crashes(folder: Path, count: int, seed: int = 0) -> list[str]:
    """The mutations of the corpus traces that ended in a traceback (or exit code other than
    0, 1 and 2), each named by its seed and mutation."""
    seeds = sorted(CORPUS.glob("*.jsonl"))
    bad: list[str] = []
    for i, how, data in mutations(b"".join(p.read_bytes() for p in seeds[:3]), count, seed):
        trace = folder / f"m{i}.jsonl"
        trace.write_bytes(data)
        try:
            ran = run_cli("lint", "--report", str(trace), cwd=folder)
        except BaseException as exc:  # an exception out of main() is a user's traceback
            if isinstance(exc, KeyboardInterrupt):
                raise
            bad.append(f"#{i} {how}: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        finally:
            trace.unlink()
        if "Traceback" in ran.stderr or ran.returncode not in (0, 1, 2):
            bad.append(f"#{i} {how}: exit {ran.returncode}: {ran.stderr[-300:]}")
    return bad


def test_mutated_traces_never_end_in_a_traceback(tmp_path: Path) -> None:
    bad = crashes(tmp_path, QUICK, seed=1)
    assert bad == [], f"{len(bad)} of {QUICK}: {bad[:3]}"


def test_a_number_out_of_range_is_one_line_naming_the_line(tmp_path: Path) -> None:
    good = sorted(CORPUS.glob("*.jsonl"))[0].read_bytes().splitlines()
    bad = good[0].replace(b'"max_tokens":', b'"max_tokens": 1e999, "x":', 1)
    assert bad != good[0]
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"\n".join([bad, *good[1:]]) + b"\n")
    ran = run_cli("lint", "--report", str(trace), cwd=tmp_path)
    assert "Traceback" not in ran.stderr and ran.returncode in (0, 1, 2)
    assert "out of range" in ran.stdout + ran.stderr
