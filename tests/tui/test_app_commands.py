"""Slash commands, keys and the panel's live figures on screen, on the emulator: what each
command shows, its dialog and the keys that answer it. (What the commands compute, on the
backend: tests/tui/test_backend_commands.py and test_backend_session.py.)"""

from __future__ import annotations

import re
from typing import Any

from textual.command import CommandList, CommandPalette

from prefixlock.clock import ManualClock
from prefixlock.tui.screens import ConfirmScreen, SwitchScreen
from prefixlock.tui.widgets import CachePanel, ToolEntry
from tests.helpers.backend_drive import ChatOpener
from tests.helpers.tui_drive import (
    AppFactory,
    conversation_text,
    open_dialog,
    say,
    settle,
    still,
    until,
    wait_for_screen,
)


def panel(app: Any) -> str:
    return str(app.query_one("#cache-panel", CachePanel).render())


async def test_countdown_goes_cold_and_keepalive_toggles(
    make_app: AppFactory, clock: ManualClock
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        assert "5:00 warm" in panel(app)
        clock.advance(100)
        app.refresh_panel()
        assert "3:20 warm" in panel(app)
        clock.advance(250)
        app.refresh_panel()
        assert "cold" in panel(app)
        await say(app, pilot, "/keepalive on")
        assert "keep-alive on" in panel(app) and app.backend.session.pings.keepalive is not None
        await say(app, pilot, "/keepalive off")
        assert "keep-alive off" in panel(app) and app.backend.session.pings.keepalive is None


async def test_the_switch_dialog_cancels_or_switches_and_a_cold_cache_is_not_asked(
    make_app: AppFactory, clock: ManualClock
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        # "c" keeps the model.
        await open_dialog(app, pilot, "/model claude-haiku-4-5", SwitchScreen)
        await pilot.press("c")
        await settle(app, pilot)
        assert app.backend.session.model == "claude-sonnet-4-6"
        assert "kept claude-sonnet-4-6" in conversation_text(app)
        # "s" switches; the next turn shows the miss and its cause.
        await open_dialog(app, pilot, "/model claude-haiku-4-5", SwitchScreen)
        await pilot.press("s")
        await settle(app, pilot)
        assert app.backend.session.model == "claude-haiku-4-5"
        assert "claude-haiku-4-5" in str(app.query_one("#header").render())
        await say(app, pilot, "hello")
        assert "model" in panel(app).split("last miss")[1]
        assert "cache miss: model" in conversation_text(app)
        clock.advance(3600)  # the cache is cold: switching costs nothing extra, no dialog
        await say(app, pilot, "/model claude-sonnet-4-6")
        assert not isinstance(app.screen, SwitchScreen)
        assert app.backend.session.model == "claude-sonnet-4-6"
        assert "cache was cold" in conversation_text(app)


async def test_cost_sessions_lint_agents_and_compact(make_app: AppFactory) -> None:
    """Each command's answer is a note (what they answer: tests/tui/test_backend_commands.py);
    /compact asks first, with its price."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        await say(app, pilot, "/cost")
        assert "saved by the cache" in conversation_text(app)
        await say(app, pilot, "/sessions")
        assert "tui-test-session" in conversation_text(app)
        await say(app, pilot, "/lint")
        assert re.search(
            r"lint: (no findings|\d+ finding\(s\)) in 1 requests of this session",
            conversation_text(app),
        )
        await say(app, pilot, "/agents")
        assert "explorer" in conversation_text(app)
        await open_dialog(app, pilot, "/compact", ConfirmScreen)
        assert "tokens re-billed" in str(app.screen.query_one(".quote").render())
        await pilot.press("y")
        await settle(app, pilot)
        assert "compacted" in conversation_text(app)
        await say(app, pilot, "hello")  # the session goes on after compaction
        assert not app.busy


async def test_keys_expand_tools_toggle_theme_and_bad_commands(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await say(app, pilot, "look around")
        entries = list(app.query(ToolEntry))
        assert entries and all(e.collapsed for e in entries)
        await pilot.press("ctrl+r")
        assert not any(e.collapsed for e in entries)
        await pilot.press("ctrl+r")
        assert all(e.collapsed for e in entries)
        dark = app.current_theme.dark
        await pilot.press("ctrl+t")
        assert app.current_theme.dark != dark
        await say(app, pilot, "/modle x")
        assert "did you mean /model" in conversation_text(app)
        await say(app, pilot, "/model not-a-model-id")
        assert "/model:" in conversation_text(app)
        # An unknown session id is one line; the open session goes on.
        await say(app, pilot, "/resume no-such-session")
        assert "/resume: " in conversation_text(app) and "no-such-session" in (
            conversation_text(app)
        )
        assert app.backend.session_id == "tui-test-session"
        await say(app, pilot, "hello")
        assert app.backend.session.ledger.rows and not app.busy


async def test_keepalive_pings_while_idle_and_says_so(
    make_app: AppFactory, clock: ManualClock
) -> None:
    """The app's tick sends the ping when one is due, and each is a note; the panel stays
    warm. (What the pings cost and keep: tests/tui/test_backend_session.py.)"""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        await say(app, pilot, "/keepalive on")
        for _ in range(2):  # 2 x 4m40s idle: past the 5-minute TTL
            clock.advance(280)
            app.on_tick()
            await until(lambda: not app._pinging, "the ping")
        await pilot.pause()
        assert conversation_text(app).count("keep-alive ping: read") == 2
        assert "warm" in panel(app) and "cold" not in panel(app)


async def test_model_delegates_through_the_tool_and_user_runs_agents(
    make_app: AppFactory,
) -> None:
    from prefixlock.tui.widgets import SubagentEntry

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        fp = app.backend.session.prefix.fingerprint
        await say(app, pilot, "delegate the search")
        titles = [str(t.title) for t in app.query(ToolEntry)]
        assert any(t.split(" ", 1)[1].startswith("delegate") for t in titles)
        subs = list(app.query(SubagentEntry))
        assert subs and "explorer" in str(subs[-1].title)
        assert app.backend.panel_view().cost_sub > 0
        await say(app, pilot, "/agents summarizer summarize README.md")
        subs = list(app.query(SubagentEntry))
        assert len(subs) == 2 and "summarizer" in str(subs[-1].title)
        assert app.backend.session.prefix.fingerprint == fp
        assert "subagent" in conversation_text(app)


async def test_palette_and_resume_in_app(make_app: AppFactory, open_chat: ChatOpener) -> None:
    async with open_chat(session_id="first-session") as chat:
        await chat.say("add a note")
    app = make_app(session_id="second-session")
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        await say(app, pilot, "/resume first-session")
        assert app.backend.session_id == "first-session"
        assert "add a note" in conversation_text(app)
        assert "resumed session first-session" in conversation_text(app)
        assert "first-session" in str(app.query_one("#header").render())
        await pilot.press("ctrl+p")
        palette = await wait_for_screen(app, pilot, CommandPalette)
        await pilot.press(*"/cost")
        found = palette.query_one(CommandList)
        await until(lambda: found.option_count > 0, "the palette to find /cost")
        await pilot.press("enter")
        await settle(app, pilot)
        assert "saved by the cache" in conversation_text(app)


async def test_the_header_shows_a_long_session_id_at_80_columns(make_app: AppFactory) -> None:
    sid = "ed08bf76f7cd45e5a5d74fee095e2950"  # a generated id's length
    app = make_app(session_id=sid)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await still(app, pilot)  # what is painted is checked
        header = app.query_one("#header")
        shown = "".join(seg.text for seg in header.render_line(0))
        # The whole id, as `--resume` needs it (it used to be cut with '…').
        assert "EMULATOR" in shown and f"session {sid} · " in shown
