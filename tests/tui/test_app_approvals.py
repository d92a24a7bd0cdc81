"""Tool approval in the chat goes through the SDK's deferred tool calls: the turn stops with
the write or command pending on the session, the dialog shows its diff or command, the answer
is recorded on the session and the turn resumes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefixlock.coding.workspace import ApprovalRequest, Workspace
from prefixlock.events import ToolCall
from prefixlock.tui.approval_flow import gated_tools, preview
from prefixlock.tui.screens import ApprovalScreen
from tests.helpers.tui_drive import (
    AppFactory,
    conversation_text,
    open_dialog,
    ready,
    say,
    settle,
    type_keys,
)


def _results(app: Any) -> list[dict[str, Any]]:
    return [
        b
        for m in app.backend.session.transcript.messages
        for b in m.blocks
        if b.get("type") == "tool_result"
    ]


async def test_the_dialog_answers_a_waiting_write(make_app: AppFactory, workspace: Path) -> None:
    """ "n" declines the write (nothing written, the model told), "a" approves it and every
    later write of the session. (The session's side: tests/tui/test_backend_permissions.py.)"""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        s = app.backend.session
        await open_dialog(app, pilot, "add a note", ApprovalScreen)
        assert [c.name for c in s.pending_approvals] == ["write_file"]  # the turn waits
        assert not (workspace / "NOTES.md").exists()
        await pilot.press("n")
        await settle(app, pilot)
        assert not s.pending_approvals
        denied = _results(app)[-1]
        assert denied["is_error"] and "Denied by the user" in str(denied["content"])
        assert not (workspace / "NOTES.md").exists()
        assert "create NOTES.md (+3 -0): declined" in conversation_text(app)
        # "Always": approved, and writes stop waiting for the rest of the session.
        await open_dialog(app, pilot, "add a note", ApprovalScreen)
        await pilot.press("a")
        await settle(app, pilot)
        assert (workspace / "NOTES.md").exists()
        assert "create NOTES.md (+3 -0): allowed for the session" in conversation_text(app)
        assert "write" in app.backend.permissions.allowed


async def test_ctrl_c_during_the_question_closes_it_and_the_session_goes_on(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await open_dialog(app, pilot, "run the tests", ApprovalScreen)
        await pilot.press("ctrl+c")
        await settle(app, pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        assert "turn cancelled" in conversation_text(app)
        await say(app, pilot, "hello")
        # The unanswered call got an error result before the next message (no dangling call).
        assert _results(app)[-1]["is_error"]
        assert not app.backend.session.pending_approvals


async def test_preview_is_what_the_workspace_would_ask_and_never_acts(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    ws = Workspace(tmp_path)
    edit = await preview(
        ws, ToolCall("c1", "edit_file", {"path": "a.txt", "old_string": "two", "new_string": "TWO"})
    )
    assert isinstance(edit, ApprovalRequest)
    assert edit.summary == "edit a.txt (+1 -1)" and "+TWO" in edit.detail
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"
    run = await preview(ws, ToolCall("c2", "run_command", {"command": "touch ran"}))
    assert isinstance(run, ApprovalRequest) and run.detail == "touch ran"
    assert not (tmp_path / "ran").exists()
    # A call that can only fail has nothing to approve: its error, for the model.
    missing = await preview(
        ws, ToolCall("c3", "edit_file", {"path": "a.txt", "old_string": "nope", "new_string": "x"})
    )
    assert isinstance(missing, str) and "not found" in missing
    outside = await preview(ws, ToolCall("c4", "write_file", {"path": "../x", "content": "x"}))
    assert isinstance(outside, str) and "outside" in outside
    assert not (tmp_path.parent / "x").exists()
    assert gated_tools({"write"}) == {"run_command"}
    assert gated_tools(()) == {"edit_file", "write_file", "run_command"}


async def test_keys_typed_before_the_dialog_go_to_the_prompt_not_the_answer(
    make_app: AppFactory, workspace: Path
) -> None:
    """Type "run the tests", Enter, keep typing "and also": the "a" must not answer "allow
    for the session". A key queued before the dialog appeared, or typed before typing
    stopped (the dialog arms after a pause), lands in the prompt; Enter there queues the
    message; only a key after the pause answers."""
    from textual import _time, events

    from prefixlock.tui.prompt_input import PromptInput

    app = make_app()
    app.typeahead_grace = 30.0  # not armed until the test arms it: no real time passes
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        dialog = await open_dialog(app, pilot, "add a note", ApprovalScreen)
        assert not dialog.armed and dialog.query("#typeahead-hint")
        early = events.Key("a", "a")
        early.time = dialog.shown_at - 0.05  # pressed before the dialog showed, read after
        app.post_message(early)
        await type_keys(pilot, "n", "d", "space", "a", "l", "s", "o")
        prompt = app.query_one("#prompt", PromptInput)
        assert app.screen is dialog and prompt.value == "and also"
        await type_keys(pilot, "enter")
        assert app.queued == ["and also"] and prompt.value == ""
        # The pause: armed, the hint gone; now a key answers.
        dialog._arm_at = _time.get_time()
        dialog._maybe_arm()
        await pilot.pause()
        assert dialog.armed and not dialog.query("#typeahead-hint")
        late = events.Key("a", "a")
        late.time = dialog.shown_at - 0.05  # still: a key from before the dialog never answers
        app.post_message(late)
        await pilot.pause()
        assert app.screen is dialog and prompt.value == "a"
        await pilot.press("n")
        await settle(app, pilot)
        assert "create NOTES.md (+3 -0): declined" in conversation_text(app)
        assert "write" not in app.backend.permissions.allowed
        assert not (workspace / "NOTES.md").exists()
