"""User mistakes end in one line and exit 2 with nothing written; bad trace lines are findings
with their line, and the rest of the trace is still checked.

Covers what a user can get wrong on the command line (an unknown model or provider, an
unwritable output or baseline, a baseline that cannot be read with --fix) and trace lines that
are valid JSON but not a request (a number where the message list belongs, NaN, half a
surrogate pair), for both `lint` and `lint --report`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.cli.main import main
from prefixlock.policies.report import build_report
from prefixlock.policies.tracecheck import check_trace
from tests.policies.lint_tracegen import anthropic_bodies, write_trace

PRICES = PriceTable.builtin()
SET_JOIN = 'SKILLS = {"a", "b"}\nsystem_prompt = "Skills: " + ", ".join(SKILLS)\n'


@pytest.fixture()
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SET_JOIN)
    return tmp_path


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("prefixlock: error: ") and "\n" not in err, err
    assert "Traceback" not in captured.err
    return err


@pytest.mark.parametrize(
    "args, names",
    [
        (["--model", "claude-sonet-4-6"], ["--model", "'claude-sonet-4-6'", "--prices"]),
        (["--output", "missing-dir/out.txt"], ["missing-dir/out.txt", "cannot write"]),
        (["--write-baseline", "missing-dir/b.json"], ["missing-dir/b.json", "cannot write"]),
    ],
)
def test_usage_errors_are_one_line_exit_2(
    proj: Path, capsys: pytest.CaptureFixture[str], args: list[str], names: list[str]
) -> None:
    assert main(["lint", "a.py", *args]) == 2
    err = one_error_line(capsys)
    for name in names:
        assert name in err
    assert not (proj / "missing-dir").exists()


def test_unknown_provider_is_a_usage_error(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "a.py", "--provider", "azure"]) == 2
    assert "--provider: unknown provider 'azure'" in one_error_line(capsys)
    assert main(["lint", "--report", "a.py", "--provider", "azure"]) == 2
    assert "--provider" in one_error_line(capsys)
    assert main(["lint", "a.py", "--provider", "anthropic"]) == 1


@pytest.mark.parametrize(
    "key, value, names",
    [
        ("model", '"claude-sonet-4-6"', ["[tool.prefixlock.lint].model", "'claude-sonet-4-6'"]),
        ("provider", '"azure"', ["[tool.prefixlock.lint].provider", "'azure'"]),
    ],
)
def test_config_model_and_provider_are_checked(
    proj: Path, capsys: pytest.CaptureFixture[str], key: str, value: str, names: list[str]
) -> None:
    (proj / "pyproject.toml").write_text(f"[tool.prefixlock.lint]\n{key} = {value}\n")
    assert main(["lint", "a.py"]) == 2
    err = one_error_line(capsys)
    assert "pyproject.toml" in err
    for name in names:
        assert name in err


def test_known_model_and_alias_are_accepted(proj: Path) -> None:
    assert main(["lint", "a.py", "--model", "sonnet"]) == 1
    assert main(["lint", "a.py", "--model", "claude-haiku-4-5"]) == 1


def test_fix_writes_nothing_when_the_baseline_is_bad(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (proj / "base.json").write_text("{not json")
    assert main(["lint", "a.py", "--fix", "--baseline", "base.json"]) == 2
    assert "base.json" in one_error_line(capsys)
    assert main(["lint", "a.py", "--fix", "--baseline", "nope.json"]) == 2
    assert (proj / "a.py").read_text() == SET_JOIN  # no fix was written
    # Adopting the linter: writing a baseline where none exists yet works.
    assert main(["lint", "a.py", "--baseline", "new.json", "--write-baseline", "new.json"]) == 0
    assert main(["lint", "a.py", "--baseline", "new.json"]) == 0


# --- trace lines that are JSON but not a request ----------------------------------------------

BAD_BODIES: list[tuple[str, dict[str, Any], str]] = [
    ("messages a number", {"messages": -1.5}, "messages: expected a list of objects"),
    ("tools true", {"tools": True}, "tools: expected a list of objects"),
    ("tools strings", {"tools": ["grep"]}, "tools: expected a list of objects"),
    ("a message that is a string", {"messages": ["hi"]}, "messages: expected a list"),
    ("role a number", {"messages": [{"role": 3, "content": "hi"}]}, "messages[0].role"),
    ("role not ASCII", {"messages": [{"role": "usér", "content": "hi"}]}, "messages[0].role"),
    ("system a number", {"system": 7}, "system: expected a string or a list"),
    ("system of strings", {"system": ["a"]}, "system: expected a string or a list"),
    ("input a number", {"input": 3, "messages": None}, "input: expected a string or a list"),
    ("model a list", {"model": ["claude"]}, "model: expected a string"),
]


def _trace_with(tmp_path: Path, patch: dict[str, Any], raw: bool) -> Path:
    """Three good requests of one session with the middle one's body patched."""
    bodies = anthropic_bodies(3)
    path = write_trace(tmp_path / "t.jsonl", bodies)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for rec in lines:
        rec["body"]["model"] = "claude-sonnet-4-6"
    lines[1]["body"].update(patch)
    if raw:  # raw request bodies, one per line
        lines = [rec["body"] for rec in lines]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("raw", [False, True], ids=["export", "raw"])
