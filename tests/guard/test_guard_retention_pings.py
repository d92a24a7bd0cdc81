"""On an OpenAI model the default session asks for the day-long retention
(`prompt_cache_retention="24h"`, `TurnEndRunner.keep_for_a_day`), which keeps the cache through
every gap under a day. The turn-end plan prices gaps with that lifetime, not the model's
10-minute in-memory one: a user whose gaps run past 10 minutes gets no keep-alive pings (each
would bill a read and output for nothing), and the guard predicts the turn after such a gap to
read the conversation, as it does."""

from __future__ import annotations

from prefixlock.billing.prices import PriceTable
from prefixlock.guard.turn_end import plan_turn_end
from tests.helpers.guardkit import agent, idle, start_emulator, turn

GPT5 = PriceTable.default().require("gpt-5")
LONG_GAPS = [900.0, 1_500.0, 2_400.0]  # past the 600-s in-memory TTL


def test_the_plan_prices_gaps_with_the_retention_asked_for() -> None:
    in_memory = plan_turn_end(LONG_GAPS, context_tokens=30_000, answer_tokens=200, price=GPT5)
    assert in_memory.mode == "pings"  # past 10 minutes the in-memory cache is lost
    day = plan_turn_end(
        LONG_GAPS, context_tokens=30_000, answer_tokens=200, price=GPT5, ttl=86_400.0
    )
    assert day.mode == "off" and day.expected["off"] == 0


async def test_a_default_openai_session_sends_no_pings_through_long_gaps() -> None:
    with start_emulator() as emu:
        a = agent(emu, model="gpt-5")
        async with a.session() as s:
            assert s.state.settings.retention == "24h"
            for i, gap in enumerate(LONG_GAPS):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                await idle(s, gap)
            await turn(s, "Turn 9: look at src/app.py and tell me what f9 does.")
            rows = list(s.ledger.rows)
    assert [r for r in rows if r.meta.get("kind") == "ping"] == []
    # The first request of the last turn, 40 minutes after the one before it, reads the
    # conversation the retention kept, and the guard, which models that retention, predicted it
    # (with the in-memory 10 minutes it predicted nothing: a cold history, an early compaction).
    first = [r for r in rows if r.meta.get("kind") is None][-2]
    assert first.usage.cache_read > 1_024
    assert first.predicted_read == first.usage.cache_read
