"""The suite's turn gaps come from a trace by a written rule: a request continues the
conversation whose last full block it holds at the same position, and conversations split into
a development and a test half by their first request's line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.guard.turn_end import DEFAULT_TURN_GAPS
from prefixlock.versus.rates import follow_up_gaps, main, quantiles
from prefixlock.versus.scenario import TURN_GAPS


def _req(t: float, length: int, ids: list[int]) -> dict[str, object]:
    return {"timestamp": int(t * 1000), "input_length": length, "hash_ids": ids}


def test_turns_of_one_conversation_are_chained_by_their_blocks() -> None:
    rows = [
        _req(0, 1100, [0, 1, 2]),  # conversation A (line 0: development half)
        _req(1, 1100, [0, 3, 4]),  # conversation B (line 1: test half)
        _req(61, 1800, [0, 1, 5, 6]),  # A's next turn: holds A's last full block (1)
        _req(400, 1900, [0, 3, 7, 8]),  # B's next turn, 399 s later
        _req(500, 2600, [0, 1, 5, 6, 9, 10]),  # A again: holds A-2's last full block (5)
        _req(510, 600, [0, 11]),  # a new conversation: only the shared system block
    ]
    dev, test = follow_up_gaps(rows)
    # A: 0 -> 61 s -> 500 s (A-2's 1,800 tokens end in a partial block: its last full one is
    # id 5 at position 2); B: 1 -> 400 s; the last request starts a conversation of its own.
    assert dev == [61.0, 439.0]
    assert test == [399.0]


def test_quantiles_are_midpoints_of_equal_shares() -> None:
    assert quantiles([float(x) for x in range(100)], 4) == (12.0, 37.0, 62.0, 87.0)


def test_the_tables_are_sorted_and_the_halves_agree_on_the_idle_share() -> None:
    assert list(TURN_GAPS) == sorted(TURN_GAPS) and len(TURN_GAPS) == 40
    assert list(DEFAULT_TURN_GAPS) == sorted(DEFAULT_TURN_GAPS) and len(DEFAULT_TURN_GAPS) == 10
    # Both halves put about a fifth of the gaps past the 5-minute TTL.
    for table in (TURN_GAPS, DEFAULT_TURN_GAPS):
        share = sum(1 for g in table if g > 300) / len(table)
        assert 0.15 <= share <= 0.3


def test_the_command_prints_both_halves_and_a_bad_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text(
        "\n".join(json.dumps(r) for r in [_req(0, 1100, [0, 1, 2]), _req(90, 1700, [0, 1, 3, 4])])
    )
    assert main([str(trace)]) == 0
    out = capsys.readouterr().out
    assert "development half (even conversations): 1 turn gaps" in out
    assert main([str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing.jsonl" in err[0]
