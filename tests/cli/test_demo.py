"""`prefixlock demo`: runs offline and fast, and prefixlock beats the naive client."""

from __future__ import annotations

import contextlib
import io
import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from prefixlock.billing.usage import Usage
from prefixlock.cli import demo
from prefixlock.cli.demo import DemoResult, render, run_demo
from prefixlock.cli.main import main
from prefixlock.emulator import BUILTIN_PROMPTS

DemoOut = tuple[dict[str, Any], Path]  # the figures printed by `demo --json`, the trace folder


@pytest.fixture(scope="module")
def demo_result() -> DemoResult:
    return run_demo()  # the whole demo once for this module (about 13 s on 2 cores)


@pytest.fixture(scope="module")
def demo_out(demo_result: DemoResult, tmp_path_factory: pytest.TempPathFactory) -> DemoOut:
    """`prefixlock demo --json --trace-dir DIR` on the module's demo run."""
    trace_dir = tmp_path_factory.mktemp("traces")
    buf = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(buf):
        mp.setattr(demo, "run_demo", lambda **_: demo_result)
        assert main(["demo", "--json", "--trace-dir", str(trace_dir)]) == 0
    return json.loads(buf.getvalue()), trace_dir


def test_session_is_realistic_size(demo_out: DemoOut) -> None:
    figures, _ = demo_out
    # 30+ user turns (one user message through its tool loop to the final answer each).
    assert figures["session"]["user_turns"] == len(BUILTIN_PROMPTS) >= 30
    assert figures["session"]["requests"] >= 3 * figures["session"]["user_turns"]
    assert figures["session"]["prefix_tokens"] >= 20_000
    # The switch happens mid-session, with turns on both models.
    assert 10 < figures["session"]["switch_before_turn"] < figures["session"]["user_turns"] - 10


def test_prefixlock_beats_naive_on_both_servers(demo_out: DemoOut) -> None:
    cells = demo_out[0]["cells"]
    for server in ("cache-aware", "crude"):
        ours, theirs = cells["prefixlock"][server], cells["naive"][server]
        assert Decimal(ours["cost"]) < Decimal(theirs["cost"])
        assert ours["hit_rate"] > theirs["hit_rate"]
        assert ours["requests"] == theirs["requests"]  # same work on both sides
    # The crude server costs even a careful client something.
    assert cells["prefixlock"]["crude"]["hit_rate"] < cells["prefixlock"]["cache-aware"]["hit_rate"]
    # The 32-turn session measures 7.5x; the README and the closing note quote that margin.
    assert Decimal(demo_out[0]["margin"]["times_cheaper"]) > 5
    assert cells["prefixlock"]["cache-aware"]["hit_rate"] > 0.9
    assert cells["naive"]["cache-aware"]["hit_rate"] == cells["naive"]["crude"]["hit_rate"] == 0


def test_switch_warning_is_priced(demo_out: DemoOut) -> None:
    warning = demo_out[0]["switch_warning"]
    assert warning["old_model"] == "claude-sonnet-4-6"
    assert warning["new_model"] == "claude-haiku-4-5"
    assert warning["tokens_rebilled"] > 20_000 and Decimal(warning["dollars"]) > 0
    # The alternative the design asks for, priced: the work in a subagent on the new model.
    summary = " ".join(warning["summary"].split())
    assert "run the work in a subagent on claude-haiku-4-5: $" in summary
    assert "the subagent is cheaper by $" in summary and "switching this session" in summary


def test_turn_by_turn_names_the_causes(demo_out: DemoOut) -> None:
    turns = demo_out[0]["turns"]
    assert len(turns) == len(BUILTIN_PROMPTS) >= 30
    assert all(Decimal(t["naive"]) > Decimal(t["prefixlock"]) for t in turns)
    assert any("model switch" in t["causes"] for t in turns)
    assert all("time in system" in t["causes"] for t in turns)


