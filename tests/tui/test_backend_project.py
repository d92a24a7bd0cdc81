"""The chat's project features on its backend: custom slash commands expand into the user's
message (never the prefix), the instruction files are read into the frozen prefix and an edit
to them is quoted and moved to only when accepted, a malformed command file stops the start.
(The dialogs and the prompt's wiring: tests/tui/test_app_project.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.coding.custom_commands import expand_line
from prefixlock.coding.instructions import changed_instruction_files
from prefixlock.errors import ConfigError
from prefixlock.events import CacheBreak
from prefixlock.tui.backend import SYSTEM_PROMPT, BackendOptions, ChatBackend
from prefixlock.tui.commands import parse
from prefixlock.tui.screens import help_text
from tests.helpers.backend_drive import BackendChat, ChatOpener, OptionsFactory, started


async def send_command(chat: BackendChat, line: str) -> None:
    """A line invoking a custom command, sent as the app sends it: the message its file says."""
    custom = chat.backend.custom_commands or {}
    parsed = parse(line, custom)
    assert parsed.command in custom and parsed.error is None
    message = expand_line(parsed.text, custom)
    assert message is not None
    await chat.say(message)


async def test_custom_commands_expand_into_the_message_not_the_prefix(
    project_options: OptionsFactory, project: Path
) -> None:
    cmds = project / ".prefixlock" / "commands"
    cmds.mkdir(parents=True)
    (cmds / "review.md").write_text(
        "---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\n"
        "Review $ARGUMENTS carefully; start with $1.\n"
    )
    (project / ".claude" / "commands" / "git").mkdir(parents=True)
    (project / ".claude" / "commands" / "git" / "summary.md").write_text("Summarize the diff.")
    (project / ".claude" / "commands" / "help.md").write_text("Not the real help.")
    async with started(project_options()) as chat:
        backend = chat.backend
        fp = backend.session.prefix.fingerprint
        assert any("/help is a built-in command; file ignored" in n for n in backend.command_notes)
        await send_command(chat, "/review src/app.py legacy.txt")
        assert chat.last_user_text() == (
            "Review src/app.py legacy.txt carefully; start with src/app.py."
        )
        await send_command(chat, "/git:summary staged only")
        assert chat.last_user_text() == "Summarize the diff.\n\nstaged only"
        assert backend.session.prefix.fingerprint == fp
        body = help_text(backend.custom_commands).plain  # what the help screen lists
        assert "/review FILE" in body and "Review a file for bugs" in body
        assert "/git:summary" in body and "Not the real help" not in body


def test_a_malformed_command_file_stops_the_start_naming_file_and_line(project: Path) -> None:
    cmds = project / ".claude" / "commands"
    cmds.mkdir(parents=True)
    (cmds / "bad.md").write_text("---\ndescription: [unclosed\n---\nBody\n")
    backend = ChatBackend(BackendOptions(workspace=project, api_key=""))
    with pytest.raises(ConfigError) as err:
        backend.check()
    assert str(err.value).startswith(f"{cmds / 'bad.md'}:")
    assert "malformed front matter" in str(err.value)


async def test_the_session_prefix_carries_agents_md(open_chat: ChatOpener, workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Always answer in haiku.\n")
    async with open_chat() as chat:
        prefix = chat.backend.session.prefix
        assert prefix.system[0] == SYSTEM_PROMPT
        assert prefix.system[1] == (
            "# Project instructions from AGENTS.md\n\nAlways answer in haiku."
        )


async def test_edited_instructions_are_quoted_and_moved_to_only_when_accepted(
    project_options: OptionsFactory, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Answer briefly.\n")
    async with started(project_options()) as chat:
        backend = chat.backend
        # Two turns: the chat's session compacts, so its first request leaves the opening and
        # the instructions' last line unmarked (docs/savings.md#the-prefix-anchor); the second
        # request writes them, which the edit below then re-bills.
        await chat.say("hello")
        await chat.say("hello")
        start = backend.session.prefix
        (project / "AGENTS.md").write_text("Answer in detail.\n")
        change = backend.instructions_change("hello again")
        assert change is not None
        fresh, _, quote = change
        assert changed_instruction_files(backend.instructions, fresh) == ["AGENTS.md"]
        assert quote.tokens_rebilled > 0  # priced before anything moves
        backend.decline_instructions(fresh)
        await chat.say("hello again")
        assert backend.instructions_change("and again") is None  # declined: not offered again
        await chat.say("and again")
        assert backend.session.prefix.fingerprint == start.fingerprint
        # A new file (none at start) is offered too; accepted, it is in the prefix.
        (project / "CLAUDE.md").write_text("Use tabs.\n")
        change = backend.instructions_change("next")
        assert change is not None
        fresh, prefix, quote = change
        assert changed_instruction_files(backend.instructions, fresh) == ["AGENTS.md", "CLAUDE.md"]
        backend.apply_instructions(fresh, prefix, quote)
        events = await chat.say("next")
        system = backend.session.prefix.system
        assert "Answer in detail." in system[1] and "Use tabs." in system[1]
        assert backend.session.prefix.fingerprint != start.fingerprint
        assert any(isinstance(e, CacheBreak) for e in events)  # the move was billed, and said
        assert backend.instructions_change("done") is None
