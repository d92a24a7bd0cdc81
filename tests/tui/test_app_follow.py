"""The view keeps following new output after the user scrolls back to the end or closes a
dialog."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from prefixlock.tui.app import ChatApp
from prefixlock.tui.screens import HelpScreen
from tests.helpers.tui_drive import AppFactory, say, still, wait_for_screen


async def say_and_look(app: ChatApp, pilot: Pilot[None], text: str, answer: str = "y") -> None:
    """A turn, then the screen once it stops moving: the scroll position is what is checked,
    and the anchored scroll follows the turn's last layout pass."""
    await say(app, pilot, text, answer=answer)
    await still(app, pilot)


@pytest.mark.slow  # seconds of a Pilot session: CI runs it in its slow step
async def test_the_view_follows_after_scrolling_back_and_after_a_dialog(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await say(app, pilot, "look around")
        await still(app, pilot)
        conv = app.conversation
        assert conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y
        # The user reads back (wheel), then returns to the end.
        conv.focus()
        await pilot.press("pageup")
        await pilot.pause()
        assert conv.scroll_y < conv.max_scroll_y
        await pilot.press("end")
        await still(app, pilot)
        await say_and_look(app, pilot, "look around")
        assert conv.scroll_y == conv.max_scroll_y
        # With the wheel: up a few notches, then down past the end (the last notches move
        # nothing; each still released the anchor, and the view stopped following).
        for _ in range(3):
            conv._scroll_up_for_pointer(animate=False)
        await pilot.pause()
        assert conv.scroll_y < conv.max_scroll_y
        for _ in range(40):
            conv._scroll_down_for_pointer(animate=False)
        await still(app, pilot)
        await say_and_look(app, pilot, "look around")
        assert conv.scroll_y == conv.max_scroll_y
        # A dialog opened and closed.
        await pilot.press("f1")
        await wait_for_screen(app, pilot, HelpScreen)
        await pilot.press("escape")
        await say_and_look(app, pilot, "look around")
        assert conv.scroll_y == conv.max_scroll_y


async def test_the_view_follows_after_page_down_at_the_end(make_app: AppFactory) -> None:
    """Page Down (or a wheel notch down) when the view is already at the end moves nothing
    but released Textual's anchor, and no later scroll re-anchored it: new output then
    arrived below the screen."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(2):
            await say(app, pilot, "look around")
        await still(app, pilot)
        conv = app.conversation
        assert conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y
        await pilot.press("pageup")
        await pilot.press("pagedown", "pagedown")  # back to the end, then once more
        await still(app, pilot)
        assert conv.scroll_y == conv.max_scroll_y
        await say_and_look(app, pilot, "look around")
        assert conv.scroll_y == conv.max_scroll_y
        conv._scroll_down_for_pointer(animate=False)  # a wheel notch at the end
        await say_and_look(app, pilot, "look around")
        assert conv.scroll_y == conv.max_scroll_y
        # Reading back is left alone: new output does not pull the view down.
        await pilot.press("pageup")
        await still(app, pilot)
        where = conv.scroll_y
        assert where < conv.max_scroll_y
        await say_and_look(app, pilot, "look around")
        assert conv.scroll_y == where < conv.max_scroll_y


@pytest.mark.slow  # seconds of a Pilot session: CI runs it in its slow step
async def test_the_view_follows_after_an_approval_dialog_mid_turn(make_app: AppFactory) -> None:
    """Output streamed while the approval dialog covered the conversation, and what the turn
    wrote after the answer, end in view."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await say(app, pilot, "look around")
        await still(app, pilot)
        conv = app.conversation
        for answer in ("y", "n"):
            await say_and_look(app, pilot, "write a note", answer=answer)
            assert conv.scroll_y == conv.max_scroll_y > 0
            await say_and_look(app, pilot, "look around")
            assert conv.scroll_y == conv.max_scroll_y


@pytest.mark.slow  # seconds of a Pilot session: CI runs it in its slow step
async def test_the_view_follows_after_ctrl_r(make_app: AppFactory) -> None:
    """Ctrl+R unfolds (and folds) every tool entry; the view at the end once stopped
    following the replies after it."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await say(app, pilot, "look around")
        await still(app, pilot)
        conv = app.conversation
        assert conv.scroll_y == conv.max_scroll_y
        for _ in range(2):  # unfold, then fold again
            await pilot.press("ctrl+r")
            await still(app, pilot)
            await say_and_look(app, pilot, "look around")
            assert conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y
