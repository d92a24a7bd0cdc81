"""The chat's prompt under Pilot: multi-line input and paste, history recalled with Up/Down and
kept per workspace, `/command` completion, `@file` mentions whose content goes into the user
message (never the prefix)."""

from __future__ import annotations

import json
from pathlib import Path

from textual import events

from prefixlock.tui.app import ChatApp
from prefixlock.tui.prompt_input import CompletionList, PromptInput
from tests.helpers.backend_drive import last_user_text
from tests.helpers.tui_drive import AppFactory, conversation_text, ready, settle, type_keys, until


def _prompt(app: ChatApp) -> PromptInput:
    return app.query_one("#prompt", PromptInput)


async def test_ctrl_j_and_a_paste_keep_newlines_and_enter_sends_them_all(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        prompt.focus()
        await type_keys(pilot, *"first", "ctrl+j", *"second")
        assert prompt.value == "first\nsecond"  # not sent: a newline
        app.post_message(events.Paste("\npasted one\npasted two"))  # as the driver does
        await pilot.pause()
        assert prompt.value == "first\nsecond\npasted one\npasted two"
        assert app.backend.session.turn == 0  # a paste never sends
        await pilot.press("enter")
        await settle(app, pilot)
        assert last_user_text(app.backend) == "first\nsecond\npasted one\npasted two"
        assert prompt.value == ""


async def test_up_and_down_recall_sent_messages_and_keep_them_per_workspace(
    make_app: AppFactory, tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        prompt.focus()
        for line in ("hello", "two\nlines"):
            await type_keys(pilot, *line.split("\n")[0])
            if "\n" in line:
                await type_keys(pilot, "ctrl+j", *line.split("\n")[1])
            await pilot.press("enter")
            await settle(app, pilot)
        await type_keys(pilot, *"draft")
        await pilot.press("up")
        assert prompt.value == "two\nlines"
        # The cursor is on the recalled text's last line: Up moves within it first.
        await pilot.press("up")
        assert prompt.value == "two\nlines"
        await pilot.press("up")
        assert prompt.value == "hello"
        await pilot.press("up")  # the oldest: stays
        assert prompt.value == "hello"
        await pilot.press("down")
        assert prompt.value == "two\nlines"
        await pilot.press("down")
        assert prompt.value == "draft"  # back to what was being typed
    files = list((tmp_path / "history").glob("*.jsonl"))
    assert len(files) == 1
    assert [json.loads(x) for x in files[0].read_text().splitlines()] == ["hello", "two\nlines"]
    again = make_app(session_id="another-session")
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(again, pilot)
        _prompt(again).focus()
        await pilot.press("up")
        assert _prompt(again).value == "two\nlines"  # a new session in the same workspace


async def test_slash_lists_commands_tab_completes_and_enter_runs_one_without_arguments(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        listing = app.query_one("#completion", CompletionList)
        prompt.focus()
        await pilot.press("/", "m")
        await pilot.pause()
        assert listing.display and [c.value for c in listing.items] == ["/model", "/mcp"]
        await pilot.press("o")
        await pilot.pause()
        assert [c.value for c in listing.items] == ["/model"]
        await pilot.press("tab")
        assert prompt.value == "/model " and not listing.display
        prompt.value = ""
        await pilot.press("/", "c", "o")
        await pilot.pause()
        assert [c.value for c in listing.items] == ["/compact", "/cost"]
        await pilot.press("down")
        assert listing.chosen is not None and listing.chosen.value == "/cost"
        await pilot.press("enter")  # taken and run: /cost needs no argument
        await settle(app, pilot)
        assert prompt.value == ""
        assert "cost so far" in conversation_text(app)
        await pilot.press("/", "h")
        await pilot.pause()
        assert listing.display
        await pilot.press("escape")
        assert not listing.display and prompt.value == "/h"  # escape closes the list only


async def test_an_at_mention_completes_a_workspace_file_and_sends_its_content(
    make_app: AppFactory, workspace: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        listing = app.query_one("#completion", CompletionList)
        prompt.focus()
        fingerprint = app.backend.session.prefix.fingerprint
        await type_keys(pilot, *"explain @app")
        await prompt.files_listed()
        await pilot.pause()
        assert [c.value for c in listing.items] == ["@src/app.py"]
        await pilot.press("tab")
        assert prompt.value == "explain @src/app.py "
        await pilot.press("enter")
        await settle(app, pilot)
        sent = last_user_text(app.backend)
        assert sent.startswith("explain @src/app.py")
        assert '<file path="src/app.py">' in sent and "def main():" in sent
        # The content went with the message, not into the cached prefix.
        assert app.backend.session.prefix.fingerprint == fingerprint
        shown = conversation_text(app)
        assert "attached: src/app.py" in shown


async def test_a_mention_outside_the_workspace_is_not_attached(
    make_app: AppFactory, workspace: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        prompt.value = "what is in @../secret.txt"
        prompt.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert "top secret" not in last_user_text(app.backend)
        shown = conversation_text(app)
        assert "@../secret.txt: not attached" in shown


async def test_keys_that_arrive_together_stay_in_order(make_app: AppFactory) -> None:
    """A terminal delivers Ctrl+J and the text typed right after it in one read: the driver
    posts them all to the app at once (no pause between, unlike Pilot's `press`). The newline
    came out after the text ("twothree" then a newline) while Ctrl+J went through the
    bindings, which run only once the key has bubbled up the widget tree."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        prompt.focus()
        await type_keys(pilot, *"one")
        for key in ("ctrl+j", "alt+enter", "shift+enter"):
            app.post_message(events.Key(key, "\n" if key == "ctrl+j" else None))
            for ch in "ab":
                app.post_message(events.Key(ch, ch))
        await until(lambda: len(prompt.value) >= len("one\nab\nab\nab"), "the keys", 5.0)
        assert prompt.value == "one\nab\nab\nab"
        assert app.backend.session.turn == 0  # none of them sent the message


async def test_custom_commands_complete_beside_the_chats_own(
    make_app: AppFactory, workspace: Path
) -> None:
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $ARGUMENTS\n"
    )
    (commands / "cost.md").write_text("Not offered: the chat's /cost runs first.\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        listing = app.query_one("#completion", CompletionList)
        prompt.focus()
        await pilot.press("/", "r", "e")
        await pilot.pause()
        shown = {c.value: c.help for c in listing.items}
        assert "/review" in shown and "/resume" in shown
        assert shown["/review"].startswith("FILE Review a file for bugs (")
        prompt.value = ""
        await pilot.press("/", "c", "o", "s")
        await pilot.pause()
        assert [c.value for c in listing.items] == ["/cost"]


async def test_enter_right_after_fast_typing_never_takes_a_stale_completion(
    make_app: AppFactory,
) -> None:
    """The list still showed `/model` for `/mo` when Enter came behind the rest of
    `/model claude-haiku-4-5` (tmux delivers them together): Enter replaced `/mo` and left
    `/model del claude-haiku-4-5` in the prompt, sending nothing."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        prompt = _prompt(app)
        listing = app.query_one("#completion", CompletionList)
        prompt.focus()
        await pilot.press("/", "m", "o")
        await pilot.pause()
        assert [c.value for c in listing.items] == ["/model"]
        sent: list[str] = []
        prompt.submit = lambda: sent.append(prompt.value)  # type: ignore[method-assign]
        # The rest of the line lands before the list refreshes, then Enter.
        prompt.move_cursor(prompt.document.end)
        prompt.insert("del claude-haiku-4-5")
        await prompt._on_key(events.Key("enter", None))
        assert sent == ["/model claude-haiku-4-5"]
