"""SVG snapshots of the main screen, the switch dialog and the help screen at 80x24 and 120x40.

Deterministic by construction: a ManualClock (the warm countdown never drifts), a fixed session
id, the scripted emulator model, no cursor blink. Regenerate the baselines with
`pytest tests/tui/test_snapshots.py --snapshot-update` after an intended change of the look.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from prefixlock.tui.screens import SwitchScreen
from tests.helpers.tui_drive import AppFactory, open_dialog, say, settle, still

SIZES = [(80, 24), (120, 40)]


async def _conversation(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await say(app, pilot, "hello")
    await say(app, pilot, "look around")
    await still(app, pilot)


async def _switch_dialog(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await say(app, pilot, "hello")
    await open_dialog(app, pilot, "/model claude-haiku-4-5", SwitchScreen)
    await still(app, pilot)


async def _help(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await settle(app, pilot)
    await pilot.press("f1")
    await still(app, pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_conversation)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_switch_dialog(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_switch_dialog)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_screen(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_help)


async def _conversation_light(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await _conversation(pilot)
    await pilot.press("ctrl+t")
    await still(app, pilot)


def test_main_screen_light_theme(snap_compare: Any, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_conversation_light)
