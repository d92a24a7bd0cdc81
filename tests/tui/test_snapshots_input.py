"""SVG snapshots of the multi-line prompt, the completion list and the model picker at 80x24
and 120x40 (deterministic as in test_snapshots.py: ManualClock, fixed session id, scripted
model, no cursor blink). Regenerate after an intended change of the look:
`pytest tests/tui/test_snapshots_input.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from prefixlock.tui.model_picker import ModelPickerScreen
from prefixlock.tui.prompt_input import PromptInput
from tests.helpers.tui_drive import AppFactory, open_dialog, say, settle, still, type_keys

SIZES = [(80, 24), (120, 40)]


async def _multiline(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await say(app, pilot, "hello")
    app.query_one("#prompt", PromptInput).focus()
    await type_keys(pilot, *"Fix the failing test", "ctrl+j", *"in src/app.py", "ctrl+j")
    await type_keys(pilot, *"and explain why")
    await still(app, pilot)


async def _completion(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await settle(app, pilot)
    app.query_one("#prompt", PromptInput).focus()
    await type_keys(pilot, "/", "c")
    await still(app, pilot)


async def _mention(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await settle(app, pilot)
    prompt = app.query_one("#prompt", PromptInput)
    prompt.focus()
    await type_keys(pilot, *"explain @s")
    await prompt.files_listed()
    await still(app, pilot)


async def _picker(pilot: Pilot[None]) -> None:
    app: Any = pilot.app
    await say(app, pilot, "hello")
    await open_dialog(app, pilot, "/model", ModelPickerScreen)
    await still(app, pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_multiline_prompt(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_multiline)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_command_completion(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_completion)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_file_completion(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_mention)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_model_picker(snap_compare: Any, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_picker)
