"""A resumed session's history: the newest entries at once, earlier ones as the user scrolls up."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from prefixlock.clock import ManualClock
from prefixlock.tui.app import HISTORY_BATCH, ChatApp
from prefixlock.tui.widgets import EarlierEntries
from tests.helpers.stored_chat import store_chat_session
from tests.helpers.tui_drive import AppFactory, ready, still, until

Stored = Callable[[int], Awaitable[str]]


@pytest.fixture
def stored(
    tmp_path: Path, workspace: Path, chat_emulator: Any, clock: ManualClock
) -> Callable[[int], Awaitable[str]]:
    """Make a stored session of n scripted turns, in the store the app opens; its id."""

    def make(turns: int) -> Awaitable[str]:
        return store_chat_session(
            tmp_path / "sessions.sqlite", workspace, chat_emulator.base_url, clock, turns
        )

    return make


Resumed = Callable[[int], AbstractAsyncContextManager[tuple[ChatApp, Pilot[None]]]]


@pytest.fixture
def resumed(make_app: AppFactory, stored: Stored) -> Resumed:
    """Store a session of n turns, open the chat on it, and wait until it is open."""

    @contextlib.asynccontextmanager
    async def open_app(turns: int) -> AsyncIterator[tuple[ChatApp, Pilot[None]]]:
        app = make_app(resume=await stored(turns))
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(app, pilot)
            await still(app, pilot)  # the batches mounted to fill the screen, laid out
            yield app, pilot

    return open_app


def _entries(app: ChatApp) -> list[Any]:
    """The history entries on screen, top to bottom (not the app's own notes)."""
    return [
        w
        for w in app.conversation.children
        if not isinstance(w, EarlierEntries) and "offline" not in str(w.render())
    ]


def _line(app: ChatApp) -> EarlierEntries | None:
    found = list(app.query(EarlierEntries))
    return found[0] if found else None


async def test_a_long_session_shows_its_newest_entries_and_the_rest_on_scrolling_up(
    resumed: Resumed,
) -> None:
    async with resumed(20) as (app, pilot):
        session = app.backend.session
        assert session is not None and not session.resumed_prefix_differs  # the chat's prefix
        history = list(app.backend.history())
        assert len(history) > 3 * HISTORY_BATCH
        # Opened with the newest batch only, and a line that counts the others.
        assert len(_entries(app)) == HISTORY_BATCH
        line = _line(app)
        assert line is not None and app.conversation.children[0] is line
        assert f"({len(history) - HISTORY_BATCH} earlier entries" in str(line.render())
        assert app.conversation.max_scroll_y > 0  # a screen's worth: nothing filled it up

        # Scrolling to the top shows the next batch above, and the view stays on the entry
        # that was at the top instead of jumping to the oldest one.
        was_top = _entries(app)[0]
        app.conversation.scroll_home(animate=False)
        # The batch is mounted, laid out, then the view is put back on `was_top` after a
        # refresh: on a loaded machine that can take more than two pauses.
        await until(
            lambda: len(_entries(app)) == 2 * HISTORY_BATCH and app.conversation.scroll_y > 0,
            "the next batch, and the view back on its entry",
            5.0,
        )
        await still(app, pilot)
        assert len(_entries(app)) == 2 * HISTORY_BATCH
        assert _entries(app)[HISTORY_BATCH] is was_top
        assert app.conversation.scroll_y == was_top.virtual_region.y > 0
        assert f"({len(history) - 2 * HISTORY_BATCH} earlier entries" in str(line.render())

        # Each time the user comes back to the top, a batch more; at the end the line goes
        # and all are shown, in order. Page Up works from the prompt, without a focus change.
        assert app.focused is app.query_one("#prompt")
        while _line(app) is not None:
            await pilot.press("pageup")
            await pilot.pause()
            await pilot.pause()
        assert app.focused is app.query_one("#prompt")
        shown = _entries(app)
        assert len(shown) == len(history)
        assert [type(w).__name__ for w in shown][-2:] == ["UserMessage", "AssistantMessage"]
        assert history[0][1] in str(shown[0].render())


async def test_cleared_history_does_not_come_back_by_scrolling(resumed: Resumed) -> None:
    async with resumed(12) as (app, pilot):
        assert _line(app) is not None
        await pilot.press("ctrl+l")
        await pilot.pause()
        app.conversation.post_message(app.conversation.ReachedTop())
        await pilot.pause()
        assert list(app.conversation.children) == []


async def test_a_short_session_shows_everything_without_a_line(resumed: Resumed) -> None:
    async with resumed(2) as (app, _):
        assert _line(app) is None
        assert len(_entries(app)) == len(list(app.backend.history()))


async def test_the_app_that_owns_its_process_freezes_what_it_loaded(
    make_app: AppFactory, stored: Stored
) -> None:
    """`prefixlock chat` keeps the libraries and the resumed session out of the collector's
    full passes (they cost a long session's opening a quarter second and more); an app embedded
    in another program leaves that program's collector alone."""
    import gc

    sid = await stored(2)
    frozen_by_the_run = gc.get_freeze_count() > 0  # tests/conftest.py freezes after collection
    gc.unfreeze()
    embedded = make_app(resume=sid)
    async with embedded.run_test(size=(120, 40)) as pilot:
        await ready(embedded, pilot)
        assert gc.get_freeze_count() == 0
    owner = make_app(resume=sid)
    owner.freeze_heap = True  # as prefixlock.tui.cli runs it
    try:
        async with owner.run_test(size=(120, 40)) as pilot:
            await ready(owner, pilot)
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if frozen_by_the_run:
            gc.freeze()
