"""The corpus: every positive file gives exactly its expected codes, every negative none.

The positive files lie inside this repository, so linting one searches the whole repository
(its project) for its functions' callers: the folder is linted once a module (one run shares
that search) and each case reads its file's findings from that run.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import Result, lint_paths
from prefixlock.policies.rules import RULES

CORPUS = Path(__file__).parent / "corpus"
EXPECTED: dict[str, list[str]] = tomllib.loads(
    (CORPUS / "expected.toml").read_text(encoding="utf-8")
)["positive"]
CONFIG = LintConfig(model="claude-sonnet-4-6", root=str(CORPUS))


def _files(kind: str) -> list[Path]:
    return sorted(p for p in (CORPUS / kind).rglob("*") if p.is_file())


def test_corpus_sizes() -> None:
    assert len(_files("positive")) >= 30
    assert len(_files("negative")) >= 20


@pytest.fixture(scope="module")
def positive_run() -> Result:
    """The positive folder linted serially in one run."""
    return lint_paths([str(CORPUS / "positive")], CONFIG, jobs=1)


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_positive_case(rel: str, positive_run: Result) -> None:
    path = CORPUS / "positive" / rel
    found = [f for f in positive_run.findings if f.path == str(path)]
    assert sorted(f.code for f in found) == sorted(EXPECTED[rel]), [
        (f.code, f.line, f.message) for f in found
    ]
    for f in found:
        assert f.path == str(path)
        assert f.line >= 1 and f.col >= 1


def test_every_positive_file_has_an_expectation(positive_run: Result) -> None:
    listed = {str(CORPUS / "positive" / rel) for rel in EXPECTED}
    assert {str(p) for p in _files("positive")} == listed
    # and the run read each one and found nothing on another path (the cases read by path)
    assert positive_run.files == len(listed)
    assert {f.path for f in positive_run.findings} <= listed


def test_negatives_give_no_findings() -> None:
    result = lint_paths([str(CORPUS / "negative")], CONFIG)
    assert result.files == len(_files("negative"))
    assert [(f.path, f.code, f.message) for f in result.findings] == []


@pytest.mark.slow  # lints the corpus twice, in worker processes too: CI runs it in its slow step
def test_whole_corpus_in_parallel_matches_serial() -> None:
    kinds = [str(CORPUS / "positive"), str(CORPUS / "negative")]
    serial = lint_paths(kinds, CONFIG, jobs=1).findings
    parallel = lint_paths(kinds, CONFIG, jobs=2).findings
    assert [(f.path, f.line, f.code) for f in serial] == [
        (f.path, f.line, f.code) for f in parallel
    ]
    assert Counter(f.code for f in serial) == Counter(
        c for codes in EXPECTED.values() for c in codes
    )


def test_every_rule_is_covered_by_the_corpus() -> None:
    covered = {c for codes in EXPECTED.values() for c in codes}
    # A syntax error and a truncated trace line cannot live in the repository (ruff, and
    # the trace files are regenerated); test_lint_cli and test_lint_traces make them, and
    # test_lint_robustness the files past the linter's bounds (PL906).
    assert set(RULES) - {"PL901", "PL904", "PL906"} <= covered, set(RULES) - covered


def test_trace_corpus_is_what_the_generator_writes(tmp_path: Path) -> None:
    from tests.policies.lint_tracegen import write_corpus

    for fresh in write_corpus(tmp_path):
        committed = CORPUS / "positive" / "traces" / fresh.name
        assert committed.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), (
            f"regenerate with: python tests/policies/lint_tracegen.py ({fresh.name})"
        )
