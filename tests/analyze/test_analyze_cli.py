"""`prefixlock analyze` from the command line: the table with its headline, JSON with its
schema version, CSV, --show-text, the user errors (one line, exit 2, nothing written), and the
workload export replayed by `prefixlock sim`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from prefixlock.sim.tracefile import read_trace
from tests.analyze.logkit import CCL, CCV, DATA, cc_assistant, cc_user, write
from tests.helpers.cli import run_cli


def test_table_names_sessions_and_ends_with_the_headline() -> None:
    ran = run_cli("analyze", str(DATA))
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.strip().splitlines()
    assert lines[-1].startswith(
        "4 sessions, $0.3561 (list price estimate), 86.4% of input from cache"
    )
    assert "5c0375b4-57a" in ran.stdout and "N/A" in ran.stdout  # the fixture with no cache data
    assert "usage lines merged" in ran.stdout


def test_by_agent_and_turns_tables() -> None:
    ran = run_cli("analyze", str(CCV), "--by", "agent")
    assert ran.returncode == 0 and "subagent" in ran.stdout and "agent:6340ddef" in ran.stdout
    ran = run_cli("analyze", str(CCL), "--session", "s1")
    assert ran.returncode == 0 and "Turns" in ran.stdout


def test_json_has_a_schema_version_and_csv_one_row_per_request(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert run_cli("analyze", str(DATA), "--format", "json", "-o", str(out)).returncode == 0
    rep = json.loads(out.read_text())
    assert rep["schema_version"] == 1
    assert set(rep) >= {"sessions", "turns", "requests", "breaks", "events", "notes", "totals"}
    ran = run_cli("analyze", str(DATA), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(ran.stdout)))
    assert len(rows) == rep["totals"]["requests"] == 30
    assert {r["schema_version"] for r in rows} == {"1"}


def test_jsonl_is_one_record_a_line() -> None:
    ran = run_cli("analyze", str(CCV), "--format", "jsonl")
    records = [json.loads(line) for line in ran.stdout.splitlines()]
    assert records[0]["record"] == "report" and records[0]["schema_version"] == 1
    kinds = [r["record"] for r in records[1:]]
    assert kinds.count("request") == 20 and kinds.count("session") == 1
    assert kinds.count("break") == 2 and kinds.count("agent") == 3


def test_show_text_is_the_only_way_to_see_prompts() -> None:
    hidden = run_cli("analyze", str(CCL), "--session", "s1")
    assert "Second attempt" not in hidden.stdout
    shown = run_cli("analyze", str(CCL), "--session", "s1", "--show-text")
    assert "Second attempt" in shown.stdout


def _one_line_error(ran_args: list[str], where: str) -> None:
    ran = run_cli("analyze", *ran_args)
    assert ran.returncode == 2, ran
    assert ran.stdout == "" and len(ran.stderr.strip().splitlines()) == 1
    assert where in ran.stderr and "Traceback" not in ran.stderr


def test_user_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    _one_line_error([str(tmp_path / "missing")], "missing: no such file or folder")
    _one_line_error([str(CCV), "--since", "yesterday"], "--since")
    _one_line_error([str(CCV), "--session", "nope"], "--session")
    _one_line_error([str(CCV), "-o", str(tmp_path)], "is a directory")
    _one_line_error([str(CCV), "--prices", str(tmp_path / "no.json")], "no.json")
    _one_line_error([str(CCV), "--html", str(tmp_path / "no" / "dir" / "x.html")], "cannot write")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing half-written


def test_exported_workload_replays_in_the_simulator(tmp_path: Path) -> None:
    # A 7-minute idle past a 5-minute write: the provider dropped 30,000 cached tokens.
    log = write(tmp_path / "logs" / "ttl.jsonl", [
        cc_user(1, 0), cc_assistant(1, 5, w5=30000),
        cc_user(2, 425), cc_assistant(2, 425, w5=30500),
        cc_user(3, 430), cc_assistant(3, 430, read=30500, w5=600),
    ])  # fmt: skip
    trace = tmp_path / "workload.jsonl"
    ran = run_cli("analyze", str(log), "--export-trace", str(trace))
    assert ran.returncode == 0 and "wrote 3 requests" in ran.stderr
    t = read_trace(trace)
    assert t.requests == 3 and t.block_size == 512
    assert [int(n) for n in t.input_len] == [30010, 30510, 31110]
    ids = [t.ids[t.starts[i] : t.starts[i + 1]].tolist() for i in range(3)]
    # The resent prefix shares its blocks (the content was the same; only the TTL lost it).
    assert ids[1][:58] == ids[0][:58] and ids[2][:59] == ids[1][:59]
    out = tmp_path / "sim.json"
    ran = run_cli("sim", str(trace), "--json", str(out))
    assert ran.returncode == 0, ran.stderr
    (res,) = json.loads(out.read_text())["results"]
    # A server that kept the prefix would have read what the provider re-billed.
    assert res["cached_tokens"] >= 58 * 512 + 59 * 512
