"""The chat's permission rulings, on its backend: the settings' allow and deny rules and the
permission mode decide writes, commands and reads (and say which rule), a deny rule holds even
over the user's yes, "always" stops asking for the session but not the deny rules, and a call
that waits for the user is pending on the session until answered. (The dialogs, and that the
app shows none when a setting decides: tests/tui/test_app_approvals.py and
test_app_project.py.)"""

from __future__ import annotations

from pathlib import Path

from prefixlock.coding.settings_files import ChatSettings
from prefixlock.coding.workspace import ApprovalRequest
from tests.helpers.backend_drive import ChatOpener, OptionsFactory, never_asked, started
from tests.tui.project_script import LEGACY, rules


async def test_settings_allow_and_deny_on_their_own_and_say_which_rule(
    project_options: OptionsFactory, project: Path
) -> None:
    settings = ChatSettings(
        allow=rules("Bash(echo:*)"),
        deny=rules("Edit(legacy.txt)", "Read(.env)", key="deny"),
    )
    async with started(project_options(settings)) as chat:
        # Let through to the rules (as the app does once a setting decides): the allow rule
        # runs the command without asking anyone, and says which rule allowed it.
        await chat.say("echo twice", answer="rules")
        out, err = chat.tool_results()[-1]
        assert not err and "ok\nfine" in out
        assert any(
            n.startswith("run: echo ok && echo fine: allowed by Bash(echo:*)") for n in chat.notes
        )
        # The deny rule refuses without asking, naming the rule and where it is written...
        await chat.say("edit legacy", answer="rules")
        out, err = chat.tool_results()[-1]
        assert err and "denied by Edit(legacy.txt) (settings.toml: permissions.deny[0])" in out
        # ... and even a call the user approved.
        await chat.say("edit legacy", answer="once")
        out, err = chat.tool_results()[-1]
        assert err and "denied by Edit(legacy.txt)" in out
        assert (project / "legacy.txt").read_bytes() == LEGACY
        await chat.say("read env")
        out, err = chat.tool_results()[-1]
        assert err and "denied by Read(.env)" in out and "secret" not in out
        # The permission mode can change for the session (what `/permissions plan` sets):
        # plan is read-only.
        chat.backend.permissions.mode = "plan"
        await chat.say("make module", answer="rules")
        out, err = chat.tool_results()[-1]
        assert err and "plan mode is read-only" in out
        assert not (project / "pkg").exists()
        assert "permission mode: plan" in chat.backend.permissions_text()
        assert chat.asked == []  # a setting decided every call: nobody was asked


async def test_always_asks_nothing_more_but_deny_rules_still_hold(
    project_options: OptionsFactory,
) -> None:
    async with started(project_options(ChatSettings(deny=rules("Bash(rm:*)")))) as chat:
        await chat.say("echo twice", answer="session")  # always, for this session
        backend = chat.backend
        assert "run" in backend.permissions.allowed
        assert backend.workspace.allowed == set()  # every command still reaches the rules
        ruling = backend.permissions.decide(
            ApprovalRequest("run", "run_command", "run: ls; rm -rf /", "ls; rm -rf /")
        )
        assert ruling.verdict == "deny"
        await chat.say("echo twice", answer=never_asked)  # no call waits for the user now
        out, err = chat.tool_results()[-1]
        assert not err and "ok\nfine" in out


async def test_a_write_waits_on_the_session_until_answered(
    open_chat: ChatOpener, workspace: Path
) -> None:
    """The turn stops with the write pending on the session (the SDK's deferred calls); a
    "no" reaches the model as the tool's error and writes nothing; "always" approves it and
    later writes no longer wait (commands still do)."""
    async with open_chat() as chat:
        s = chat.backend.session
        async for ev in chat.backend.send("add a note"):
            chat.backend.observe(ev)
        assert [c.name for c in s.pending_approvals] == ["write_file"]
        assert {"edit_file", "write_file", "run_command"} <= s.approvals.required
        assert not (workspace / "NOTES.md").exists()
        chat.backend.decide(s.pending_approvals[0], False)
        async for ev in chat.backend.resume_turn():
            chat.backend.observe(ev)
        assert not s.pending_approvals
        out, err = chat.tool_results()[-1]
        assert err and "Denied by the user" in out
        assert not (workspace / "NOTES.md").exists()
        await chat.say("add a note", answer="session")
        assert (workspace / "NOTES.md").exists()
        assert "write_file" not in s.approvals.required
        assert "run_command" in s.approvals.required
        (workspace / "NOTES.md").unlink()
        await chat.say("add a note", answer=never_asked)
        assert (workspace / "NOTES.md").exists()
