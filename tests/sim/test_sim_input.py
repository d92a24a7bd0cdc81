"""Bad input ends in one clear message (file and line, exit code 2), or is skipped and counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.errors import UserError
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace, TraceError
from prefixlock.sim.tracefile import read_trace


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _rec(ts: int, ids: list[int], n: int = 1000) -> str:
    return json.dumps({"timestamp": ts, "input_length": n, "output_length": 5, "hash_ids": ids})


def test_malformed_line_stops_with_its_number(tmp_path: Path) -> None:
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1, 2]), "{not json", _rec(5, [1, 3])])
    with pytest.raises(TraceError) as err:
        read_trace(f)
    assert f"{f}:2" in str(err.value) and "invalid JSON" in str(err.value)


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ('{"timestamp": 0, "input_length": 10, "hash_ids": []}', "hash_ids"),
        ('{"timestamp": 0, "input_length": -1, "hash_ids": [1]}', "input_length"),
        ('{"timestamp": "x", "input_length": 5, "hash_ids": [1]}', "timestamp"),
        ('{"timestamp": 0, "input_length": 5, "hash_ids": [1, null]}', "hash_ids"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_each_kind_of_bad_record_is_named(tmp_path: Path, line: str, what: str) -> None:
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1]), line])
    with pytest.raises(TraceError, match=what) as err:
        read_trace(f)
    assert err.value.where == f"{f}:2"


def test_skip_bad_skips_and_counts(tmp_path: Path) -> None:
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1, 2]), "garbage", _rec(5, [1, 3]), '{"x": 1}'])
    trace = read_trace(f, skip_bad=True)
    assert trace.requests == 2 and trace.skipped == 2


def test_cli_prints_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1, 2]), "{broken"])
    assert main(["sim", str(f), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{f}:2" in err[0] and "--skip-bad" in err[0]
    assert main(["sim", str(f), "--skip-bad", "--no-progress", "--warmup", "0"]) == 0
    assert "1 bad lines skipped" in capsys.readouterr().out


def test_empty_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path / "t.jsonl", ["", "  "])
    assert main(["sim", str(f)]) == 2
    assert "no requests" in capsys.readouterr().err


def test_decreasing_timestamps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1]), _rec(5000, [1, 2]), _rec(2000, [1, 3])])
    assert main(["sim", str(f)]) == 2
    err = capsys.readouterr().err
    assert "timestamps decrease at request 3" in err


@pytest.mark.parametrize(
    "flag", [["--capacity", "0"], ["--capacity-bytes", "1KB"], ["--capacity", "x"]]
)
def test_capacity_zero_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1]), _rec(1, [1, 2])])
    assert main(["sim", str(f), *flag]) == 2
    err = capsys.readouterr().err
    assert "--capacity" in err and "Traceback" not in err


def test_missing_file_and_unknown_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    f = _write(tmp_path / "t.jsonl", [_rec(0, [1])])
    for args in (
        ["--policy", "mru"],
        ["--router", "magic", "--nodes", "2"],
        ["--model", "gpt-9"],
        ["--ttl", "-1"],
    ):
        assert main(["sim", str(f), "--capacity", "4", *args]) == 2
        assert "prefixlock: error:" in capsys.readouterr().err


def test_simulate_refuses_zero_capacity_directly(conversation: Trace) -> None:
    with pytest.raises(UserError, match="at least one block"):
        simulate(conversation.head(10), SimConfig(capacity=0))


def test_string_hash_ids_and_gzip(tmp_path: Path) -> None:
    import gzip

    f = tmp_path / "t.jsonl.gz"
    with gzip.open(f, "wt") as fh:
        fh.write(json.dumps({"timestamp": 0, "input_length": 600, "hash_ids": ["a", "b"]}) + "\n")
        fh.write(json.dumps({"timestamp": 1, "input_length": 700, "hash_ids": ["a", "c"]}) + "\n")
    trace = read_trace(f)
    assert trace.requests == 2 and trace.tokens.tolist() == [512, 88, 512, 188]
    assert trace.ids[0] == trace.ids[2] != trace.ids[3]
