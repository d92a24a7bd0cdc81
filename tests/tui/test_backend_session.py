"""A chat session's figures and lifecycle on its backend: the cache panel's numbers are the
session ledger's (across a resume, with subagents and keep-alive pings counted apart), a
resumed session reads the cache it left, keeps its stored model until the user takes the
priced switch, and says when its stored prefix differs from the chat's. (What the panel and
the dialogs show: tests/tui/test_app_*.py.)"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from prefixlock.clock import ManualClock
from prefixlock.events import UsageReport
from prefixlock.tui.backend import SYSTEM_PROMPT
from tests.helpers.backend_drive import ChatOpener
from tests.helpers.stored_chat import store_chat_session


async def test_the_panel_is_the_ledger_across_a_resume(
    open_chat: ChatOpener, workspace: Path, clock: ManualClock
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        await chat.say("hello")
        await chat.say("look around")
        await chat.say("add a note")
        assert (workspace / "NOTES.md").read_text().startswith("# Notes")

        ledger = backend.session.ledger
        view = backend.panel_view()
        assert view.hit_rate == ledger.hit_rate
        assert view.cost_main == ledger.cost
        assert view.saved == ledger.saved
        # The write stopped the turn for approval (the SDK's deferred call) and the answer
        # came on its resume: one request each.
        assert [t.requests for t in backend.state.turns[-2:]] == [1, 1]
        n_last = backend.state.turns[-1].requests
        last_turn = list(ledger.rows)[-n_last:]
        assert view.last_read == sum(r.usage.cache_read for r in last_turn)

        # A task run in a subagent on another model (the switch dialog's "subagent"): the
        # main session keeps its model and prefix, the subagent's dollars count apart.
        fp = backend.session.prefix.fingerprint
        async for ev in backend.delegate(
            "find the TODO notes", agent="explorer", model="claude-haiku-4-5"
        ):
            backend.observe(ev)
        assert backend.session.model == "claude-sonnet-4-6"
        assert backend.session.prefix.fingerprint == fp
        assert backend.panel_view().cost_sub > Decimal(0)
        session_id = backend.session_id
        first = backend.session.ledger
        first_figures = (len(first), first.hit_rate, first.cost, first.saved)
        first_view = backend.panel_view()

    # Closed and resumed 30 s later: the first resumed turn reads the cache.
    clock.advance(30)
    async with open_chat(resume=session_id) as chat:
        backend = chat.backend
        assert backend.session_id == session_id
        history = list(backend.history())
        assert ("user", "hello") in history
        # ... its tool calls folded with their results, as they were shown live
        assert ("tool", "▸ ✓ list_dir path=. → README.md (2 lines)") in history
        # The restored ledger covers the whole stored session, and the panel is exactly it.
        resumed = backend.session.ledger
        assert (len(resumed), resumed.hit_rate, resumed.cost, resumed.saved) == first_figures
        view2 = backend.panel_view()
        assert (view2.requests, view2.hit_rate, view2.cost_main, view2.saved) == first_figures
        assert view2.cost_sub == resumed.subagents.cost  # as restored (if the store keeps it)
        assert view2.sparkline == first_view.sparkline  # the stored turns, one bar each
        assert (view2.last_read, view2.last_written, view2.last_uncached) == (
            first_view.last_read,
            first_view.last_written,
            first_view.last_uncached,
        )
        assert view2.warm_seconds is not None and view2.warm_seconds > 0  # 30 s after closing
        reports = [ev for ev in await chat.say("hello") if isinstance(ev, UsageReport)]
        assert reports and reports[0].usage.cache_read > 1000
        assert reports[0].usage.cache_read >= reports[0].usage.input_total * 0.8
        # After the resumed turn the panel is still the ledger, which now holds both runs.
        after = backend.session.ledger
        view3 = backend.panel_view()
        assert len(after) == first_figures[0] + len(reports)
        assert (view3.requests, view3.hit_rate, view3.cost_main, view3.saved) == (
            len(after),
            after.hit_rate,
            after.cost,
            after.saved,
        )
        assert len(view3.sparkline) == len(first_view.sparkline) + 1


async def test_keepalive_pings_keep_an_idle_cache_warm_and_count_apart(
    open_chat: ChatOpener, clock: ManualClock
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        await chat.say("hello")
        assert "keep-alive on" in await backend.set_keepalive(True)
        assert backend.session.pings.keepalive is not None
        pinged = 0
        for _ in range(4):  # 4 x 4m40s idle: past the 5-minute TTL several times over
            clock.advance(280)
            pinged += len(await backend.keepalive_tick())
        assert pinged >= 3
        view = backend.panel_view()
        assert view.warm_seconds is not None and view.warm_seconds > 0 and view.keepalive
        await chat.say("hello")  # after 18+ idle minutes the turn still reads the cache
        assert backend.state.turns[-1].usage.cache_read > 1000
        # The pings are requests of the session: the panel's requests and dollars are the
        # ledger's with them. But a ping reads the cache only to keep it warm: it is neither
        # a hit nor a saving, and its cost comes off the savings.
        ledger = backend.session.ledger
        pings = [r for r in ledger.rows if r.meta.get("kind") == "ping"]
        own = [r for r in ledger.rows if r.meta.get("kind") != "ping"]
        view = backend.panel_view()
        assert len(pings) >= 3
        assert view.requests == len(ledger) == backend.state.requests + len(pings)
        assert view.cost_main == ledger.cost
        read = sum(r.usage.cache_read for r in own)
        assert view.hit_rate == read / sum(r.usage.input_total for r in own)
        assert view.hit_rate < ledger.hit_rate  # the pings' reads no longer inflate it
        ping_cost = sum((r.cost for r in pings if r.cost is not None), Decimal(0))
        assert ping_cost > 0
        assert (
            view.saved == sum((r.saved for r in own if r.saved is not None), Decimal(0)) - ping_cost
        )
        assert ledger.saved is not None and view.saved < ledger.saved
        assert await backend.set_keepalive(False) == "keep-alive off"
        assert backend.session.pings.keepalive is None
        clock.advance(280)
        assert await backend.keepalive_tick() == []


async def test_resume_keeps_the_stored_model_until_the_priced_switch(
    open_chat: ChatOpener, clock: ManualClock
) -> None:
    """`chat --resume ID --model M`: the session resumes on its stored model and M is the
    switch to offer (with its quote, the cache being warm); the alias of the stored model is
    that model, nothing to offer."""
    async with open_chat() as chat:
        await chat.say("hello")
        session_id = chat.backend.session_id
        fp = chat.backend.session.prefix.fingerprint
    clock.advance(30)  # the cache is still warm: the switch has a price
    async with open_chat(
        resume=session_id, model="claude-haiku-4-5", switch_to="claude-haiku-4-5"
    ) as chat:
        backend = chat.backend
        assert backend.session.model == "claude-sonnet-4-6"  # not before the user's choice
        assert backend.pending_switch() == "claude-haiku-4-5"
        quote = backend.quote_switch("claude-haiku-4-5")
        assert quote.warns and quote.tokens_rebilled > 0
        assert backend.session.prefix.fingerprint == fp
        await backend.switch_model("claude-haiku-4-5", quote)
        assert backend.session.model == backend.model == "claude-haiku-4-5"
    async with open_chat(resume=session_id, model="haiku", switch_to="haiku") as chat:
        assert chat.backend.session.model == "claude-haiku-4-5"
        assert chat.backend.pending_switch() is None


async def test_a_resumed_session_says_when_its_stored_prefix_differs(
    open_chat: ChatOpener, tmp_path: Path, workspace: Path, chat_emulator: Any, clock: ManualClock
) -> None:
    async with open_chat(session_id="chat-made") as chat:
        await chat.say("hello")
    async with open_chat(resume="chat-made") as chat:
        assert not chat.backend.session.resumed_prefix_differs
        assert chat.backend.resumed_prefix_note() is None
    sid = await store_chat_session(
        tmp_path / "sessions.sqlite",
        workspace,
        chat_emulator.base_url,
        clock,
        1,
        session_id="older-prompt",
        system=SYSTEM_PROMPT + " (an older version of the prompt)",
    )
    async with open_chat(resume=sid) as chat:
        assert chat.backend.session.resumed_prefix_differs
        note = chat.backend.resumed_prefix_note()
        assert note is not None and "resumes on its stored prefix" in note
        assert "prefix differs" in note and "cached tokens" in note


async def test_a_resume_on_a_fresh_built_in_emulator_blames_the_restart_not_the_provider(
    chat_options: Any, clock: ManualClock
) -> None:
    """Offline, the chat starts its own emulator, so a chat quit and resumed finds an empty
    cache: the first resumed turn's miss is named `restart` (ours), never `unexplained`
    ("evicted or routed elsewhere on the provider's side")."""
    import dataclasses

    from tests.helpers.backend_drive import started

    options = dataclasses.replace(chat_options(), emulator=None)  # the chat's own emulator
    async with started(options) as chat:
        await chat.say("hello")
        await chat.say("look around")
        session_id = chat.backend.session_id
    clock.advance(30)
    resumed = dataclasses.replace(chat_options(resume=session_id), emulator=None)
    async with started(resumed) as chat:
        assert chat.backend.emulator is not None
        await chat.say("hello")
        breaks = chat.backend.session.tracker.guard.breaks
        assert [b.cause for b in breaks] == ["restart"], breaks
        assert "built-in emulator started empty" in breaks[0].detail
        await chat.say("look around")  # the next turn reads what the first wrote
        assert [b.cause for b in chat.backend.session.tracker.guard.breaks] == ["restart"]
