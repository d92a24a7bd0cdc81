"""`!command` in the chat (Claude Code's bash mode): the command runs at once in the workspace's
sandbox without a dialog, its output is shown, and it goes with the next message (never into
the prefix); /undo can put back what it changed."""

from __future__ import annotations

from pathlib import Path

from prefixlock.tui.app import ChatApp
from tests.helpers.backend_drive import ChatOpener
from tests.helpers.tui_drive import AppFactory, conversation_text, ready, type_keys, until


async def test_a_bang_command_runs_and_joins_the_next_message(
    open_chat: ChatOpener, workspace: Path
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        system = backend.session.prefix.system
        shown = await backend.shell("echo made > made.txt && echo listed: $(ls made.txt)")
        assert "listed: made.txt" in shown and "exit code 0" in shown
        assert (workspace / "made.txt").read_text() == "made\n"
        assert not chat.asked  # the user typed it: no dialog
        await chat.say("hello")
        text = chat.last_user_text()
        assert text.startswith("[The user ran `echo made > made.txt") and "listed: made.txt" in text
        assert text.rstrip().endswith("hello")
        assert backend.session.prefix.system == system


async def test_bang_in_the_prompt_shows_the_output(make_app: AppFactory) -> None:
    app: ChatApp = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await type_keys(pilot, *"!echo from-the-shell")
        await pilot.press("enter")
        await until(lambda: "sent with your next message" in conversation_text(app), "the output")
        assert "$ echo from-the-shell" in conversation_text(app)
        assert app.backend.session.turn == 0  # nothing was sent to the model
