"""A tool added mid-session is priced first; declined, nothing is sent and nothing changes."""

from __future__ import annotations

import pytest

from prefixlock.events import CacheBreak, PrefixChanged, SwitchWarning
from prefixlock.guard.quote import QuoteRequired, StaleQuote
from tests.helpers.guardkit import agent, grep, of, run_turns, sent, start_emulator, turn


async def test_added_tool_is_priced_and_declining_sends_nothing() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 5)
            n_sent = sent(emu)
            old = s.prefix
            quote = s.quote_tools(add=[grep])
            assert quote.action == "change_tools" and quote.warns
            # The tools come first in the cache: a new tool re-bills the whole context.
            assert quote.tokens_rebilled == s.guard.last_cached_tokens
            assert quote.dollars is not None and quote.dollars > 0
            with pytest.raises(QuoteRequired):
                s.change_tools(add=[grep])
            # Declined: nothing sent, the prefix is untouched.
            assert sent(emu) == n_sent and s.prefix is old
            # Accepted later with a quote made for this state.
            await turn(s, "one more question")
            with pytest.raises(StaleQuote):
                s.change_tools(add=[grep], quote=quote)
            fresh = s.quote_tools(add=[grep])
            s.change_tools(add=[grep], quote=fresh)
            assert "grep" in s.prefix.tool_names()
            events = await turn(s, "now with grep")
    assert of(events, SwitchWarning)[0].quote is fresh
    assert of(events, PrefixChanged)[0].reason == "tools"
    (brk,) = of(events, CacheBreak)
    assert brk.cause == "tools" and brk.tokens_rebilled == fresh.tokens_rebilled
