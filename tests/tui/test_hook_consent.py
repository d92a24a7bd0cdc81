"""A repository's own hooks (its .claude/settings*.json) run in the chat only after the user
says so in a dialog: once (this session), always (kept outside the repository for exactly
these hooks) or not at all. Edited hooks are asked about again, and a repository cannot ship
an answer. (The hooks' behaviour itself: tests/tui/test_backend_hooks.py.)"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from prefixlock.coding.hooks import HookConsent, fingerprint, load_hooks
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import ChatBackend
from prefixlock.tui.hook_consent import HookConsentScreen
from tests.helpers.backend_drive import OptionsFactory, last_user_text
from tests.helpers.tui_drive import conversation_text, ready, say, wait_for_screen

HOOK = """
import json, sys
event = json.load(sys.stdin)
if event["hook_event_name"] == "UserPromptSubmit":
    print("Hook context: MARK-{n}")
"""


def _hooks(workspace: Path, tmp_path: Path, n: int = 1) -> None:
    script = tmp_path / f"hook{n}.py"
    script.write_text(HOOK.replace("{n}", str(n)))
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    group = [{"hooks": [{"type": "command", "command": command}]}]
    (workspace / ".claude").mkdir(exist_ok=True)
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": group}})
    )


def _app(options: OptionsFactory) -> ChatApp:
    # A new session each time (the fixture's fixed id would be one stored already).
    return ChatApp(ChatBackend(options(session_id=None)), blink=False, typeahead_grace=0.0)


@pytest.mark.slow  # five chats opened in turn (~4 s)
async def test_hooks_run_only_after_the_dialog_and_always_is_remembered(
    chat_options: OptionsFactory, workspace: Path, tmp_path: Path
) -> None:
    _hooks(workspace, tmp_path)
    # No: listed, not run.
    app = _app(chat_options)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await wait_for_screen(app, pilot, HookConsentScreen)
        assert "UserPromptSubmit" in dialog.hooks[0].event and not app.ready
        await pilot.press("n")
        await say(app, pilot, "hello")
        assert "MARK-1" not in last_user_text(app.backend)
        assert "the repository's hooks: not run" in conversation_text(app)
        assert "not run (you declined them)" in conversation_text(app)
    # Asked again next time (a "no" is not remembered); always: run, and remembered.
    app = _app(chat_options)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, HookConsentScreen)
        await pilot.press("a")
        await say(app, pilot, "hello")
        assert "Hook context: MARK-1" in last_user_text(app.backend)
    app = _app(chat_options)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)  # no dialog: the same hooks were approved
        assert not isinstance(app.screen, HookConsentScreen)
        await say(app, pilot, "hello")
        assert "Hook context: MARK-1" in last_user_text(app.backend)
    # Edited hooks are other hooks: asked again.
    _hooks(workspace, tmp_path, n=2)
    app = _app(chat_options)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, HookConsentScreen)
        await pilot.press("y")
        await say(app, pilot, "hello")
        assert "Hook context: MARK-2" in last_user_text(app.backend)
    app = _app(chat_options)
    async with app.run_test(size=(120, 40)) as pilot:  # "once" was this session only
        await wait_for_screen(app, pilot, HookConsentScreen)
        await pilot.press("n")
        await ready(app, pilot)


def test_a_repository_cannot_ship_an_answer(workspace: Path, tmp_path: Path) -> None:
    """The answer is read from the user's data folder only: with the store inside the
    workspace, a consent file the repository put where the answer would be is not read."""
    _hooks(workspace, tmp_path)
    hooks = [h for h in load_hooks(workspace, None)[0] if h.project]
    inside = workspace / "data" / "s.sqlite"
    planted = HookConsent(tmp_path / "elsewhere" / "s.sqlite", workspace)
    assert planted.path is not None
    target = inside.parent / planted.path.relative_to(planted.path.parent.parent)
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"approved": [fingerprint(hooks)]}))
    consent = HookConsent(inside, workspace)
    assert consent.path is None and not consent.allows(hooks)
    # The same file in the user's own data folder is an answer.
    outside = HookConsent(tmp_path / "user-data" / "s.sqlite", workspace)
    assert outside.path is not None
    outside.path.parent.mkdir(parents=True)
    outside.path.write_text(json.dumps({"approved": [fingerprint(hooks)]}))
    assert HookConsent(tmp_path / "user-data" / "s.sqlite", workspace).allows(hooks)
