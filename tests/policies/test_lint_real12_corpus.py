"""real12, the held-out corpus after real11: its draw and labels hold together, and (slow, where
the project snapshots are on this machine) the linter's figures on both halves.

The third-party files are not committed; `score.py --extract` takes them from the project
snapshots (its default mirror folder), so the scoring test is skipped on a machine without
them. The test half was scored once, by the lead, with the round's merged rules; its figures are
pinned as TEST_FLOOR beside DEV_FLOOR.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.realcorpus import (
    assert_first_draw,
    assert_floors,
    assert_labels_hold,
    assert_list_ended,
    assert_none_listed_before,
    assert_real10s_draw,
    assert_steps_split,
    breakers_by_half,
    score_half,
)

CORPUS = Path(__file__).parent / "corpus"
REAL12 = CORPUS / "real12"
EARLIER = (
    "real",
    "real2",
    "real3",
    "real4",
    "real5",
    "real6",
    "real7",
    "real8",
    "real9",
    "real10",
    "real11",
)
# PROCEDURE.md's amendment: the five volatile steps' sizes, in the order they were drawn
VOLATILE_STEPS = (8, 8, 8, 8, 7)

# The development half's figures (RESULTS.md), per language: the breakers found and labelled,
# and the true findings of all findings, with the branch's rules when the labels were done
# (policies/ at b6bf45f). A later rule may find more and must not find less; every new finding
# is read and labelled first.
DEV_FLOOR = {
    "ts": {"volatile": (2, 2), "structural": (0, 4), "precision": (5, 13)},
    # 1/4, not the 1/3 of the labelling commit: the crash in pycheck/taint.py that stopped
    # code-agents' chat_tui.py being read with the rest of the half is fixed, and its two
    # findings are false (findings.toml).
    "py": {"volatile": (1, 3), "structural": (0, 1), "precision": (1, 4)},
}
# The test half, scored once by the lead with the round's merged rules (74b3e14; every
# unlabelled finding judged in findings.toml). No rule may be tuned on the test half's files.
TEST_FLOOR = {
    "ts": {"volatile": (1, 2), "structural": (1, 4), "precision": (2, 7)},
    "py": {"volatile": (0, 0), "structural": (2, 5), "precision": (2, 3)},
}


def test_every_label_names_a_drawn_file_and_says_why() -> None:
    assert_labels_hold(REAL12, at_least=20)


def test_the_halves_hold_the_breakers_the_amendment_counts() -> None:
    # PROCEDURE.md's amendment: test half 2 volatile and 9 structural, dev half 5 and 5
    assert breakers_by_half(REAL12) == {
        ("test", "volatile"): 2,
        ("test", "structural"): 9,
        ("dev", "volatile"): 5,
        ("dev", "structural"): 5,
    }


def test_the_first_draw_is_twenty_projects_a_language_split_evenly() -> None:
    projects = assert_first_draw(REAL12)
    # at least 40 projects, at least half TypeScript (issue 30)
    assert len(projects) >= 40
    assert 2 * sum(lang == "ts" for lang, _ in projects.values()) >= len(projects)


def test_each_volatile_step_is_split_evenly_within_a_language() -> None:
    assert_steps_split(REAL12, VOLATILE_STEPS)


def test_projects_are_taken_in_the_listed_order() -> None:
    assert_list_ended(REAL12)


def test_no_project_of_an_earlier_corpus_is_listed() -> None:
    assert_none_listed_before(REAL12, (CORPUS / f for f in EARLIER))


def test_the_sampler_is_real10s_draw() -> None:
    assert_real10s_draw(REAL12)


@pytest.mark.slow  # lints ~75 third-party files: CI runs it in its slow step (and skips it there)
def test_dev_half_figures_hold() -> None:
    assert_floors(score_half(REAL12, "dev"), DEV_FLOOR)


@pytest.mark.slow
def test_test_half_figures_hold() -> None:
    assert_floors(score_half(REAL12, "test"), TEST_FLOOR)
