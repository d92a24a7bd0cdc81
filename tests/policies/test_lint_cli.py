"""`prefixlock lint` as a user runs it: formats, exit codes, config, suppressions, baseline,
fixes and bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from prefixlock.cli.main import main
from prefixlock.policies.rules import RULES

CORPUS = Path(__file__).parent / "corpus"
SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text("utf-8"))

TIME_IN_SYSTEM = """import datetime


def build():
    now = datetime.datetime.now()
    system_prompt = f"It is {now}. Be brief."
    return system_prompt
"""


def lint(*args: str) -> int:
    return main(["lint", *args])


@pytest.fixture()
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(TIME_IN_SYSTEM)
    return tmp_path


def test_exit_codes(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint("agent.py") == 1
    out = capsys.readouterr().out
    assert "agent.py:5:11: PL101 [error]" in out
    assert "now = datetime.datetime.now()" in out  # the source line
    (proj / "clean.py").write_text("SYSTEM = 'Be brief.'\n")
    assert lint("clean.py") == 0
    assert lint("missing.py") == 2
    assert lint("agent.py", "--select", "PL999") == 2
    assert "unknown rule code" in capsys.readouterr().err


def test_list_rules_and_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert lint("--list-rules") == 0
    out = capsys.readouterr().out
    for code in RULES:
        assert code in out
    assert lint("--explain", "PL201") == 0
    doc = capsys.readouterr().out
    for section in (
        "## What it does",
        "## Why it matters",
        "Source: ",
        "## Example",
        "## Fix",
        "Fix safety: safe",
    ):
        assert section in doc
    # Sources name public documentation and the section of the repository's docs that records
    # it; never notes a user does not have, nor an internal tracker number.
    for r in RULES.values():
        assert not re.search(r"FACTS|DESIGN\.md|shared/|\bissues? \d", r.doc()), r.code
        assert re.search(r"docs/(providers|design)\.md#[a-z0-9-]+|policies/README\.md", r.source)
    assert "Anthropic's prompt caching docs (docs/providers.md#" in RULES["PL101"].doc()
    assert lint("--explain", "PL104") == 0
    doc = capsys.readouterr().out
    assert "Source: Field reports on agent clients (docs/providers.md#claude-code)" in doc
    assert "prefixlock's design (docs/design.md#transcript): volatile facts" in doc
    assert lint("--explain", "PL901") == 0
    assert "bad input is reported as a finding with its file and line" in capsys.readouterr().out
    assert lint("--explain", "PL000") == 2


def test_every_rule_doc_is_complete() -> None:
    for r in RULES.values():
        assert r.what and r.why and r.source and r.example and r.fix
        assert r.fix_safety in ("safe", "unsafe", "none")
        assert r.severity in ("error", "warning", "note")


def test_select_and_ignore(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint("agent.py", "--ignore", "PL1") == 0
    assert lint("agent.py", "--select", "PL2,PL3") == 0
    assert lint("agent.py", "--select", "PL101") == 1


def test_pyproject_config(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "pyproject.toml").write_text(
        '[tool.prefixlock.lint]\nignore = ["PL102"]\nmodel = "claude-sonnet-4-6"\n'
        '[tool.prefixlock.lint.per-file-ignores]\n"legacy/*" = ["PL101"]\n'
    )
    (proj / "legacy").mkdir()
    shutil.copy(proj / "agent.py", proj / "legacy" / "old.py")
    assert lint("legacy") == 0
    assert lint(".") == 1
    out = capsys.readouterr().out
    assert "agent.py" in out and "legacy" not in out
    # The model default reaches the agent-file rules.
    (proj / "agents").mkdir()
    (proj / "agents" / "x.md").write_text("---\nname: x\nmodel: claude-opus-4-7\n---\nHi.\n")
    assert lint("agents") == 1
    assert "PL602" in capsys.readouterr().out


def test_bad_config_is_a_usage_error(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "pyproject.toml").write_text('[tool.prefixlock.lint]\nselectt = ["PL1"]\n')
    assert lint("agent.py") == 2
    err = capsys.readouterr().err
    assert "pyproject.toml" in err and "selectt" in err
    (proj / "pyproject.toml").write_text('[tool.prefixlock.lint]\nselect = "PL1"\n')
    assert lint("agent.py") == 2


def test_non_utf8_pyproject_is_one_line_exit_2(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (proj / "pyproject.toml").write_bytes(b'[tool.x]\nname = "\xff\xfe"\n')
    assert lint("agent.py") == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pyproject.toml" in err and "not UTF-8" in err


def test_json_output(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint("agent.py", "--format", "json") == 1
    (item,) = json.loads(capsys.readouterr().out)
    assert item["code"] == "PL101" and item["line"] == 5 and item["severity"] == "error"
    assert item["fingerprint"]


# An error with a fix, a warning and a note with a fix, quick to lint: none of them sends the
# linter through this whole repository (their project) for a function's callers.
SARIF_FEW = [
    str(CORPUS / "positive" / name)
    for name in ("p12_set_join.py", "p15_dynamic_before_static.py", "p36_tools.json")
]


@pytest.mark.parametrize(
    "paths",
    [
        pytest.param(SARIF_FEW, id="three-files"),
        # every kind of finding the corpus holds, about 15 s of work: CI runs it in its slow step
        pytest.param(
            [str(CORPUS / "positive")], id="whole-positive-corpus", marks=pytest.mark.slow
        ),
    ],
)
def test_sarif_validates_against_the_official_schema(
    paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert lint(*paths, "--model", "claude-sonnet-4-6", "--format", "sarif") == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    run = log["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == sorted(RULES)
    levels = {r["level"] for r in run["results"]}
    assert levels == {"error", "warning", "note"}
    for r in run["results"]:
        assert ids[r["ruleIndex"]] == r["ruleId"]
        assert r["partialFingerprints"]["prefixlockFingerprint/v1"]
    assert any("fixes" in r for r in run["results"])


def test_sarif_fingerprint_ignores_line_moves(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lint("agent.py", "--format", "sarif")
    before = json.loads(capsys.readouterr().out)["runs"][0]["results"][0]
    (proj / "agent.py").write_text("# a comment\n\n" + TIME_IN_SYSTEM)
    lint("agent.py", "--format", "sarif")
    after = json.loads(capsys.readouterr().out)["runs"][0]["results"][0]
    assert after["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    assert after["partialFingerprints"] == before["partialFingerprints"]


def test_github_annotations(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint("agent.py", "--format", "github") == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("::error file=agent.py,line=5,col=11,title=PL101 time-in-prefix::")


def test_output_file_written(proj: Path) -> None:
    assert lint("agent.py", "--format", "json", "--output", "out.json") == 1
    assert json.loads((proj / "out.json").read_text())[0]["code"] == "PL101"


def test_inline_suppression_needs_a_reason(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = TIME_IN_SYSTEM.replace(
        "now = datetime.datetime.now()",
        "now = datetime.datetime.now()  # prefixlock: ignore[PL101]",
    )
    (proj / "agent.py").write_text(src)
    assert lint("agent.py") == 1
    out = capsys.readouterr().out
    assert "PL905" in out and "PL101" in out
    (proj / "agent.py").write_text(src.replace("ignore[PL101]", "ignore[PL101] pinned at build"))
    assert lint("agent.py") == 0
    assert "1 suppressed inline" in capsys.readouterr().out


def test_front_matter_and_sidecar_suppression(proj: Path) -> None:
    (proj / "sys.md").write_text(
        "---\nprefixlock-ignore:\n  PL101: rendered once per release\n---\nIt is {{ now }}.\n"
    )
    assert lint("sys.md") == 0
    (proj / "sys2.md").write_text("---\nprefixlock-ignore: [PL101]\n---\nIt is {{ now }}.\n")
    assert lint("sys2.md") == 1
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "x"}],
        "system": [
            {"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}} for _ in range(5)
        ],
    }
    (proj / "req.json").write_text(json.dumps(body))
    assert lint("req.json", "--select", "PL401") == 1
    (proj / "req.json.prefixlock-ignore").write_text("PL401 a fixture for the API's error\n")
    assert lint("req.json", "--select", "PL401") == 0


def test_baseline(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint("agent.py", "--write-baseline", "base.json") == 0
    assert lint("agent.py", "--baseline", "base.json") == 0
    assert "1 in the baseline" in capsys.readouterr().out
    (proj / "agent.py").write_text(
        TIME_IN_SYSTEM + "\nimport time\n\ndef more():\n"
        "    system = f'{time.time()}'\n    return system\n"
    )
    assert lint("agent.py", "--baseline", "base.json") == 1
    out = capsys.readouterr().out
    assert "time.time()" in out and "datetime.now()" not in out
    (proj / "bad.json").write_text("{not json")
    assert lint("agent.py", "--baseline", "bad.json") == 2


def test_safe_fixes_sort_and_canonicalize(proj: Path) -> None:
    for name in (
        "p12_set_join.py",
        "p14_json_dumps_config.py",
        "p10_glob_unsorted.py",
        "p36_tools.json",
    ):
        shutil.copy(CORPUS / "positive" / name, proj / name)
    assert lint(".", "--fix") == 1  # PL105 (a listing is still volatile) remains
    assert '", ".join(sorted(SKILLS))' in (proj / "p12_set_join.py").read_text()
    assert (
        "json.dumps({name: True for name in set(names)}, indent=2, sort_keys=True)"
        in (proj / "p14_json_dumps_config.py").read_text()
    )
    assert "sorted(glob.glob(" in (proj / "p10_glob_unsorted.py").read_text()
    tools = json.loads((proj / "p36_tools.json").read_text())["tools"]
    assert [t["name"] for t in tools] == ["read_file", "write_file"]
    assert list(tools[1]["input_schema"]) == ["properties", "required", "type"]
    assert not list(proj.glob(".*prefixlock-tmp*"))
    assert lint(".", "--select", "PL2") == 0


def test_unsafe_fix_moves_volatile_line_to_newest_turn(proj: Path) -> None:
    src = """import datetime

