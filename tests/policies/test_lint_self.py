"""The README's claim: this repository's own packages and examples lint clean (with the
repository's `[tool.prefixlock.lint]` table), except the demo's naive client, which breaks the
cache on purpose (the clock in its system prompt, its shuffled tool list and its switch of model
mid-session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies.config import load_file
from prefixlock.policies.engine import lint_paths

ROOT = Path(__file__).parents[2]


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_repository_lints_clean_but_for_the_naive_demo_client() -> None:
    paths = [str(ROOT / p) for p in ("harness", "agents", "policies", "tui", "examples")]
    config = load_file(ROOT / "pyproject.toml")  # [tool.prefixlock.lint], as the CLI reads it
    result = lint_paths(paths, config, jobs=2)
    assert result.files > 100
    outside = [
        (f.path, f.line, f.code, f.message)
        for f in result.findings
        if Path(f.path) != ROOT / "harness" / "cli" / "demo.py"
    ]
    assert outside == []
    assert {f.code for f in result.findings} == {"PL101", "PL201", "PL302"}
