"""The default policy holds each request's last reply at 1h (docs/savings.md#held-history):
Anthropic bills the 1h mark only past the entry the request read, so the history survives a
long gap for the price of the reply's tokens at 2x, and the tool loop's tail stays at 5m."""

from __future__ import annotations

import json
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

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


async def _resumed(room: int | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Two turns, a resume 14 hours later, then turns 40 minutes apart until the session
    compacts (`compact_at` leaves `room` tokens beside the prefix; None: no compaction).
    Returns the usage of the resume's first request (a cold write) and of the first request
    on the compacted context (None if it never compacted)."""
    with start_emulator() as emu, tempfile.TemporaryDirectory() as tmp:
        prefix_tokens = 5200  # about guardkit's tools and system prompt on sonnet-4-6
        settings = Settings() if room is None else Settings(compact_at=(prefix_tokens + room) / 1e6)
        a = agent(emu, model="claude-sonnet-4-6", store=Path(tmp) / "s.db", settings=settings)
        async with a.session() as s:
            for i in range(2):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20)
            sid = s.id
        advance(emu, 14 * 3600)
        n = len(emu.requests)
        async with a.resume(sid) as s:
            await turn(s, "Back again: what about f2?")
            resumed = emu.requests[n].usage
            assert resumed is not None
            for i in range(3, 9):
                advance(emu, 40 * 60)
                await turn(s, f"Turn {i}: and f{i}?")
                if s.compactions:
                    summary = max(
                        k
                        for k, r in enumerate(emu.requests)
                        if "Summarize this conversation" in json.dumps(r.body["messages"][-1])
                    )
                    return resumed, emu.requests[summary + 1].usage
        return resumed, None


async def test_a_cold_prefix_near_the_compaction_threshold_is_written_at_one_hour() -> None:
    """A resumed session whose conversation has filled a good part of the room its
    `compact_at` leaves writes its (cold) tools and system prompt at 1h: a compaction is
    coming, and its compacted context starts with them. After 40-minute gaps the compacted
    context reads them; a 5-minute entry would have died in the first gap. Far from the
    threshold, or with no compaction set, the cold write stays at 5 minutes."""
    resumed, compacted = await _resumed(room=3000)
    prefix = resumed["cache_creation"]["ephemeral_1h_input_tokens"]
    assert 5000 < prefix < resumed["cache_creation_input_tokens"]  # tools + system; the rest 5m
    assert compacted is not None
    assert compacted["cache_read_input_tokens"] >= prefix
    assert compacted["cache_creation_input_tokens"] < 200  # only the summary is written
    for room in (None, 100_000):
        resumed, compacted = await _resumed(room=room)
        assert resumed["cache_creation"]["ephemeral_1h_input_tokens"] == 0
        assert compacted is None


async def test_a_compaction_due_at_a_switch_summarizes_on_the_model_that_answered() -> None:
    """The user moves to another model on a turn before which the session compacts: the
    summary request goes to the model that answered last, whose cache holds the history (a
    read), not to the new one, whose cache is cold (the whole context written, at its price);
    the turn itself runs on the new model, from the compacted context."""
    with start_emulator() as emu:
        a = agent(emu, model="claude-sonnet-4-6", settings=Settings(compact_at=6500 / 1e6))
        async with a.session() as s:
            for i in range(2):  # the second turn's last request passes 6,500 tokens
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
