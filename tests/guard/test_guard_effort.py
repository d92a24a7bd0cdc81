"""An effort change is priced: it re-keys the message level; tools and system still read."""

from __future__ import annotations

import pytest

from prefixlock.events import CacheBreak, SwitchWarning, UsageReport
from prefixlock.guard.quote import QuoteRequired
from tests.helpers.guardkit import agent, of, run_turns, start_emulator, turn


async def test_effort_change_is_quoted_and_named() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 4)
            quote = s.quote_effort(effort="high")
            assert quote.action == "change_effort" and quote.warns
            # The system prompt stays cached: only the conversation is re-billed.
            assert quote.with_action is not None and quote.with_action.read > 0
            assert quote.tokens_rebilled < s.guard.last_cached_tokens
            with pytest.raises(QuoteRequired):
                s.change_effort(effort="high")
            s.change_effort(effort="high", quote=quote)
            assert s.state.settings.effort == "high"
            events = await turn(s, "think harder about f4")
    first = of(events, UsageReport)[0]
    assert first.predicted_read == first.usage.cache_read == quote.with_action.read
    (brk,) = of(events, CacheBreak)
    assert brk.cause == "settings" and brk.tokens_rebilled == quote.tokens_rebilled
    assert of(events, SwitchWarning)[0].action == "change_effort"


async def test_a_setting_that_does_not_touch_the_cache_needs_no_quote() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 2)
            q = s.change_effort(max_tokens=2000)  # output limit: not part of the cached prefix
            assert not q.warns and s.state.settings.max_tokens == 2000
            events = await turn(s, "go on")
    assert not of(events, CacheBreak) and not of(events, SwitchWarning)