@pytest.mark.parametrize("name, patch, message", BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
def test_misshapen_request_is_a_finding_on_its_line(
    tmp_path: Path, name: str, patch: dict[str, Any], message: str, raw: bool
) -> None:
    path = _trace_with(tmp_path, patch, raw)
    found = check_trace(str(path), PRICES)
    (bad,) = [f for f in found if f.code == "PL904"]
    assert bad.line == 2 and message in bad.message, bad
    report = build_report(str(path), PRICES)
    assert [n for n, _ in report.bad_lines] == [2]
    assert sum(s.requests for s in report.sessions) == 2  # lines 1 and 3 are still read


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"model": "claude-sonnet-4-6", "system": NaN, "messages": []}', "NaN"),
        ('{"model": "claude-sonnet-4-6", "system": "\\ud800", "messages": []}', "surrogate"),
    ],
)
def test_non_json_values_are_a_finding_on_their_line(
    tmp_path: Path, text: str, message: str
) -> None:
    good = json.dumps(anthropic_bodies(1)[0])
    path = tmp_path / "t.jsonl"
    path.write_text(f"{good}\n{text}\n{good}\n")
    found = check_trace(str(path), PRICES)
    (bad,) = [f for f in found if f.code == "PL904"]
    assert bad.line == 2 and message in bad.message
    assert [n for n, _ in build_report(str(path), PRICES).bad_lines] == [2]


def test_usage_counter_that_is_not_a_number(tmp_path: Path) -> None:
    path = _trace_with(tmp_path, {}, raw=False)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    lines[1]["usage"] = {"cache_read": "x"}
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (bad,) = [f for f in check_trace(str(path), PRICES) if f.code == "PL904"]
    assert bad.line == 2 and "usage.cache_read: expected a whole number" in bad.message
    assert [n for n, _ in build_report(str(path), PRICES).bad_lines] == [2]


def test_cli_on_a_misshapen_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace_with(tmp_path, {"messages": 3}, raw=False)
    assert main(["lint", str(path), "--no-source"]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2:1: PL904" in out and "body.messages: expected a list of objects" in out
    assert main(["lint", "--report", str(path)]) == 0
    assert f"{path}:2: body.messages" in capsys.readouterr().out


def test_json_error_names_the_column(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"model": "claude-sonnet-4-6", "system": "cut')
    (bad,) = check_trace(str(path), PRICES)
    assert bad.code == "PL904" and "truncated" in bad.message
    assert "Unterminated string starting at column 42" in bad.message


def test_report_reads_ambiguous_raw_bodies_with_the_provider_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A proxy model id and plain messages say nothing about the wire format: --provider
    decides, as in lint. Read as Anthropic, a session without cache_control loses what a
    breakpoint would have cached; read as OpenAI Chat it is cached automatically."""
    messages: list[dict[str, str]] = []
    lines = []
    for t in range(3):
        messages.append({"role": "user", "content": f"Question {t}: " + "why? " * 1500})
        lines.append(json.dumps({"model": "my-proxy-model", "messages": messages}))
        messages.append({"role": "assistant", "content": f"Answer {t}."})
    path = tmp_path / "raw.jsonl"
    path.write_text("\n".join(lines) + "\n")

    def causes(*extra: str) -> list[str]:
        assert main(["lint", "--report", str(path), "--format", "json", *extra]) == 0
        (rep,) = json.loads(capsys.readouterr().out)
        assert rep["sessions"][0]["requests"] == 3
        return [b["cause"] for b in rep["sessions"][0]["breaks"]]

    assert causes() == []
    assert causes("--provider", "anthropic") == ["no breakpoint", "no breakpoint"]


def _price_file(path: Path, model: str) -> Path:
    data = json.loads((Path(__file__).parents[2] / "harness/data/prices.json").read_text())
    entry = next(m for m in data["models"] if m["model"] == "claude-sonnet-4-6")
    path.write_text(json.dumps({"version": 1, "models": [dict(entry, model=model)]}))
    return path


def test_each_run_uses_its_own_price_file(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A model priced only in --prices gets its minimum-length check, also when an earlier
    run in the same process used another price file."""
    (proj / "r.py").write_text(
        "def ask(client, q):\n    return client.messages.create(\n"
        "        model='claude-house-2', max_tokens=5, system='Be brief.',\n"
        "        cache_control={'type': 'ephemeral'},\n"
        "        messages=[{'role': 'user', 'content': q}])\n"
    )
    one = _price_file(proj / "one.json", "claude-house-1")
    two = _price_file(proj / "two.json", "claude-house-2")
    assert main(["lint", "r.py", "--prices", str(one)]) == 0  # claude-house-2 is unpriced
    assert main(["lint", "r.py", "--prices", str(two)]) == 1
    assert "PL405" in capsys.readouterr().out
    assert main(["lint", "r.py", "--model", "claude-house-2"]) == 2  # not built in
    assert main(["lint", "r.py", "--model", "claude-house-2", "--prices", str(two)]) == 1


def test_malformed_sidecar_line_is_reported_not_ignored(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "x"}],
        "system": [
            {"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}} for _ in range(5)
        ],
    }
    (proj / "req.json").write_text(json.dumps(body))
    (proj / "req.json.prefixlock-ignore").write_text(
        "# fixtures for the API's error\nignore PL401 because it is a fixture\n"
    )
    assert main(["lint", "req.json", "--select", "PL401,PL905", "--no-source"]) == 1
    out = capsys.readouterr().out
    assert "req.json.prefixlock-ignore:2:1: PL905" in out and "CODE[@LINE] reason" in out
    assert "req.json:1:1: PL401" in out  # nothing was suppressed
