"""The guard's predictions follow each provider's rules: OpenAI, Responses, DeepSeek, 1h TTL."""

from __future__ import annotations

import pytest

from prefixlock.events import CacheBreak, UsageReport
from prefixlock.settings import Settings
from tests.helpers.guardkit import advance, agent, of, run_turns, start_emulator, turn


@pytest.mark.parametrize(
    "model", ["gpt-5.4", "openai-responses:gpt-5.4", "deepseek-v4-flash", "gpt-5.6-terra"]
)
async def test_predictions_match_the_provider_on_an_append_only_session(model: str) -> None:
    with start_emulator() as emu:
        async with agent(emu, model=model).session() as s:
            events = []
            for i in range(6):
                events += await turn(s, f"Turn {i}: what does f{i} do?")
                advance(emu, 20)
            advance(emu, 25 * 3600)  # past every TTL, OpenAI's day-long retention included
            late = await turn(s, "Still there?")
    reports = of(events, UsageReport)
    assert sum(r.usage.cache_read for r in reports) > 0
    assert [r.predicted_read for r in reports] == [r.usage.cache_read for r in reports]
    assert not of(events, CacheBreak)
    assert [b.cause for b in of(late, CacheBreak)][:1] == ["ttl"]


async def test_one_hour_ttl_survives_a_ten_minute_pause() -> None:
    with start_emulator() as emu:
        async with agent(emu, settings=Settings(ttl="1h")).session() as s:
            await run_turns(emu, s, 3)
            advance(emu, 600)
            events = await turn(s, "back after ten minutes")
    first = of(events, UsageReport)[0]
    assert first.usage.cache_read > 0 and first.predicted_read == first.usage.cache_read
    assert not of(events, CacheBreak)
