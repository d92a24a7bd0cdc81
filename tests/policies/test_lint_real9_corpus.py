"""real9, the held-out corpus after real8: its draw and labels hold together, and (slow, where
the project snapshots are on this machine) the linter's figures on the development half.

The third-party files are not committed; `score.py --extract` takes them from the project
snapshots (its default mirror folder), so the scoring test is skipped on a machine without
them. The test half was scored once, by the lead, with the rules of that round (RESULTS.md);
both halves' figures are pinned as floors.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.realcorpus import (
    assert_floors,
    assert_labels_hold,
    candidates,
    manifest,
    named_repositories,
    score_half,
)

CORPUS = Path(__file__).parent / "corpus"
REAL9 = CORPUS / "real9"
EARLIER = ("real", "real2", "real3", "real4", "real5", "real6", "real7", "real8")

# The development half scored with main's rules (policies/ at 5808574, RESULTS.md): per
# language, the breakers found and labelled, and the true findings of all findings. A later
# rule may find more and must not find less; every new finding is read and labelled first.
# Raised after real9 became development data (k30r, RESULTS.md): TypeScript structural 2 -> 4,
# precision 4/9 -> 6/7; Python structural 0 -> 8, precision 8/8. TypeScript precision 7/8 since
# issue 30's data-flow pass (a second, true finding on ChatbotX's labelled breaker).
DEV_FLOOR = {
    "ts": {"volatile": (1, 1), "structural": (4, 5), "precision": (7, 8)},
    "py": {"volatile": (0, 0), "structural": (8, 8), "precision": (8, 8)},
}
# The test half, scored once with the rules at j30r b4f0d7c (RESULTS.md), its five unlabelled
# findings judged (2 true, 3 false) in findings.toml.
# Re-run as development data with the rules made general on real9's misses (k30r): TypeScript
# structural 3 -> 7, precision 4/6 -> 9/9; Python structural 3 -> 6, precision 4/5 -> 9/10.
TEST_FLOOR = {
    "ts": {"volatile": (0, 0), "structural": (7, 12), "precision": (9, 9)},
    "py": {"volatile": (0, 0), "structural": (6, 8), "precision": (9, 10)},
}
FLOORS: dict[str, dict[str, dict[str, tuple[int, int]]]] = {"dev": DEV_FLOOR, "test": TEST_FLOOR}


def test_every_label_names_a_drawn_file_and_says_why() -> None:
    assert_labels_hold(REAL9, at_least=30)


def test_the_sample_is_large_and_split_evenly() -> None:
    rows = manifest(REAL9)
    projects = {r["repo"]: (r["lang"], r["half"]) for r in rows}
    assert len(projects) >= 40
    # the first draw took 20 projects a language; its rows come first, stratum 1 first
    first = list(dict.fromkeys(r["repo"] for r in rows if r["stratum"] == "1"))[:40]
    assert Counter(projects[p][0] for p in first) == {"ts": 20, "py": 20}
    for lang in ("ts", "py"):
        halves = Counter(h for lg, h in projects.values() if lg == lang)
        assert abs(halves["dev"] - halves["test"]) <= 1, (lang, halves)
    # every file of a project keeps the project's half and language, at a recorded commit
    for r in rows:
        assert projects[r["repo"]] == (r["lang"], r["half"]), r
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]) and r["license"], r


def test_projects_are_taken_in_the_listed_order() -> None:
    # every drawn or skipped project is a candidate, and none is both
    order = candidates(REAL9)
    drawn = {r["repo"] for r in manifest(REAL9)}
    skipped = {
        ln.split(":")[0]
        for ln in (REAL9 / "SKIPPED.txt").read_text(encoding="utf-8").splitlines()
        if ln
    }
    assert drawn <= set(order) and skipped <= set(order)
    assert not drawn & skipped
    # the draw reached candidate 140 (PROCEDURE.md's amendment): each of them was tried
    assert set(order[:140]) <= drawn | skipped


def test_no_project_of_an_earlier_corpus_is_drawn_again() -> None:
    earlier = named_repositories(CORPUS / f for f in EARLIER)
    listed = {n.lower() for n in candidates(REAL9)}
    assert not listed & earlier, listed & earlier


@pytest.mark.slow  # lints ~50 third-party files: CI runs it in its slow step (and skips it there)
@pytest.mark.parametrize("half", ["dev", "test"])
def test_half_figures_hold(half: str) -> None:
    assert_floors(score_half(REAL9, half), FLOORS[half])
