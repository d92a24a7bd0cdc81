"""real10, the held-out corpus after real9: its draw and labels hold together, and (slow, where
the project snapshots are on this machine) the linter's figures on the development half.

The third-party files are not committed; `score.py --extract` takes them from the project
snapshots (its default mirror folder), so the scoring test is skipped on a machine without
them. Only the development half is scored here; the test half is scored once, by the lead,
with the final rules (RESULTS.md says how), and its floors are pinned then.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.realcorpus import (
    assert_first_draw,
    assert_floors,
    assert_labels_hold,
    candidates,
    manifest,
    named_repositories,
    score_half,
    skipped,
)

CORPUS = Path(__file__).parent / "corpus"
REAL10 = CORPUS / "real10"
EARLIER = ("real", "real2", "real3", "real4", "real5", "real6", "real7", "real8", "real9")

# Each half's figures (RESULTS.md): per language, the breakers found and labelled, and the true
# findings of all findings. The development half with this round's rules (9 of 13 true in
# TypeScript; 9 of 15 with main's before them); the test half scored once, by the lead, with the
# same rules. A later rule may find more and must not find less; every new finding is read and
# labelled first. Since the test half was scored it is development data too (RESULTS.md): both
# floors are the figures of the rules tuned on it (branch h30r), not held-out figures.
DEV_FLOOR = {
    # 4/4 and 12/12 since branch h30ts1: each option of a prompt builder's call that carries the
    # request is reported (kai-content-agent's `additionalMaterial` beside `format`).
    "ts": {"volatile": (0, 1), "structural": (4, 4), "precision": (12, 12)},
    "py": {"volatile": (0, 0), "structural": (2, 3), "precision": (3, 3)},
}
TEST_FLOOR = {
    # 4/10, not 5: the coordinator's per-type prompts were "found" by `prompts.SUMMARY` read as
    # a running summary, which it is not (the summariser's own instructions); PL305 still
    # reports the side request, at its array, outside the label's lines.
    # Precision 8/8 since a one-off request's retrieved context is its own input (branch h30g).
    # 5/10 and 11/11 since branch h30ts4: the coordinator's per-type prompts over a history
    # kept as a record's field (`...shortTermMemory.chatHistory`) are another system prompt
    # over the same conversation, reported at the prompt's text.
    "ts": {"volatile": (1, 2), "structural": (5, 10), "precision": (11, 11)},
    # Python precision 15/15 since issue 30's data-flow pass (finance-bot base.py:274, judged
    # true in findings.toml).
    "py": {"volatile": (3, 3), "structural": (4, 9), "precision": (15, 15)},
}
FLOORS: dict[str, dict[str, dict[str, tuple[int, int]]]] = {"dev": DEV_FLOOR, "test": TEST_FLOOR}


def test_every_label_names_a_drawn_file_and_says_why() -> None:
    assert_labels_hold(REAL10, at_least=20)


def test_the_first_draw_is_twenty_projects_a_language_split_evenly() -> None:
    assert_first_draw(REAL10)


def test_projects_are_taken_in_the_listed_order() -> None:
    # every drawn or skipped project is a candidate, and none is both
    order = candidates(REAL10)
    drawn = {r["repo"] for r in manifest(REAL10)}
    left_out = skipped(REAL10)
    assert drawn <= set(order) and left_out <= set(order)
    assert not drawn & left_out
    # the first draw tried every candidate up to its last drawn project
    last = max(order.index(r["repo"]) for r in manifest(REAL10) if r["stratum"] == "1")
    assert set(order[: last + 1]) <= drawn | left_out


def test_no_project_of_an_earlier_corpus_is_listed() -> None:
    earlier = named_repositories(CORPUS / f for f in EARLIER)
    listed = {n.lower() for n in candidates(REAL10)}
    assert not listed & earlier, listed & earlier


def test_the_sampler_is_real9s_rule_with_one_stratum_more() -> None:
    # real10's sample.py names real8's two strata unchanged and adds stratum 3; the shared
    # draw is the one real9's sample.py runs (its draw replayed byte-identical, RESULTS.md)
    text = (REAL10 / "sample.py").read_text(encoding="utf-8")
    assert "1: (rs.both(rs.PROMPT, rs.CALL), 1)" in text
    assert "2: (clock_near, 1)" in text and "3: (beside_prompt, 1)" in text
    assert "rs.Draw(" in (CORPUS / "real9" / "sample.py").read_text(encoding="utf-8")


@pytest.mark.slow  # lints ~80 third-party files: CI runs it in its slow step (and skips it there)
@pytest.mark.parametrize("half", ["dev", "test"])
def test_half_figures_hold(half: str) -> None:
    assert_floors(score_half(REAL10, half), FLOORS[half])
