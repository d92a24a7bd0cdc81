"""Compaction: the summary request reads the cache; the session moves to a new prefix."""

from __future__ import annotations

import pytest

from prefixlock.cache.units import anthropic_units
from prefixlock.events import CacheBreak, PrefixChanged, SwitchWarning, UsageReport
from prefixlock.guard.quote import QuoteRequired
from tests.helpers.guardkit import advance, agent, of, run_turns, sent, start_emulator, turn


async def test_compaction_reads_the_cache_and_starts_a_new_prefix() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 10)
            old_prefix = s.prefix
            quote = s.quote_compaction()
            assert quote.action == "compact" and quote.warns
            n_sent = sent(emu)
            with pytest.raises(QuoteRequired):
                await s.compact()
            assert sent(emu) == n_sent
            events = await s.compact(quote=quote)
            summary, before = emu.requests[-1].body, emu.requests[-2].body
            new_prefix = s.prefix
            assert len(s.transcript) == 0
            after = await turn(s, "Continue: what is left to do?")
    report = of(events, UsageReport)[0]
    # Everything the last turn cached is read; only the instruction (and the reply) are new.
    prev_units = anthropic_units(before)
    units = anthropic_units(summary)
    assert [u.chain for u in units[: len(prev_units)]] == [u.chain for u in prev_units]
    assert report.usage.cache_read == prev_units[-1].end == report.predicted_read
    assert report.usage.cache_read / report.usage.input_total > 0.9
    assert not of(events, CacheBreak)
    assert of(events, SwitchWarning)[0].action == "compact"
    (changed,) = of(events, PrefixChanged)
    assert changed.reason == "compaction"
    assert changed.old_fingerprint == old_prefix.fingerprint
    assert changed.new_fingerprint == new_prefix.fingerprint != old_prefix.fingerprint
    assert "Summary of the earlier conversation" in new_prefix.system[-1]
    assert new_prefix.tools == old_prefix.tools  # the tools stay: their cache entry serves
    assert not of(after, CacheBreak)  # the planned move is not reported as a miss


async def test_compaction_into_messages_keeps_the_prefix() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            prefix = s.prefix
            events = await s.compact(policy="allow", placement="messages")
            assert s.prefix is prefix and len(s.transcript) == 2
            after = await turn(s, "Go on.")
    assert of(events, PrefixChanged)[0].reason == "compaction"
    # Same tools and system: the next request reads them from the cache.
    assert of(after, UsageReport)[0].usage.cache_read > 0


def test_sync_session_compacts() -> None:
    with start_emulator() as emu, agent(emu).sync_session() as s:
        for i in range(3):
            s.ask(f"step {i}")
        events = s.compact(policy="allow")
        assert of(events, UsageReport)[0].usage.cache_read > 0
        assert s.keepalive_tick() == []  # keep-alive is off


async def test_an_unknown_placement_is_refused_before_anything_is_sent() -> None:
    from prefixlock.errors import UserError

    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 2)
            quote = s.quote_compaction()
            n_sent, prefix, n_messages = sent(emu), s.prefix, len(s.transcript)
            with pytest.raises(UserError) as e:
                await s.compact(quote=quote, placement="sideways")  # type: ignore[arg-type]
            assert e.value.where == "placement"
            assert sent(emu) == n_sent and s.prefix is prefix
            assert len(s.transcript) == n_messages


async def test_the_summary_instruction_is_read_once_not_written() -> None:
    """The instruction follows the last breakpoint: billed as plain input, never as a cache
    write (no later request reads it: the session moves to the compacted prefix)."""
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 4)
            events = await s.compact(policy="allow")
            body = emu.requests[-1].body
    last = body["messages"][-1]
    assert last["role"] == "user"
    instruction = last["content"][-1]
    assert "Summarize this conversation" in instruction["text"]
    assert "cache_control" not in instruction
    units = anthropic_units(body)
    usage = of(events, UsageReport)[0].usage
    assert usage.uncached_input == units[-1].end - units[-2].end > 0
    assert usage.cache_read + usage.cache_write_5m == units[-2].end


async def test_a_summary_over_an_expired_cache_writes_none_of_the_history() -> None:
    """Past the TTL nothing of the history is cached; nothing reads it after the compaction
    either, so the summary request sends it as plain input (1x) instead of writing it
    (1.25x). The tools and system keep their breakpoints: the compacted prefix reads them."""
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 6)
            warm = await s.compact(policy="allow")
            warm_body = emu.requests[-1].body
            await run_turns(emu, s, 6, start=7)
            advance(emu, 3601.0)  # past the hour the policy holds the history, no keep-alive
            history = s.transcript.tokens
            quote = s.quote_compaction()
            cold = await s.compact(quote=quote)
            cold_body = emu.requests[-1].body
            after = await turn(s, "Go on.")
    # Warm: the history is read and its tail carries the breakpoint.
    assert of(warm, UsageReport)[0].usage.cache_read > 0
    assert any("cache_control" in b for m in warm_body["messages"] for b in m["content"])
    # Cold: no breakpoint in the messages; the history is billed once, at the base rate.
    assert not any("cache_control" in b for m in cold_body["messages"] for b in m["content"])
    assert "cache_control" in cold_body["system"][-1]
    usage = of(cold, UsageReport)[0].usage
    assert usage.uncached_input >= history
    units = anthropic_units(cold_body)
    last_prefix = max(u.end for u in units if u.section != "messages")
    assert usage.cache_write_5m == last_prefix and usage.cache_read == 0
    assert of(cold, UsageReport)[0].predicted_read == 0  # the guard predicted it so
    # The compacted prefix reads the tools and system the summary request wrote.
    assert of(after, UsageReport)[0].usage.cache_read >= last_prefix


async def test_a_second_compaction_replaces_the_first_summary() -> None:
    """The second summary request reads the first summary (in the system prompt) and covers
    it: the prefix holds one summary, not a growing stack of them."""
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            await s.compact(policy="allow")
            first = s.prefix.system
            await run_turns(emu, s, 3, start=4)
            await s.compact(policy="allow")
            second_request = emu.requests[-1].body
            second = s.prefix.system
    assert len(first) == len(second) == 2
    assert first[0] == second[0]
    assert first[1] in [b["text"] for b in second_request["system"]]
    assert second[1].startswith("Summary of the earlier conversation")


async def test_compacting_to_the_same_summary_again_names_no_break() -> None:
    """Compacted twice to the same summary, the session writes the same entries again: the
    provider reads what the guard had dropped as superseded. The guard takes the read as the
    entry's and names nothing; it named every later request an expiry after 0s idle (a
    `CacheBreak` a request, kept for the session's life)."""
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 2)
            for _ in range(3):
                await s.compact(policy="allow")
                await run_turns(emu, s, 14, step=1.0)
            assert s.state.compactions == 3
            assert [b.cause for b in s.tracker.guard.breaks] == []
