"""The chat's project features on screen: a setting that decides a write or a command shows no
dialog and a note names the rule, /permissions sets and shows the mode, a custom slash command
typed in the prompt sends its file's message and is in the help, an edited instruction file is
offered in a priced dialog, /init shows its draft (and asks again before overwriting), /effort
is priced in a dialog, /undo says what it put back, an MCP call and a server's new tool list are
asked about, a project's MCP server starts only after a yes, quitting mid-turn keeps what was
billed. (The logic behind them, on the backend: tests/tui/test_backend_*.py.)"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from prefixlock.coding.settings_files import ChatSettings, McpServerConfig, load_settings
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import BackendOptions, ChatBackend
from prefixlock.tui.preview import PreviewScreen
from prefixlock.tui.prompt_input import PromptInput
from prefixlock.tui.screens import ApprovalScreen, ConfirmScreen, HelpScreen, McpConsentScreen
from tests.helpers.backend_drive import OptionsFactory, last_user_text, tool_results
from tests.helpers.tui_drive import (
    conversation_text,
    open_dialog,
    ready,
    say,
    settle,
    until,
    wait_for_screen,
)
from tests.tui.project_script import LEGACY, MCP_SERVER, inv_server, rules

Factory = Callable[..., ChatApp]


@pytest.fixture
def make(project_options: OptionsFactory) -> Factory:
    """A ChatApp in the project (tests/tui/project_script.py); the keywords are the options'."""

    def build(settings: ChatSettings | None = None, store: str = "s.sqlite") -> ChatApp:
        return ChatApp(
            ChatBackend(project_options(settings, store)), blink=False, typeahead_grace=0.0
        )

    return build


async def test_a_setting_decides_without_a_dialog_and_a_note_names_the_rule(
    make: Factory,
) -> None:
    app = make(ChatSettings(allow=rules("Bash(echo:*)")))
    async with app.run_test(size=(120, 40)) as pilot:
        # "n" would decline a dialog: the command ran, so no dialog was shown.
        await say(app, pilot, "echo twice", answer="n")
        out, err = tool_results(app.backend)[-1]
        assert not err and "ok\nfine" in out
        assert "run: echo ok && echo fine: allowed by Bash(echo:*)" in conversation_text(app)
        # The permission mode can change for the session (what it does:
        # tests/tui/test_backend_permissions.py).
        await say(app, pilot, "/permissions plan")
        assert app.backend.permissions.mode == "plan"
        await say(app, pilot, "/permissions")
        assert "permission mode: plan" in conversation_text(app)


async def test_undo_says_what_it_put_back(make: Factory, project: Path) -> None:
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "edit legacy", answer="y")
        assert (project / "legacy.txt").read_bytes() != LEGACY
        await say(app, pilot, "/undo")
        assert (project / "legacy.txt").read_bytes() == LEGACY
        assert "undid the turn 'edit legacy': restored legacy.txt" in conversation_text(app)
        await say(app, pilot, "/undo")
        assert "/undo: nothing to undo" in conversation_text(app)


async def test_a_custom_command_typed_in_the_prompt_sends_its_message_and_is_in_the_help(
    make: Factory, project: Path
) -> None:
    cmds = project / ".prefixlock" / "commands"
    cmds.mkdir(parents=True)
    (cmds / "review.md").write_text(
        "---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\n"
        "Review $ARGUMENTS carefully; start with $1.\n"
    )
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "help.md").write_text("Not the real help.")
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert "/help is a built-in command; file ignored" in conversation_text(app)
        await say(app, pilot, "/review src/app.py legacy.txt")
        assert last_user_text(app.backend) == (
            "Review src/app.py legacy.txt carefully; start with src/app.py."
        )
        await say(app, pilot, "/help")
        screen = await wait_for_screen(app, pilot, HelpScreen)
        body = str(screen.body)
        assert "/review FILE" in body and "Review a file for bugs" in body
        assert "Not the real help" not in body


