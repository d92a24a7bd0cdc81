"""Should a side task run in a subagent? The delegation advisor's figures for two tasks.

Pure arithmetic (prefixlock.guard.economics), no provider needed. A parent on claude-opus-4-7
with 100K tokens of warm context considers handing a 3-turn task to a subagent on
claude-sonnet-4-6: one task needs 80% of the parent's context, the other 5%.
"""

from __future__ import annotations

from prefixlock.agents import ParentState, SubagentPlan, TaskProfile, advise
from prefixlock.billing.prices import PriceTable


def main() -> None:
    prices = PriceTable.default()
    parent = ParentState(
        "claude-opus-4-7",
        prices.require("claude-opus-4-7"),
        context_tokens=100_000,
        ttl_left_seconds=300,
        later_turns=10,
    )
    sonnet = prices.require("claude-sonnet-4-6")
    sub = SubagentPlan("claude-sonnet-4-6", sonnet, prefix_tokens=3_000)
    for share in (0.80, 0.05):
        task = TaskProfile(
            context_tokens=int(100_000 * share),
            new_tokens=9_000,
            turns=3,
            output_tokens=1_500,
            summary_tokens=400,
            duration_seconds=60,
        )
        a = advise(parent, task, sub)
        print(f"task needing {share:.0%} of the parent's context:")
        print(f"  in the parent  ${a.parent_cost:.4f}")
        print(f"  in a subagent  ${a.subagent_cost:.4f}")
        print(f"  break-even     {a.break_even_context_tokens:,} context tokens")
        print(f"  -> {a.reason}")
    cheap = SubagentPlan("claude-haiku-4-5", prices.require("haiku"), prefix_tokens=3_000)
    a = advise(parent, TaskProfile(80_000, 9_000, 3, 1_500, 400, 60), cheap)
    print(
        f"the 80% task on haiku instead: {'delegate' if a.recommend else 'keep'} "
        f"(${a.subagent_cost:.4f} vs ${a.parent_cost:.4f})"
    )


if __name__ == "__main__":
    main()
