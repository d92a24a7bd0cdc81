"""real8, the held-out corpus of issue 30's round: its draw and labels hold together, and (slow,
where the project snapshots are on this machine) the linter's figures on both halves.

The third-party files are not committed; `score.py --extract` takes them from the project
snapshots (its default mirror folder), so the scoring test is skipped on a machine without
them. The test half was scored once (RESULTS.md); its figures are pinned as floors too.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.realcorpus import (
    assert_floors,
    assert_labels_hold,
    manifest,
    named_repositories,
    score_half,
)

CORPUS = Path(__file__).parent / "corpus"
REAL8 = CORPUS / "real8"

# The development half scored with main's rules at 0821028 (RESULTS.md): per language, the
# breakers found and labelled, and the true findings of all findings. A later rule may find
# more and must not find less; every new finding is read and labelled in findings.toml first.
# Raised with the rules made general on real8's misses (j30r): TypeScript structural 3 -> 7,
# Python 2 -> 5.
DEV_FLOOR = {
    "ts": {"volatile": (2, 6), "structural": (8, 18), "precision": (12, 17)},
    "py": {"volatile": (0, 1), "structural": (6, 11), "precision": (9, 12)},
}
# The test half, scored once with the rules at j30 0fec94e (RESULTS.md); its 22 unlabelled
# findings were read and judged by someone who neither labelled the corpus nor wrote the rules.
# Re-run as development data with the rules at j30r: structural TypeScript 2 -> 5, Python 2 -> 3;
# TypeScript precision 7/20 -> 9/14 (one-off dates, user prompts and prompt files found under
# process.cwd() no longer reported).
# After real9's round (k30r): TypeScript precision 9/14 -> 9/12 (one message taken out by its
# id is no rewrite); the development half structural TypeScript 7 -> 8, Python 5 -> 6.
TEST_FLOOR = {
    "ts": {"volatile": (0, 1), "structural": (5, 11), "precision": (9, 12)},
    "py": {"volatile": (1, 1), "structural": (3, 4), "precision": (6, 9)},
}
FLOORS = {"dev": DEV_FLOOR, "test": TEST_FLOOR}


def test_every_label_names_a_drawn_file_and_says_why() -> None:
    assert_labels_hold(REAL8, at_least=40)


def test_the_sample_is_large_half_typescript_and_split_evenly() -> None:
    rows = manifest(REAL8)
    projects = {r["repo"]: (r["lang"], r["half"]) for r in rows}
    assert len(projects) >= 40
    langs = Counter(lang for lang, _ in projects.values())
    assert langs["ts"] * 2 >= len(projects)
    for lang in ("ts", "py"):
        halves = Counter(h for lg, h in projects.values() if lg == lang)
        assert abs(halves["dev"] - halves["test"]) <= 1, (lang, halves)
    # every file of a project keeps the project's half and language
    for r in rows:
        assert projects[r["repo"]] == (r["lang"], r["half"]), r


def test_no_project_of_an_earlier_corpus_is_drawn_again() -> None:
    earlier = named_repositories(
        CORPUS / f for f in ("real", "real2", "real3", "real4", "real5", "real6", "real7")
    )
    drawn = {r["repo"].lower() for r in manifest(REAL8)}
    assert not drawn & earlier, drawn & earlier


@pytest.mark.slow  # lints 100 third-party files: CI runs it in its slow step (and skips it there)
@pytest.mark.parametrize("half", ["dev", "test"])
def test_half_figures_hold(half: str) -> None:
    assert_floors(score_half(REAL8, half), FLOORS[half])
