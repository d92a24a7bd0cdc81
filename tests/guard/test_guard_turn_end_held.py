"""The default policy holds each request's last reply at 1h (docs/savings.md#held-history):
Anthropic bills the 1h mark only past the entry the request read, so the history survives a
long gap for the price of the reply's tokens at 2x, and the tool loop's tail stays at 5m."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.errors import ConfigError
from prefixlock.events import CacheBreak, UsageReport
from prefixlock.guard.policy import CachePolicy
from prefixlock.guard.turn_end import DEFAULT_TURN_GAPS, hold_pays, plan_turn_end
from prefixlock.settings import Settings
from tests.helpers.guardkit import advance, agent, of, start_emulator, turn
from tests.helpers.marks import cache_marks

PRICES = PriceTable.default()
SONNET = PRICES.require("claude-sonnet-4-6")
HOUR_MARK = {"type": "ephemeral", "ttl": "1h"}


def test_a_held_write_pays_only_when_it_is_the_reply_alone() -> None:
    assert hold_pays(120, 130)  # the read reached the previous tail: the reply is the 1h write
    assert not hold_pays(22_000, 130)  # cold: the whole re-write would go at 2x
    assert not hold_pays(0, 130)  # nothing to write: nothing to hold


def test_held_history_leaves_too_little_for_a_one_hour_write_after_the_turn() -> None:
    nothing_held = plan_turn_end(
        DEFAULT_TURN_GAPS, context_tokens=40_000, answer_tokens=300, price=SONNET
    )
    held = plan_turn_end(
        DEFAULT_TURN_GAPS,
        context_tokens=40_000,
        answer_tokens=300,
        price=SONNET,
        held_tokens=38_500,
    )
    assert nothing_held.mode == "seal"
    assert held.mode == "off"
    assert held.expected["off"] < nothing_held.expected["off"] / 10


def test_history_ttl_must_lie_between_the_prefix_and_the_tail() -> None:
    Settings(history_ttl="1h", prefix_ttl="1h")
    with pytest.raises(ConfigError, match="history_ttl"):
        Settings(history_ttl="1h", prefix_ttl="5m")
    with pytest.raises(ConfigError, match="history_ttl"):
        Settings(history_ttl="2h")  # type: ignore[arg-type]


async def test_the_default_agent_holds_the_reply_and_a_long_gap_rewrites_only_the_tail() -> None:
    """Default Agent, no settings: every request after the first marks the model's last reply
    at 1h and bills only that reply at 1h; 40 minutes later the next turn reads the held
    history and writes again only what came after it. The same session with the policy's
    long-gap handling off re-writes everything."""
    costs: dict[str, Decimal] = {}
    for name, policy in (("default", CachePolicy()), ("off", CachePolicy(idle="off"))):
        with start_emulator() as emu:
            async with agent(emu, policy=policy).session() as s:
                for i in range(3):
                    await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                    advance(emu, 20)
                bodies = [r.body for r in emu.requests]
                rows = s.ledger.rows
                advance(emu, 40 * 60)
                events = await turn(s, "I'm back: what about f7?")
        first = of(events, UsageReport)[0].usage
        rebilled = sum(b.tokens_rebilled for b in of(events, CacheBreak))
        total = s.ledger.total_cost
        assert total is not None
        costs[name] = total
        if name == "off":
            assert all(HOUR_MARK not in cache_marks(b) for b in bodies)
            assert first.cache_read == 0 or rebilled > first.cache_read
            continue
        assert s.agent.policy == CachePolicy()
        held = [b for b in bodies[1:] if HOUR_MARK in cache_marks(b)]
        assert len(held) == len(bodies) - 1  # every request that read its predecessor
        for body, row in zip(bodies[1:], rows[1:], strict=True):
            reply = body["messages"][-2]
            assert reply["role"] == "assistant"
            assert reply["content"][-1]["cache_control"] == HOUR_MARK
            assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
            assert 0 < row.usage.cache_write_1h < 400  # the reply, not the history
        assert first.cache_read > 3 * rebilled
    assert costs["default"] < costs["off"]


async def test_a_compaction_due_at_a_switch_summarizes_on_the_model_that_answered() -> None:
    """The user moves to another model on a turn before which the session compacts: the
    summary request goes to the model that answered last, whose cache holds the history (a
    read), not to the new one, whose cache is cold (the whole context written, at its price);
    the turn itself runs on the new model, from the compacted context."""
    with start_emulator() as emu:
        a = agent(emu, model="claude-sonnet-4-6", settings=Settings(compact_at=7500 / 1e6))
        async with a.session() as s:
            # After the second turn the context (6.8K) and what a turn adds (0.8K) pass 7,500.
            for i in range(2):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20)
            assert s.compactions == 0
            n = len(emu.requests)
            s.switch_model("claude-opus-4-6", quote=s.quote_switch("claude-opus-4-6"))
            await turn(s, "One more: what about f9?")
            assert s.compactions == 1
            assert s.model == "claude-opus-4-6"
        summary, *rest = emu.requests[n:]
        assert "Summarize this conversation" in json.dumps(summary.body["messages"][-1])
        assert summary.body["model"] == "claude-sonnet-4-6"
        assert summary.usage is not None and summary.usage["cache_read_input_tokens"] > 6000
        assert rest and all(r.body["model"] == "claude-opus-4-6" for r in rest)