async def test_an_edited_instruction_file_is_offered_in_a_priced_dialog(
    make: Factory, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Answer briefly.\n")
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        # Two turns: a session that compacts leaves its first request's opening and the
        # instructions' last line unmarked (docs/savings.md#the-prefix-anchor); the second
        # request writes them, so the edit below re-bills cached tokens.
        await say(app, pilot, "hello")
        await say(app, pilot, "hello")
        start = app.backend.session.prefix
        (project / "AGENTS.md").write_text("Answer in detail.\n")
        dialog = await open_dialog(app, pilot, "hello again", ConfirmScreen)
        assert "AGENTS.md changed" in dialog.title_text
        labels = dict(dialog.rows.rows)
        assert labels["changed"] == "AGENTS.md"
        assert int(labels["tokens re-billed"].replace(",", "")) > 0
        assert app.backend.session.ledger.rows and len(app.backend.session.requests) == 2
        await pilot.press("n")
        await settle(app, pilot)  # the message goes out once the dialog is answered
        assert len(app.backend.session.requests) == 3
        assert app.backend.session.prefix.fingerprint == start.fingerprint
        assert "kept the instructions the session started with" in conversation_text(app)
        (project / "AGENTS.md").write_text("Answer in limericks.\n")
        await open_dialog(app, pilot, "next", ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert "Answer in limericks." in app.backend.session.prefix.system[1]
        assert "the prefix now holds the new AGENTS.md" in conversation_text(app)
        assert "cache miss" in conversation_text(app)  # the move was billed, and said so


async def test_init_shows_the_draft_and_asks_again_before_overwriting(
    make: Factory, project: Path
) -> None:
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        prompt = app.query_one("#prompt", PromptInput)
        prompt.value = "/init"
        await pilot.press("enter")
        preview = await wait_for_screen(app, pilot, PreviewScreen)
        draft = preview.body
        assert "- Python (2 files)" in draft and "`python -m pytest -q`" in draft
        assert "`src/` (1 files)" in draft and "`tests/`" in draft
        await pilot.press("y")
        await say(app, pilot, "/cost")
        assert (project / "AGENTS.md").read_text() == draft
        (project / "AGENTS.md").write_text("mine\n")
        prompt.value = "/init"
        await pilot.press("enter")
        await wait_for_screen(app, pilot, PreviewScreen)
        await pilot.press("y")
        await until(  # the second dialog
            lambda: isinstance(app.screen, PreviewScreen) and "overwrite" in app.screen.title_text,
            "the dialog asking to overwrite",
        )
        assert isinstance(app.screen, PreviewScreen) and app.screen.body == "mine\n"
        await pilot.press("n")
        await say(app, pilot, "/cost")
        assert (project / "AGENTS.md").read_text() == "mine\n"
        assert "AGENTS.md kept as it was" in conversation_text(app)


async def test_effort_change_is_priced_before_it_happens(make: Factory) -> None:
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        prompt = app.query_one("#prompt", PromptInput)
        prompt.value = "/effort high"
        await pilot.press("enter")
        await wait_for_screen(app, pilot, ConfirmScreen)
        assert app.backend.session.state.settings.effort is None  # not before the answer
        await pilot.press("y")
        await say(app, pilot, "/effort")
        assert app.backend.session.state.settings.effort == "high"
        assert "effort: high" in conversation_text(app)
        await say(app, pilot, "/effort extreme")
        assert "usage: /effort" in conversation_text(app)


async def test_an_mcp_call_and_a_new_tool_list_are_asked_about(make: Factory) -> None:
    # Claude Code asks before an MCP tool runs unless a rule allows it: so does the chat.
    pytest.importorskip("mcp")
    app = make(ChatSettings(mcp_servers=(inv_server(),)))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        dialog = await open_dialog(app, pilot, "invoice total", ApprovalScreen)
        assert dialog.request.action == "mcp"
        assert "MCP server inv: total (mcp__inv__total)" in dialog.request.summary
        assert '"number": "INV-7"' in dialog.request.detail
        await pilot.press("n")  # declined: the server is never called
        await settle(app, pilot, answer="n")
        out, err = tool_results(app.backend)[-1]
        assert err and "declined" in out
        assert "MCP server inv: total (mcp__inv__total): declined" in conversation_text(app)
        # The server announces a new tool list: offered with its price before the next
        # message, in a dialog; "n" keeps the prefix.
        start = app.backend.session.prefix
        await say(app, pilot, "grow the tools")
        offer = await open_dialog(app, pilot, "hello again", ConfirmScreen)
        assert "MCP server changed its tools" in offer.title_text
        assert dict(offer.rows.rows)["changed"] == "added mcp__inv__discount"
        await pilot.press("n")
        await settle(app, pilot)
        assert app.backend.session.prefix.fingerprint == start.fingerprint
        assert "kept the MCP tools the session started with" in conversation_text(app)
        # Announced again and taken: the tool is in the prefix.
        await say(app, pilot, "grow the tools")
        await open_dialog(app, pilot, "next", ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert "mcp__inv__discount" in app.backend.session.prefix.tool_names()
        assert "the prefix now holds the new MCP tools" in conversation_text(app)


def _marking_mcp_json(project: Path, marker: Path) -> None:
    """The repository's `.mcp.json`: a server that writes `marker` once it starts."""
    import json

    code = (
        f"import pathlib, runpy, sys; pathlib.Path({str(marker)!r}).write_text('ran'); "
        f"sys.argv = [{MCP_SERVER!r}]; runpy.run_path({MCP_SERVER!r}, run_name='__main__')"
    )
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"inv": {"command": sys.executable, "args": ["-c", code]}}})
    )


