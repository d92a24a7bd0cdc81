"""The delegation advisor's figures, checked against arithmetic done by hand in the comments."""

from __future__ import annotations

from decimal import Decimal

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.guard.economics import ParentState, SubagentPlan, TaskProfile, advise

PRICES = PriceTable.default()
OPUS = PRICES.require("claude-opus-4-7")  # in 5, write 6.25, read 0.50, out 25 ($/M)
SONNET = PRICES.require("claude-sonnet-4-6")  # in 3, write 3.75, read 0.30, out 15
HAIKU = PRICES.require("haiku")  # in 1, write 1.25, read 0.10, out 5

PARENT = ParentState(
    "claude-opus-4-7", OPUS, context_tokens=100_000, ttl_left_seconds=300, later_turns=10
)
SUB = SubagentPlan("claude-sonnet-4-6", SONNET, prefix_tokens=3_000)


def task(context: int) -> TaskProfile:
    # 3 turns, 9,000 new tokens, 1,500 output tokens, a 400-token summary, 60 s.
    return TaskProfile(
        context_tokens=context,
        new_tokens=9_000,
        turns=3,
        output_tokens=1_500,
        summary_tokens=400,
        duration_seconds=60,
    )


def M(x: str) -> Decimal:
    return Decimal(x) / Decimal(1_000_000)


# In the parent, the same for both tasks (the parent already holds all of its context):
#   reads  3 x 100,000 + (9,000 + 1,500) x (3 - 1) / 2 = 310,500 x 0.50 = 155,250 /M
#   writes 9,000 x 6.25                                               =  56,250 /M
#   output 1,500 x 25                                                 =  37,500 /M
#   later  10 turns x 10,500 x 0.50                                   =  52,500 /M
#   total                                                               301,500 /M = $0.3015
PARENT_COST = M("301500")


def test_against_delegating_a_task_that_needs_80_percent() -> None:
    a = advise(PARENT, task(80_000), SUB)
    # Subagent: S0 = 3,000 + 80,000 = 83,000
    #   reads  2 x 83,000 + 10,500 = 176,500 x 0.30 =  52,950 /M
    #   writes 83,000 + 9,000 = 92,000 x 3.75       = 345,000 /M
    #   output 1,500 x 15                           =  22,500 /M
    #   summary 400 x 6.25 + 10 x 400 x 0.50        =   4,500 /M
    #   total                                         424,950 /M
    assert a.parent_cost == PARENT_COST
    assert a.subagent_cost == M("424950")
    assert a.difference == M("301500") - M("424950")
    assert not a.recommend
    assert "keep it in the parent" in a.reason
    # Break-even: slope 3.75 + 2 x 0.30 = 4.35 /M per context token;
    #   K = 80,000 + (301,500 - 424,950) / 4.35 = 80,000 - 28,379.3 -> 51,620
    assert a.break_even_context_tokens == 51_620
    assert a.break_even_fraction == pytest.approx(0.5162)


def test_for_delegating_a_task_that_needs_5_percent() -> None:
    a = advise(PARENT, task(5_000), SUB)
    # Subagent: S0 = 8,000
    #   reads  2 x 8,000 + 10,500 = 26,500 x 0.30 =  7,950 /M
    #   writes 8,000 + 9,000 = 17,000 x 3.75      = 63,750 /M
    #   output 22,500 /M, summary 4,500 /M        -> 98,700 /M
    assert a.subagent_cost == M("98700")
    assert a.difference == M("202800")
    assert a.recommend
    assert a.reason.startswith("delegate to claude-sonnet-4-6")
    assert "$0.0987" in a.reason and "$0.3015" in a.reason
    # The break-even does not depend on how much context this task needs.
    assert a.break_even_context_tokens == 51_620


def test_subagent_outliving_the_parent_ttl_pays_the_parent_rewrite() -> None:
    slow = TaskProfile(5_000, 9_000, 3, 1_500, 400, duration_seconds=400)
    a = advise(PARENT, slow, SUB)
    # 100,000 x (6.25 - 0.50) = 575,000 /M on top of 98,700 /M
    assert a.subagent_items["parent cache re-write"] == M("575000")
    assert a.subagent_cost == M("673700")
    assert not a.recommend
    assert "past the parent's 300s of TTL" in a.reason


