"""Keep-alive reads of the tools-and-system entry for a compaction ahead (docs/savings.md,
"Keeping the prefix for the compaction"): `plan_prefix_keep` reads the entry in a long gap when
the compaction is near enough that the saving, times the chance it is not written cold again
first, beats the expected reads; a default session near its threshold then compacts onto a
cached prefix instead of writing it again."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from prefixlock.billing.ledger import LedgerRow
from prefixlock.billing.prices import PriceTable
from prefixlock.guard.policy import CachePolicy
from prefixlock.guard.prefix_keep import (
    back_within_hour,
    plan_prefix_keep,
    reads_left,
    turns_to_compaction,
)
from prefixlock.guard.turn_end import DEFAULT_TURN_GAPS
from tests.helpers.guardkit import gap_session

PRICES = PriceTable.default()
SONNET = PRICES.require("claude-sonnet-4-6")
PREFIX = 22_800  # the versus suite's tools and system prompt
MODEL = "claude-sonnet-4-6"


def _plan(turns_left: float, **kw: object) -> bool:
    args: dict[str, object] = {
        "away": 270.0,
        "turns_left": turns_left,
        "prefix_tokens": PREFIX,
        "price": SONNET,
    }
    args.update(kw)
    gaps = args.pop("gaps", DEFAULT_TURN_GAPS)
    return plan_prefix_keep(gaps, **args).send  # type: ignore[arg-type]


def test_turns_to_compaction_counts_the_gap_before_the_compacting_turn() -> None:
    # Due before the turn whose requests reach the threshold: 39K and the turn's 1K.
    assert turns_to_compaction(30_000, 40_000, 1_000) == 10
    assert turns_to_compaction(40_500, 40_000, 1_000) == 1  # due before the next turn
    assert turns_to_compaction(39_500, 40_000, 1_000) == 1  # the next turn would pass it
    assert math.isinf(turns_to_compaction(30_000, 40_000, 0))  # not growing: never


def test_a_near_compaction_pays_for_the_reads_and_a_far_one_does_not() -> None:
    # With the default gaps and the default chance of a cold write (0.05 a turn), the reads
    # pay up to ten turns ahead on sonnet-4-6 and a 22.8K-token prefix.
    assert all(_plan(n) for n in (1, 2, 6, 10))
    assert not any(_plan(n) for n in (12, 20, 40))
    assert not _plan(math.inf)  # no compaction ahead (none set, or the context stopped)


def test_the_decision_weighs_the_figures_it_reports() -> None:
    near = plan_prefix_keep(
        DEFAULT_TURN_GAPS, away=270.0, turns_left=1, prefix_tokens=PREFIX, price=SONNET
    )
    read = SONNET.input_cost(PREFIX, "read")
    saving = SONNET.input_cost(PREFIX, "write_5m") - read
    assert near.send and near.saves > near.costs
    # The saving times the chance: no cold write in one turn (0.95), back within the hour
    # (three default gaps are longer than 270 s and all end within it: 4/5).
    assert near.saves == pytest.approx(saving * Decimal("0.76"), abs=Decimal("0.0001"))
    # This gap's reads (the three longer gaps need 1, 1 and 2) and no later gap.
    assert near.costs == pytest.approx(read * Decimal(4) / 3, abs=Decimal("0.0001"))


def test_a_likely_cold_write_or_a_long_absence_turns_the_reads_off() -> None:
    assert _plan(4)
    assert not _plan(4, end_rate=0.5)  # the prefix is likely written again before then
    overnight = [7_200.0] * 20  # this user's gaps all run past the hour
    assert back_within_hour(overnight, 270.0) < 0.05
    assert not _plan(1, gaps=overnight)
    assert not _plan(1, away=3_600.0)  # past the hour the history is gone too


def test_reads_left_in_a_gap_follow_the_longer_gaps() -> None:
    assert reads_left([100.0, 600.0, 900.0], 270.0, 270.0) == pytest.approx((2 + 3) / 2)
    assert reads_left([100.0], 270.0, 270.0) == 1.0  # nothing known past it: this read


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="expected gap"):
        plan_prefix_keep([], away=0.0, turns_left=1, prefix_tokens=PREFIX, price=SONNET)
    with pytest.raises(ValueError, match="end_rate"):
        _plan(1, end_rate=1.0)


# -- the default session --------------------------------------------------------------------


async def _session(threshold_turns: float, policy: CachePolicy) -> list[LedgerRow]:
    return await gap_session(MODEL, threshold_turns, policy)


def _prefix_reads(rows: list[LedgerRow]) -> list[LedgerRow]:
    return [r for r in rows if r.meta.get("keep") == "prefix"]


async def test_a_session_at_its_threshold_keeps_the_prefix_through_a_long_gap() -> None:
    rows = await _session(0.99, CachePolicy())
    reads = _prefix_reads(rows)
    # Reads at 270 and 540 s of the 600-s gap, each of the tools and system prompt alone.
    assert len(reads) == 2
    assert all(r.usage.cache_read > 1_024 and r.usage.output == 0 for r in reads)
    kinds = [str(r.meta.get("kind", "turn")) for r in rows]
    summary = rows[kinds.index("summary")]
    compacted = rows[kinds.index("summary") + 1]
    # The summary request reads the held history; the compacted context reads the kept tools
    # and system prompt and writes only the summary after them. Without the reads the entry
    # would have expired at 300 s and the compacted context would write the prefix again.
    assert summary.usage.cache_read > reads[0].usage.cache_read
    assert compacted.usage.cache_read >= reads[0].usage.cache_read
    written = compacted.usage.cache_write_5m + compacted.usage.cache_write_1h
    assert written < reads[0].usage.cache_read / 4


async def test_a_session_far_from_its_threshold_lets_the_prefix_expire() -> None:
    rows = await _session(20.0, CachePolicy())
    assert not _prefix_reads(rows)


def test_user_prompts_are_counted_as_the_transcript_grows_and_afresh_for_a_new_one() -> None:
    from prefixlock.guard.prefix_keep_runner import PrefixKeepRunner
    from prefixlock.transcript import Message, Transcript, tool_result_block

    def full(t: Transcript) -> int:
        tool = "tool_result"
        return sum(m.role == "user" and not any(b.get("type") == tool for b in m.blocks) for m in t)

    runner = PrefixKeepRunner.__new__(PrefixKeepRunner)  # the count needs none of its parts
    runner._counted = None
    t = Transcript([Message.user("a"), Message.assistant("b")])
    assert runner._prompts(t) == full(t) == 1
    t.append(Message.user([tool_result_block("t1", "out")]))
    t.append(Message.assistant("c"))
    t.append(Message.user("d"))
    assert runner._prompts(t) == full(t) == 2
    assert runner._counted is not None and runner._counted[1] == len(t)  # counted up to here
    other = t.fork(2)  # a new transcript: counted from its start
    other.append(Message.user("e"))
    assert runner._prompts(other) == full(other) == 2
