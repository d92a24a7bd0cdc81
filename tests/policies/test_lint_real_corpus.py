"""The linter on real code: 502 files from 12 public agent projects (corpus/real, with their
licences; SOURCES.md says where each comes from). Every finding is labelled true or false by
reading the code (corpus/real/labels.toml); the linter must give exactly the labelled findings,
and the precision and recall computed here from the labels are the figures the README reports.

Run `python tests/policies/test_lint_real_corpus.py` to print the per-rule table.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths

REAL = Path(__file__).parent / "corpus" / "real"
LABELS: dict[str, Any] = tomllib.loads((REAL / "labels.toml").read_text(encoding="utf-8"))
FINDINGS: list[dict[str, Any]] = LABELS["finding"]
BREAKERS: list[dict[str, Any]] = LABELS["breaker"]
PRECISION_GOAL = 0.9  # for every rule with at least 5 findings
MIN_FINDINGS = 5


def _lint() -> list[tuple[str, int, str]]:
    result = lint_paths([str(REAL)], LintConfig(model="claude-sonnet-4-6", root=str(REAL)), jobs=2)
    return sorted(
        (Path(f.path).relative_to(REAL).as_posix(), f.line, f.code) for f in result.findings
    )


def precision() -> dict[str, tuple[int, int]]:
    """Per rule: (true findings, all findings), from the labels."""
    true: Counter[str] = Counter()
    every: Counter[str] = Counter()
    for f in FINDINGS:
        every[f["code"]] += 1
        true[f["code"]] += bool(f["label"])
    return {code: (true[code], every[code]) for code in sorted(every)}


def recall() -> dict[str, tuple[int, int]]:
    """Per kind of breaker: (found by the linter, found by reading)."""
    found: Counter[str] = Counter()
    every: Counter[str] = Counter()
    for b in BREAKERS:
        every[b["kind"]] += 1
        found[b["kind"]] += bool(b["detected_by"])
    return {kind: (found[kind], every[kind]) for kind in sorted(every)}


def test_the_corpus_is_real_and_licensed() -> None:
    files = [p for p in REAL.rglob("*") if p.is_file()]
    linted = [p for p in files if p.parent != REAL and not p.name.startswith("LICENSE")]
    assert len(linted) >= 300
    projects = [d for d in REAL.iterdir() if d.is_dir()]
    assert len(projects) >= 10
    for d in projects:
        assert any(p.name.startswith("LICENSE") for p in d.iterdir()), d
        assert f"`{d.name}/`" in (REAL / "SOURCES.md").read_text(encoding="utf-8")


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_findings_are_exactly_the_labelled_ones() -> None:
    labelled = sorted((f["file"], f["line"], f["code"]) for f in FINDINGS)
    assert _lint() == labelled


def test_every_label_says_why() -> None:
    for f in FINDINGS:
        assert isinstance(f["label"], bool) and len(f["why"]) > 20, f
    for b in BREAKERS:
        assert b["kind"] in ("volatile", "structural") and len(b["why"]) > 20, b
        # A breaker counted as found is one of the true findings.
        if b["detected_by"]:
            assert {"file": b["file"], "line": b["line"], "code": b["detected_by"]} in [
                {k: f[k] for k in ("file", "line", "code")} for f in FINDINGS if f["label"]
            ], b


def test_precision_of_every_rule_with_enough_findings() -> None:
    table = precision()
    for code, (true, n) in table.items():
        if n >= MIN_FINDINGS:
            assert true / n >= PRECISION_GOAL, (code, true, n)


def test_every_volatile_value_breaker_is_found() -> None:
    found, every = recall()["volatile"]
    assert found == every


if __name__ == "__main__":
    for code, (true, n) in precision().items():
        print(f"{code}: {true}/{n} true ({true / n:.0%})")
    t = sum(x for x, _ in precision().values())
    n = sum(y for _, y in precision().values())
    print(f"all rules: {t}/{n} true ({t / n:.0%})")
    for kind, (found, every) in recall().items():
        print(f"recall, {kind} breakers: {found}/{every} ({found / every:.0%})")
