"""What the linter reports on a piece of source, (line, code) pairs, or on a small Python or
TypeScript project written for the test, for the shape tests."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source
from tests.helpers.files import write


def line_codes(text: str, path: str) -> list[tuple[int, str]]:
    """Each finding of `text` linted as the file `path`, as (line, code), in report order."""
    return [(f.line, f.code) for f in lint_source(text, path)]


def lines_of(text: str, code: str, path: str = "agent.py") -> list[int]:
    """The lines of `text`, linted as the file `path`, that have a finding of `code`."""
    return [f.line for f in lint_source(text, path) if f.code == code]


def project_findings(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    """`files` (relative path to text) written under `root` as a Python project (a
    `pyproject.toml` marks its root) and linted as one: each finding as (file name, line, code)."""
    write(root / "pyproject.toml", "")
    for rel, text in files.items():
        write(root / rel, text)
    found = lint_paths([str(root)], LintConfig(), jobs=1).findings
    return [(Path(f.path).name, f.line, f.code) for f in found]


def ts_project_findings(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    """`files` (path under `src/` to text) written under `root` as a TypeScript project (a
    `package.json` marks its root) and linted as one: each finding as (file name, line, code)."""
    write(root / "package.json", "{}\n")
    for rel, text in files.items():
        write(root / "src" / rel, text)
    found = lint_paths([str(root)], LintConfig(), jobs=1).findings
    return [(Path(f.path).name, f.line, f.code) for f in found]