RULES = "Follow the rules."


def ask(client, question):
    now = datetime.datetime.now()
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        cache_control={"type": "ephemeral"},
        system=f"You are a helper.\\nCurrent time: {now}\\n{RULES}",
        messages=[{"role": "user", "content": question}],
    )
"""
    (proj / "move.py").write_text(src)
    assert lint("move.py", "--fix") == 1  # unsafe fixes need the extra flag
    assert (proj / "move.py").read_text() == src
    assert lint("move.py", "--unsafe-fixes") == 0
    new = (proj / "move.py").read_text()
    compile(new, "move.py", "exec")
    assert "system=f'You are a helper.\\n{RULES}'" in new
    assert """"content": f'Current time: {now}\\n' + question""" in new


def test_bad_input_reported_rest_linted(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "broken.py").write_text("def f(:\n    pass\n")
    (proj / "agent.md").write_text("---\nmodel: [x\n---\nNow: {{ now }}\n")
    (proj / "blob.txt").write_bytes(b"\x89PNG\x00\x00binary")
    (proj / "cut.jsonl").write_text('{"session_id": "s", "seq": 0, "body": {"model": "cl')
    assert lint(".", "--no-source") == 1
    out = capsys.readouterr().out
    assert "broken.py:1:7: PL901" in out
    assert "agent.md:2:1: PL902" in out
    assert "agent.md:4:6: PL101" in out  # the body is still linted
    assert "blob.txt:1:1: PL903" in out
    assert "cut.jsonl:1:1: PL904" in out and "truncated" in out
    assert "agent.py:5:11: PL101" in out


def test_report_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.policies.lint_tracegen import anthropic_bodies, write_trace

    def switch(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        if t >= 2:
            body["model"] = "claude-haiku-4-5"

    p = write_trace(tmp_path / "t.jsonl", anthropic_bodies(3, mutate=switch))
    assert lint("--report", str(p)) == 0
    out = capsys.readouterr().out
    assert "request 2 (line 3): model changed at byte 0" in out and "$" in out
    assert lint("--report", str(p), "--format", "json") == 0
    (rep,) = json.loads(capsys.readouterr().out)
    (br,) = rep["sessions"][0]["breaks"]
    assert br["cause"] == "model changed" and float(br["rebilled_dollars"]) > 0
    assert lint("--report", str(tmp_path / "nope.jsonl")) == 2


def test_directory_walk_skips_project_docs_and_code_blocks(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (proj / "agent.py").unlink()
    (proj / "README.md").write_text("Run `TAG=$(git rev-parse HEAD)`; today is {date}.\n")
    (proj / "guide.md").write_text('Example:\n\n```python\nf"Today is {date}"\n```\n')
    assert lint(".") == 0
    assert lint("README.md") == 1  # named explicitly, it is linted
    assert "PL102" in capsys.readouterr().out


def test_severity_follows_frequency_and_position() -> None:
    from prefixlock.policies.engine import lint_source

    src = """import datetime
import subprocess

STARTED = datetime.datetime.now()


def build(client, q, history):
    day = datetime.date.today()
    branch = subprocess.check_output(["git", "branch", "--show-current"], text=True)
    client.messages.create(
        model="claude-sonnet-4-6", max_tokens=10, cache_control={"type": "ephemeral"},
        system=f"Day {day}. Started {STARTED}. Rules.",
        tools=[{"name": "x", "description": f"Branch {branch}", "input_schema": {}}],
        messages=[*history, {"role": "user", "content": f"{datetime.datetime.now()} {q}"}],
    )
"""
    sev = {(f.code, f.line): f.severity for f in lint_source(src, "s.py")}
    # (`*history`: a conversation; beside one user message the date would be a one-off's.)
    assert sev[("PL102", 8)] == "warning"  # a date in the system prompt
    assert sev[("PL104", 9)] == "error"  # git state in a tool description: first in the prefix
    assert sev[("PL101", 4)] == "note"  # computed once per process
    assert not any(line == 14 for _, line in sev)  # the newest user turn is fine
