"""Ctrl+G edits the prompt in the user's editor ($VISUAL, then $EDITOR): the prompt's text goes
in, what the editor saved comes back as the prompt; a failing editor leaves it unchanged."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from prefixlock.errors import UserError
from prefixlock.tui.external_editor import edit_text, editor_command
from prefixlock.tui.prompt_input import PromptInput
from tests.helpers.tui_drive import AppFactory, ready, type_keys

EDITOR = (
    "import sys; p = sys.argv[1]; t = open(p).read(); "
    "open(p, 'w').write(t.upper() + '\\nline two\\n')"
)


def _editor(tmp_path: Path, code: str = EDITOR) -> str:
    script = tmp_path / "editor.py"
    script.write_text(code)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_the_editor_command_and_what_it_saved(tmp_path: Path) -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "nano"}) == ["code", "--wait"]
    assert editor_command({"EDITOR": "nano"}) == ["nano"] and editor_command({}) == ["vi"]
    with pytest.raises(UserError):
        editor_command({"EDITOR": "'unclosed"})
    assert edit_text("draft", {"EDITOR": _editor(tmp_path)}) == "DRAFT\nline two"
    failing = _editor(tmp_path, "raise SystemExit(1)")
    assert edit_text("draft", {"EDITOR": failing}) is None
    with pytest.raises(UserError) as err:
        edit_text("draft", {"EDITOR": str(tmp_path / "no-such-editor")})
    assert err.value.where == "$EDITOR"


async def test_ctrl_g_puts_the_edited_text_in_the_prompt(
    make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", _editor(tmp_path))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = app.query_one("#prompt", PromptInput)
        prompt.focus()
        await type_keys(pilot, *"fix the bug")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert prompt.value == "FIX THE BUG\nline two"
        assert app.backend.session.turn == 0  # edited, not sent
