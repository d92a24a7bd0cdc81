"""The search of a TypeScript project for an exported function's callers in other files
(`engine._js_importers`): each project file is read and scanned once a run, not once a finding
(a scan of every file per finding is quadratic in the project's size), the walk of the
project's folders is bounded by the entries it visits, and a caller the search cannot follow
(a namespace import, a re-export, the function handed on as a value) keeps the finding.
Counted, not timed."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies import engine
from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths

# An exported prompt builder with a clock in it, and a caller that sends it one-shot.
_BUILDER = (
    "export const Answer{i}SystemPrompt = (rows: string) =>\n"
    "  `Today is ${{new Date().toISOString()}} ${{rows}}`;\n"
)
_CALLER = (
    "import {{ Answer{i}SystemPrompt }} from './p{i}';\n"
    "export async function ask{i}(q: string) {{\n"
    "  return openai.chat.completions.create({{\n"
    "    model: 'gpt-4o',\n"
    "    messages: [\n"
    "      {{ role: 'system', content: Answer{i}SystemPrompt(q) }},\n"
    "      {{ role: 'user', content: q }},\n"
    "    ],\n"
    "  }});\n"
    "}}\n"
)


def _project(root: Path, n: int) -> None:
    root.mkdir()
    (root / "package.json").write_text("{}\n")
    for i in range(n):
        (root / f"p{i}.ts").write_text(_BUILDER.format(i=i))
        (root / f"s{i}.ts").write_text(_CALLER.format(i=i))


def test_each_project_file_is_read_once_whatever_the_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = engine._js_text
    reads: list[str] = []

    def counted(path: str) -> str | None:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(engine, "_js_text", counted)
    per_file = []
    for n in (5, 10):
        reads.clear()
        _project(tmp_path / f"n{n}", n)
        found = lint_paths([str(tmp_path / f"n{n}")], LintConfig(), jobs=1).findings
        assert found == []  # every builder's caller is one-shot: the search ran
        per_file.append(len(reads) / (2 * n))
    assert per_file[0] > 0
    assert per_file[0] == per_file[1]


def test_the_project_walk_is_bounded_by_the_entries_it_visits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tree of many files that are not scripts (data, a Python package) is not walked to its
    # end for a script's callers: past the bound, callers elsewhere are not followed.
    _project(tmp_path / "big", 1)
    data = tmp_path / "big" / "data"
    data.mkdir()
    for i in range(40):
        (data / f"row{i}.json").write_text("{}\n")
    monkeypatch.setattr(engine, "_JS_WALK_CAP", 20)
    found = lint_paths([str(tmp_path / "big")], LintConfig(), jobs=1).findings
    assert [(Path(f.path).name, f.code) for f in found] == [("p0.ts", "PL101")]
    monkeypatch.setattr(engine, "_JS_WALK_CAP", 1000)
    assert lint_paths([str(tmp_path / "big")], LintConfig(), jobs=1).findings == []


def _lint(root: Path) -> list[tuple[str, str]]:
    return [(Path(f.path).name, f.code) for f in lint_paths([str(root)], LintConfig()).findings]


# A second caller of Answer0SystemPrompt that sends it ahead of a kept history.
_HISTORY = (
    "export async function chat(history: any[], q: string) {\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{ role: 'system', content: CALL }, ...history, { role: 'user', content: q }],\n"
    "  });\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("files", "call"),
    [
        # A namespace import: `prompts.Answer0SystemPrompt(q)`.
        ({"chat.ts": "import * as prompts from './p0';\n"}, "prompts.Answer0SystemPrompt(q)"),
        # An index file passes the builder on; the conversation imports it from there.
        (
            {
                "index.ts": "export { Answer0SystemPrompt } from './p0';\n",
                "chat.ts": "import { Answer0SystemPrompt } from './index';\n",
            },
            "Answer0SystemPrompt(q)",
        ),
        (
            {
                "index.ts": "export * from './p0';\n",
                "chat.ts": "import { Answer0SystemPrompt } from './index';\n",
            },
            "Answer0SystemPrompt(q)",
        ),
    ],
)
def test_a_caller_the_search_does_not_follow_keeps_the_finding(
    tmp_path: Path, files: dict[str, str], call: str
) -> None:
    root = tmp_path / "app"
    _project(root, 1)
    assert _lint(root) == []  # the one-shot caller alone: dropped
    for name, head in files.items():
        (root / name).write_text(
            head + (_HISTORY.replace("CALL", call) if name == "chat.ts" else "")
        )
    assert ("p0.ts", "PL101") in _lint(root)


def test_a_builder_handed_on_as_a_value_keeps_the_finding(tmp_path: Path) -> None:
    root = tmp_path / "app"
    _project(root, 1)
    # The one-shot caller also hands the builder to a registry whose use is not seen here.
    caller = (root / "s0.ts").read_text()
    (root / "s0.ts").write_text(caller + "export const prompts = { Answer0SystemPrompt };\n")
    assert ("p0.ts", "PL101") in _lint(root)
