"""A dialog that waits before it takes answers shows its "finish typing" line from its first
frame: a frame of the dialog without the line reads, to a user or a terminal test, as a dialog
that takes answers (the tmux tests wait for the line to go before they answer)."""

from __future__ import annotations

from textual.app import App

from prefixlock.tui.quotes import QuoteRows
from prefixlock.tui.screens import ConfirmScreen


class _Probe(ConfirmScreen):
    """Records whether the hint is there when the dialog mounts (Textual runs this handler
    before the base class's own `on_mount`)."""

    hint_at_mount: bool | None = None

    def on_mount(self) -> None:
        self.hint_at_mount = bool(self.query("#typeahead-hint"))


class _Host(App[None]):
    typeahead_grace = 30.0  # never armed by real time in the test


async def test_the_hint_is_composed_with_the_dialog_not_mounted_after() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        dialog = _Probe("Compact now?", QuoteRows(rows=(("cost", "$0.01"),)))
        app.push_screen(dialog)
        await pilot.pause()
        assert dialog.hint_at_mount is True
        assert len(dialog.query("#typeahead-hint")) == 1 and not dialog.armed


async def test_no_hint_where_the_dialog_takes_answers_at_once() -> None:
    app = _Host()
    app.typeahead_grace = 0.0
    async with app.run_test() as pilot:
        dialog = _Probe("Compact now?", QuoteRows(rows=(("cost", "$0.01"),)))
        app.push_screen(dialog)
        await pilot.pause()
        assert dialog.armed and not dialog.query("#typeahead-hint")