def test_traces_are_jsonl_in_the_trace_format(demo_out: DemoOut) -> None:
    _, trace_dir = demo_out
    lines = (trace_dir / "naive-cache-aware.jsonl").read_text().splitlines()
    assert len(lines) == demo_out[0]["session"]["requests"]
    first = json.loads(lines[0])
    assert set(first) == {
        "session_id",
        "seq",
        "time",
        "provider",
        "api",
        "model",
        "path",
        "body",
        "usage",
        "raw_usage",
        "cost",
        "cache_key",
    }
    assert first["body"]["system"].startswith("Current time:")
    Usage.from_dict(first["usage"])
    assert sorted(p.name for p in trace_dir.iterdir()) == [
        "naive-cache-aware.jsonl",
        "naive-crude.jsonl",
        "prefixlock-cache-aware.jsonl",
        "prefixlock-crude.jsonl",
    ]


def test_human_output_has_table_warning_and_margin(demo_result: DemoResult) -> None:
    console = Console(width=140, record=True)
    render(demo_result, console)
    text = console.export_text()
    ours = demo_result.run("prefixlock", "cache-aware")
    first = text.splitlines()[0]
    # The first line states the session's size truthfully.
    assert f"{len(demo_result.prompts)} user turns, {len(ours.requests)} requests" in first
    assert "cache-aware server" in text and "crude server" in text
    assert "Switch warning" in text and "x cheaper" in text


def test_openai_flavor_prefixlock_beats_naive() -> None:
    # Three user turns keep this fast; the full session runs above on the Anthropic flavor.
    result = run_demo(prompts=BUILTIN_PROMPTS[:3], provider="openai")
    ours, theirs = result.run("prefixlock", "cache-aware"), result.run("naive", "cache-aware")
    assert len(ours.requests) == len(theirs.requests) == 11
    assert ours.hit_rate > 0.8 and theirs.hit_rate < 0.05
    assert ours.cost < theirs.cost
    assert result.to_dict()["session"]["provider"] == "openai"
    assert all(r["cache_key"] for r in ours.trace)  # prefixlock sends a per-session key
    assert not any(r["cache_key"] for r in theirs.trace)
    # Three turns end before the switch: none happens, and the header does not claim one.
    assert result.switch is None and {r.model for r in theirs.requests} == {"gpt-5.4"}
    console = Console(width=200, record=True)
    render(result, console)
    first = console.export_text().splitlines()[0]
    assert "3 user turns, 11 requests" in first and "gpt-5.4 throughout (no model switch)" in first


def test_readme_quotes_the_current_figures(demo_result: DemoResult) -> None:
    """The README's demo block is this demo's output: the 2x2 table, the switch warning and the
    margin line, as `COLUMNS=100 prefixlock demo` prints them."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    if not readme.exists():  # an installed copy of the tests without the repository
        pytest.skip("no README.md next to the tests")
    quoted = {line.rstrip() for line in readme.read_text(encoding="utf-8").splitlines()}
    console = Console(width=100, record=True)
    render(demo_result, console)
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    wanted = [lines[0], lines[1]]  # the header: turns, requests, prefix size, models
    wanted += [line for line in lines if line.startswith(("│ prefixlock │", "│ naive      │"))]
    wanted += [line for line in lines if line.startswith("On the cache-aware")]
    # The whole switch warning, alternatives included (it runs until the next table's title).
    start = next(i for i, line in enumerate(lines) if line.startswith("Switch warning"))
    end = next(i for i, line in enumerate(lines) if "Where the naive client lost money" in line)
    wanted += lines[start:end]
    assert len(wanted) >= 7
    missing = [line for line in wanted if line not in quoted]
    assert not missing, f"README.md's demo block is out of date: {missing}"


def test_traces_get_the_usual_file_permissions(demo_out: DemoOut) -> None:
    _, trace_dir = demo_out
    umask = os.umask(0)
    os.umask(umask)
    files = sorted(trace_dir.iterdir())
    assert [p.name for p in files if p.name.startswith(".")] == []  # no temporary file left
    assert {p.stat().st_mode & 0o777 for p in files} == {0o666 & ~umask}


def _demo_must_not_run(**_: object) -> DemoResult:
    raise AssertionError("the demo ran before --trace-dir was checked")


@pytest.mark.parametrize("where", ["is-a-file", "under-a-file"])
def test_unusable_trace_dir_is_one_line_before_the_demo_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("keep me")
    target = blocker if where == "is-a-file" else blocker / "traces"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(demo, "run_demo", _demo_must_not_run)
        assert main(["demo", "--trace-dir", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"prefixlock: error: {target}: cannot write traces there: ")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert blocker.read_text() == "keep me"