def test_cold_parent_pays_the_rewrite_either_way() -> None:
    cold = ParentState("claude-opus-4-7", OPUS, 100_000, ttl_left_seconds=0, later_turns=10)
    warm_a = advise(PARENT, task(5_000), SUB)
    cold_a = advise(cold, task(5_000), SUB)
    # Both sides grow by 100,000 x (6.25 - 0.50) = 575,000 /M: the difference is unchanged.
    assert cold_a.parent_cost == warm_a.parent_cost + M("575000")
    assert cold_a.subagent_cost == warm_a.subagent_cost + M("575000")
    assert cold_a.difference == warm_a.difference


def test_warm_sibling_prefix_is_read_not_written() -> None:
    warm = SubagentPlan("claude-haiku-4-5", HAIKU, prefix_tokens=20_000, prefix_warm=True)
    coldp = SubagentPlan("claude-haiku-4-5", HAIKU, prefix_tokens=20_000)
    a, b = advise(PARENT, task(0), warm), advise(PARENT, task(0), coldp)
    # 20,000 tokens move from writes (1.25) to reads (0.10): 20,000 x 1.15 = 23,000 /M cheaper.
    assert b.subagent_cost - a.subagent_cost == M("23000")


def test_start_below_the_cache_minimum_is_billed_uncached() -> None:
    # haiku caches nothing under 4,096 tokens. Prefix 1,000 + context 2,000 = 3,000: the start
    # is sent uncached on each of the 3 turns.
    small = SubagentPlan("claude-haiku-4-5", HAIKU, prefix_tokens=1_000)
    a = advise(PARENT, task(2_000), small)
    #   uncached 3 x 3,000 x 1.00            = 9,000 /M
    #   reads    10,500 x 0.10 (growth only) = 1,050 /M
    #   writes   9,000 x 1.25 (new tokens)   = 11,250 /M
    #   output   1,500 x 5 = 7,500 /M; summary 4,500 /M        -> 33,300 /M
    assert a.subagent_items["uncached start (below the cache minimum)"] == M("9000")
    assert a.subagent_cost == M("33300")
    # Break-even, in the cached regime: at K = 3,096 the start is 4,096 and cached:
    #   reads 10,500 + 2 x 4,096 = 18,692 x 0.10 = 1,869.2; writes 13,096 x 1.25 = 16,370
    #   + 7,500 + 4,500 = 30,239.2 /M; slope 1.25 + 2 x 0.10 = 1.45 /M per token
    #   K = 3,096 + (301,500 - 30,239.2) / 1.45 = 190,172.4 -> 190,172
    assert a.break_even_context_tokens == 190_172


def test_a_break_even_past_the_whole_context_is_said_plainly() -> None:
    # On haiku (in 1, write 1.25, read 0.10, out 5) the 80% task still pays: S0 = 83,000
    #   reads  176,500 x 0.10 = 17,650; writes 92,000 x 1.25 = 115,000; output 1,500 x 5
    #   = 7,500; summary 4,500 -> 144,650 /M, under the parent's 301,500 /M.
    #   Break-even: slope 1.25 + 2 x 0.10 = 1.45 /M; K = 80,000 + 156,850 / 1.45 -> 188,172,
    #   more than the parent's 100,000 tokens of context.
    a = advise(PARENT, task(80_000), SubagentPlan("claude-haiku-4-5", HAIKU, prefix_tokens=3_000))
    assert a.subagent_cost == M("144650") and a.recommend
    assert a.break_even_context_tokens == 188_172
    assert a.break_even_fraction is not None and a.break_even_fraction > 1
    assert a.reason.endswith(
        "delegating pays even if the task needs all of the parent's context "
        "(break-even 188,172 tokens)"
    )
    assert "188%" not in a.reason
