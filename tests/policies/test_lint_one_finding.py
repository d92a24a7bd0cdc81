"""One finding per value and prompt (`policies/collapse.py`): a value carried into one prompt at
several lines, or reported as both a time and a date, is one finding at the value's line with
the other lines related; different values or different prompts stay apart. Suppressions,
baselines and SARIF follow the collapsed finding."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import pytest

from prefixlock.cli.main import main
from prefixlock.policies.collapse import collapse, members, related_lines
from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import apply_baseline, lint_paths, lint_source
from prefixlock.policies.findings import Finding, fingerprints
from prefixlock.policies.output import sarif, text

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text("utf-8"))

# scheron/Daily's shape: one clock read, its date written at five lines of one system prompt,
# its time at one of them.
_DATED = """import OpenAI from "openai"
const client = new OpenAI()

export async function ask(q: string, history: any[]) {
  const now = new Date()
  const today = now.toISOString().slice(0, 10)
  const clock = now.toLocaleTimeString()
  const system = `You are a planner.
Today is ${today}.
Plan tasks from ${today}.
Never before ${today}, the time is ${clock}.
Due dates after ${today}.
Repeat: ${today}.`
  return client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: system }, ...history, { role: "user", content: q }],
  })
}
"""


def _found(src: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(src, "agent.ts")]


def test_one_value_into_one_prompt_is_one_finding_at_the_value() -> None:
    (f,) = lint_source(_DATED, "agent.ts")
    # the time of day reaches the prompt too: it changes on every request, PL101
    assert (f.line, f.code) == (5, "PL101")
    assert related_lines(f) == [9, 10, 11, 12, 13]
    assert "= also at lines 9, 10, 11, 12, 13" in text([f])
    assert "(new Date(), line 5) that reaches" in f.message  # the corpus scorer reads it


def test_a_date_only_value_keeps_the_date_code() -> None:
    src = _DATED.replace(", the time is ${clock}", "")
    assert _found(src) == [(5, "PL102")]


def test_two_values_into_one_prompt_stay_two() -> None:
    src = _DATED.replace("const clock = now.toLocaleTimeString()", "const clock = Date.now()")
    # a value reported at one line only stays where it is reported
    assert _found(src) == [(5, "PL102"), (11, "PL101")]


def test_one_value_into_two_prompts_stays_two() -> None:
    src = _DATED.replace(
        "  return client.chat.completions.create({",
        "  await client.chat.completions.create({ model: 'x', messages: [{ role: 'system', "
        "content: `Date: ${today}` }, ...history] })\n"
        "  return client.chat.completions.create({",
    )
    found = lint_source(src, "agent.ts")
    assert [(f.line, f.code) for f in found] == [(5, "PL101"), (14, "PL102")]
    assert {str(f.extra["sink"]["line"]) for f in found} == {"8", "14"}  # type: ignore[index]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        (11, "PL101"),  # the line of the time, one of the collapsed lines
        (12, "PL102"),  # a line reported as a date only: the value's suppression
        (5, "PL101"),  # the value's own line, where the finding is kept
    ],
)
def test_a_suppression_at_any_collapsed_line_suppresses(line: int, codes: str) -> None:
    rows = _DATED.split("\n")
    rows[line - 1] += f" // prefixlock: ignore[{codes}] dated once per session on purpose"
    assert _found("\n".join(rows)) == []


def test_a_suppression_of_another_code_does_not() -> None:
    rows = _DATED.split("\n")
    rows[11] += " // prefixlock: ignore[PL201] not this one"
    assert _found("\n".join(rows)) == [(5, "PL101")]


def test_sarif_lists_the_other_lines_as_related_locations() -> None:
    log = json.loads(sarif(lint_source(_DATED, "agent.ts")))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    (result,) = log["runs"][0]["results"]
    related = result["relatedLocations"]
    assert [r["physicalLocation"]["region"]["startLine"] for r in related] == [9, 10, 11, 12, 13]
    assert [r["id"] for r in related] == [1, 2, 3, 4, 5]


def test_a_baseline_written_before_the_collapse_still_holds(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "agent.ts").write_text(_DATED)
    result = lint_paths([str(tmp_path)], LintConfig(), jobs=1)
    (f,) = result.findings
    old = fingerprints(sorted(members(f), key=lambda m: (m.line, m.col, m.code)))
    assert fingerprints([f])[0] not in old  # kept at the value's line: a new fingerprint
    assert apply_baseline(result, old[2:3]).findings == []  # any one old fingerprint is enough


def test_a_deselected_code_leaves_the_value_reported_under_the_others(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "agent.ts").write_text(_DATED)
    found = lint_paths([str(tmp_path)], LintConfig(ignore=("PL101",)), jobs=1).findings
    assert [(f.line, f.code, related_lines(f)) for f in found] == [(9, "PL102", [10, 11, 12, 13])]


def test_the_cli_shows_the_related_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.ts").write_text(_DATED)
    assert main(["lint", "agent.ts"]) == 1
    assert "    = also at lines 9, 10, 11, 12, 13\n" in capsys.readouterr().out
    assert main(["lint", "agent.ts", "--format", "json"]) == 1
    (item,) = json.loads(capsys.readouterr().out)
    assert item["related_lines"] == [9, 10, 11, 12, 13]
    assert main(["lint", "agent.ts", "--format", "github"]) == 1
    assert capsys.readouterr().out.endswith(" (also at lines 9, 10, 11, 12, 13)\n")


def _f(line: int, code: str, origin: int | None, sink: int = 30) -> Finding:
    extra: dict[str, object] = (
        {}
        if origin is None
        else {
            "origin": {"path": "a.ts", "line": origin, "what": "new Date()"},
            "sink": {"path": "a.ts", "line": sink, "name": "`system`"},
        }
    )
    return Finding("a.ts", line, 1, code, f"m{line}", extra=extra)


@pytest.mark.parametrize(
    ("found", "kept"),
    [
        # no origin named: left alone
        ([_f(3, "PL101", None), _f(4, "PL101", None)], [(3, "PL101"), (4, "PL101")]),
        # one origin, one sink: kept at the value's line where a finding is there
        ([_f(9, "PL102", 2), _f(2, "PL102", 2), _f(12, "PL102", 2)], [(2, "PL102")]),
        # else the earliest of the chosen code (no text to quote the value's line from)
        ([_f(12, "PL101", 2), _f(9, "PL102", 2)], [(12, "PL101")]),
        # another family is another problem
        ([_f(9, "PL102", 2), _f(9, "PL201", 2)], [(9, "PL102"), (9, "PL201")]),
        # another sink, another origin
        ([_f(9, "PL102", 2), _f(10, "PL102", 2, sink=40)], [(9, "PL102"), (10, "PL102")]),
        ([_f(9, "PL102", 2), _f(10, "PL102", 3)], [(9, "PL102"), (10, "PL102")]),
    ],
)
def test_collapse(found: list[Finding], kept: list[tuple[int, str]]) -> None:
    assert [(f.line, f.code) for f in collapse(found)] == kept