async def test_a_project_mcp_server_starts_only_after_the_user_says_yes(
    make: Factory, project: Path, tmp_path: Path
) -> None:
    pytest.importorskip("mcp")
    marker = tmp_path / "marker"
    _marking_mcp_json(project, marker)
    settings = load_settings(project)  # what `prefixlock chat` reads
    app = make(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await wait_for_screen(app, pilot, McpConsentScreen)
        assert dialog.server == "inv" and dialog.source == str(project / ".mcp.json")
        assert sys.executable in dialog.command and "runpy" in dialog.command
        assert not marker.exists() and not app.ready  # nothing runs while the user reads
        await pilot.press("n")
        await ready(app, pilot)
        assert "mcp__inv__total" not in app.backend.session.prefix.tool_names()
        assert "MCP server 'inv': not started" in conversation_text(app)
    assert not marker.exists()
    # Remembered for this project, outside it: not asked again, still not started.
    again = ChatBackend(
        BackendOptions(
            workspace=project, store_path=tmp_path / "s.sqlite", api_key="", chat_settings=settings
        )
    )
    assert again.mcp_to_ask() == [] and again._startable_mcp() == []
    assert not any(p.name != ".mcp.json" and "consent" in p.name for p in project.rglob("*"))
    # Another data folder (another user's answers): asked; yes starts it.
    app = make(settings, store="other/s.sqlite")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, McpConsentScreen)
        assert not marker.exists()
        await pilot.press("y")
        await ready(app, pilot)
        assert "mcp__inv__total" in app.backend.session.prefix.tool_names()
    assert marker.exists()


async def test_an_mcp_server_that_does_not_start_is_one_note_and_the_session_goes_on(
    make: Factory,
) -> None:
    """One failing server once killed the session ("cannot start the session", every message
    ignored after it) and its output was drawn over the screen: now the session starts with
    the others, one note says which failed and where its log is, and its stderr is there."""
    bad = McpServerConfig(
        "gone",
        sys.executable,
        ("-c", "import sys; sys.stderr.write('npm ERR! not found\\n'); raise SystemExit(3)"),
        None,
        "settings.toml",
    )
    app = make(ChatSettings(mcp_servers=(bad, inv_server())))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        text = conversation_text(app)
        assert "cannot start the session" not in text
        notes = [line for line in text.splitlines() if "MCP server 'gone'" in line]
        assert len(notes) == 1 and "did not start" in notes[0], text
        log = app.backend.mcp_log_dir / "gone.log"
        assert str(log) in text.replace("\n", "")
        assert "npm ERR! not found" in log.read_text()
        assert "mcp__inv__total" in app.backend.session.prefix.tool_names()
        assert not isinstance(app.screen, ApprovalScreen)
        await say(app, pilot, "hello")  # the session answers
        assert "› hello\nUnderstood" in conversation_text(app)


async def test_quitting_mid_turn_stores_the_requests_already_billed(
    make: Factory, tmp_path: Path
) -> None:
    from prefixlock.store.database import SessionStore

    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        prompt = app.query_one("#prompt", PromptInput)
        prompt.value = "edit then run"
        await pilot.press("enter")
        await wait_for_screen(app, pilot, ApprovalScreen)  # the edit
        await pilot.press("y")
        await until(  # the command's dialog: the turn is mid-flight
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.request.action == "run",
            "the command's dialog",
        )
        billed = [r.cost for r in app.backend.session.ledger.rows]
        assert len(billed) == 2
        app.exit()
    with SessionStore(tmp_path / "s.sqlite") as st:
        stored = [u.cost for u in st.usage_rows("proj-session")]
    assert stored == billed  # nothing billed is missing from the store
