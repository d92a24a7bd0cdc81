"""`/model` opens a picker with every priced model's prices, whether this session's cache is
warm on it and what a switch would re-bill (the cache guard's quote); choosing a model goes
through the priced switch dialog first."""

from __future__ import annotations

from decimal import Decimal

from textual.widgets import OptionList

from prefixlock.tui.model_picker import ModelPickerScreen, ModelRow, picker_rows, row_text
from prefixlock.tui.screens import SwitchScreen
from tests.helpers.tui_drive import (
    AppFactory,
    conversation_text,
    open_dialog,
    say,
    settle,
    wait_for_screen,
)

HAIKU, SONNET = "claude-haiku-4-5", "claude-sonnet-4-6"


async def _choose(pilot: object, picker: ModelPickerScreen, model: str) -> None:
    listing = picker.query_one("#model-list", OptionList)
    listing.highlighted = [r.model for r in picker.rows].index(model)
    await pilot.press("enter")  # type: ignore[attr-defined]


async def test_the_picker_lists_the_models_and_a_choice_goes_through_the_priced_switch(
    make_app: AppFactory,
) -> None:
    """The rows are the backend's (what they hold: tests/tui/test_backend_commands.py); a
    model chosen opens the switch dialog before anything changes; escape keeps the model."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        picker = await open_dialog(app, pilot, "/model", ModelPickerScreen)
        assert picker.rows == app.backend.model_rows()
        listing = picker.query_one("#model-list", OptionList)
        assert listing.option_count == len(picker.rows)
        assert str(listing.get_option_at_index(0).prompt) == str(row_text(picker.rows[0]))
        assert picker.rows[0].model == SONNET and picker.rows[0].current
        await _choose(pilot, picker, HAIKU)
        await wait_for_screen(app, pilot, SwitchScreen)  # priced before it happens
        assert app.backend.session.model == SONNET
        await pilot.press("s")
        await settle(app, pilot)
        assert app.backend.session.model == HAIKU
        await pilot.press("ctrl+o")  # the picker's key
        picker = await wait_for_screen(app, pilot, ModelPickerScreen)
        assert picker.rows[0].model == HAIKU and picker.rows[0].current
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.backend.session.model == HAIKU
        assert f"kept {HAIKU}" in conversation_text(app)


def test_rows_mark_a_model_warm_when_the_guard_predicts_a_read_there() -> None:
    from prefixlock.billing.prices import PriceTable

    class Ahead:
        read, expires_at = 1200, 1_000_240.0

    class Q:
        warns, dollars, with_action = True, Decimal("0.0123"), Ahead()

    prices = PriceTable.default()
    rows = picker_rows(prices, SONNET, 100.0, lambda m: Q(), 1_000_000.0)  # type: ignore[arg-type,return-value]
    by = {r.model: r for r in rows}
    assert by[HAIKU].warm_seconds == 240.0 and by[HAIKU].switch_dollars == Decimal("0.0123")
    assert by[SONNET].warm_seconds == 100.0 and rows[0].model == SONNET
    line = str(
        row_text(
            ModelRow(
                HAIKU, "anthropic", Decimal(1), Decimal("0.1"), Decimal(5), False, 240.0, Decimal(0)
            )
        )
    )
    assert "warm  4:00" in line and line.endswith("free")
