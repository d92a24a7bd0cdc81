"""The chat's project features on the emulator, driven like a user: permission settings decide
writes and commands (and say so), /undo puts files back byte for byte, custom slash commands
expand into the user's message, edited instruction files are a priced change the user accepts,
/init drafts AGENTS.md, /effort is priced, MCP servers' tools are pinned in the prefix."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.coding.sandbox import SandboxOptions
from prefixlock.coding.settings_files import (
    ChatSettings,
    McpServerConfig,
    load_settings,
    parse_rule,
)
from prefixlock.coding.workspace import ApprovalRequest
from prefixlock.emulator import Emulator, Rule, Script, Step
from prefixlock.errors import ConfigError
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import BackendOptions, ChatBackend
from prefixlock.tui.preview import PreviewScreen
from prefixlock.tui.prompt_input import PromptInput
from prefixlock.tui.screens import ApprovalScreen, ConfirmScreen, HelpScreen, McpConsentScreen
from tests.helpers.sandbox import BWRAP_PROBLEM
from tests.helpers.tui_drive import conversation_text, open_dialog, ready, say, wait_for_screen

LEGACY = b"a = 1\r\nb = 2\r\ncaf\xe9 = 'Latin-1'\r\nno final newline"
MCP_SERVER = str(Path(__file__).resolve().parent.parent / "helpers" / "mcp_server.py")

SCRIPT = Script(
    rules=[
        Rule(
            match="edit legacy",
            steps=[
                Step(
                    text="Editing.",
                    tool="edit_file",
                    input={"path": "legacy.txt", "old_string": "b = 2", "new_string": "b = 3"},
                ),
                Step(text="Edited."),
            ],
        ),
        Rule(
            match="make module",
            steps=[
                Step(
                    text="Writing.",
                    tool="write_file",
                    input={"path": "pkg/new/mod.py", "content": "X = 1\n"},
                ),
                Step(text="Written."),
            ],
        ),
        Rule(
            match="echo twice",
            steps=[
                Step(
                    text="Running.", tool="run_command", input={"command": "echo ok && echo fine"}
                ),
                Step(text="Ran."),
            ],
        ),
        Rule(
            match="edit then run",
            steps=[
                Step(
                    text="Editing.",
                    tool="edit_file",
                    input={"path": "legacy.txt", "old_string": "a = 1", "new_string": "a = 2"},
                ),
                Step(text="Running.", tool="run_command", input={"command": "echo ok"}),
                Step(text="Done."),
            ],
        ),
        Rule(
            match="format it",
            steps=[
                Step(
                    text="Formatting.",
                    tool="run_command",
                    input={"command": "printf 'def main():\\n    return 2\\n' > src/app.py"},
                ),
                Step(text="Formatted."),
            ],
        ),
        Rule(
            match="read env",
            steps=[
                Step(text="Reading.", tool="read_file", input={"path": ".env"}),
                Step(text="Read."),
            ],
        ),
        Rule(
            match="grow",
            steps=[
                Step(text="Growing.", tool="mcp__inv__grow"),
                Step(text="Grown."),
            ],
        ),
        Rule(
            match="invoice",
            steps=[
                Step(text="Asking.", tool="mcp__inv__total", input={"number": "INV-7"}),
                Step(text="It is 12.30."),
            ],
        ),
    ]
)

Factory = Callable[..., ChatApp]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "legacy.txt").write_bytes(LEGACY)
    (root / ".env").write_text("DATABASE_URL=postgres://secret\n")
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text("def test_main():\n    assert True\n")
    return root


@pytest.fixture
def make(project: Path, tmp_path: Path) -> Iterator[Factory]:
    clock = ManualClock(1_800_000_000.0)
    with Emulator.start(clock=clock, script=SCRIPT) as emu:

        def build(settings: ChatSettings | None = None, store: str = "s.sqlite") -> ChatApp:
            opts = BackendOptions(
                workspace=project,
                store_path=tmp_path / store,
                session_id="proj-session",
                api_key="",
                clock=clock,
                emulator=emu,
                chat_settings=settings,
                # bubblewrap where it runs, unconfined elsewhere (the sandbox has its own suite)
                sandbox=SandboxOptions(mode="bwrap" if BWRAP_PROBLEM is None else "off"),
            )
            return ChatApp(ChatBackend(opts), blink=False)

        yield build


def rules(*texts: str) -> tuple[Any, ...]:
    return tuple(
        parse_rule(t, "settings.toml", f"permissions.allow[{i}]") for i, t in enumerate(texts)
    )


def tool_results(app: ChatApp) -> list[tuple[str, bool]]:
    """(content, is_error) of every tool result the model was sent, in order."""
    out: list[tuple[str, bool]] = []
    for msg in app.backend.session.transcript.messages:
        for block in msg.blocks:
            if block.get("type") == "tool_result":
                content = block.get("content", "")
                text = (
                    content
                    if isinstance(content, str)
                    else " ".join(str(b.get("text", "")) for b in content)
                )
                out.append((text, bool(block.get("is_error"))))
    return out


def last_user_text(app: ChatApp) -> str:
    for msg in reversed(app.backend.session.transcript.messages):
        texts = [str(b.get("text", "")) for b in msg.blocks if b.get("type") == "text"]
        if msg.role == "user" and texts:
            return "\n".join(texts)
    return ""


async def test_settings_allow_and_deny_without_asking_and_say_which_rule(
    make: Factory, project: Path
) -> None:
    settings = ChatSettings(
        allow=rules("Bash(echo:*)"),
        deny=rules("Edit(legacy.txt)", "Read(.env)"),
    )
    app = make(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        # "n" would decline a dialog: the command ran, so no dialog was shown.
        await say(app, pilot, "echo twice", answer="n")
        out, err = tool_results(app)[-1]
        assert not err and "ok\nfine" in out
        assert "run: echo ok && echo fine: allowed by Bash(echo:*)" in conversation_text(app)
        await say(app, pilot, "edit legacy", answer="y")  # "y" would approve a dialog
        out, err = tool_results(app)[-1]
        assert err and "denied by Edit(legacy.txt) (settings.toml: permissions.allow[0])" in out
        assert (project / "legacy.txt").read_bytes() == LEGACY
        await say(app, pilot, "read env")
        out, err = tool_results(app)[-1]
        assert err and "denied by Read(.env)" in out and "secret" not in out
        # The permission mode can change for the session: plan is read-only.
        await say(app, pilot, "/permissions plan")
        await say(app, pilot, "make module", answer="y")
        out, err = tool_results(app)[-1]
        assert err and "plan mode is read-only" in out
        assert not (project / "pkg").exists()
        await say(app, pilot, "/permissions")
        assert "permission mode: plan" in conversation_text(app)


async def test_always_keeps_asking_nothing_but_deny_still_holds(make: Factory) -> None:
    app = make(ChatSettings(deny=rules("Bash(rm:*)")))
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "echo twice", answer="a")  # always, for this session
        assert "run" in app.backend.permissions.allowed
        assert app.backend.workspace.allowed == set()  # every command still reaches the rules
        ruling = app.backend.permissions.decide(
            ApprovalRequest("run", "run_command", "run: ls; rm -rf /", "ls; rm -rf /")
        )
        assert ruling.verdict == "deny"


async def test_undo_puts_every_byte_back_and_tells_the_model(make: Factory, project: Path) -> None:
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "edit legacy", answer="y")
        assert (project / "legacy.txt").read_bytes() == LEGACY.replace(b"b = 2", b"b = 3")
        await say(app, pilot, "make module", answer="y")
        assert (project / "pkg" / "new" / "mod.py").read_text() == "X = 1\n"
        await say(app, pilot, "/undo")  # the newest turn that wrote: make module
        assert not (project / "pkg").exists()  # the file and the folders made for it
        assert "removed pkg/new/mod.py" in conversation_text(app)
        await say(app, pilot, "/undo")
        assert (project / "legacy.txt").read_bytes() == LEGACY  # CRLF, Latin-1, no final \n
        await say(app, pilot, "/undo")
        assert "nothing to undo" in conversation_text(app)
        await say(app, pilot, "hello")
        sent = last_user_text(app)
        assert sent.startswith("[prefixlock: the user ran /undo")
        assert "pkg/new/mod.py" in sent and "legacy.txt" in sent and sent.endswith("hello")


async def test_custom_commands_expand_into_the_message_not_the_prefix(
    make: Factory, project: Path
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
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        fp = app.backend.session.prefix.fingerprint
        assert "/help is a built-in command; file ignored" in conversation_text(app)
        await say(app, pilot, "/review src/app.py legacy.txt")
        assert last_user_text(app) == (
            "Review src/app.py legacy.txt carefully; start with src/app.py."
        )
        await say(app, pilot, "/git:summary staged only")
        assert last_user_text(app) == "Summarize the diff.\n\nstaged only"
        assert app.backend.session.prefix.fingerprint == fp
        await say(app, pilot, "/help")
        screen = await wait_for_screen(app, pilot, HelpScreen)
        body = str(screen.body)
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


async def test_edited_instructions_are_priced_and_applied_only_when_accepted(
    make: Factory, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Answer briefly.\n")
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        start = app.backend.session.prefix
        (project / "AGENTS.md").write_text("Answer in detail.\n")
        prompt = app.query_one("#prompt", PromptInput)
        prompt.value = "hello again"
        await pilot.press("enter")
        dialog = await wait_for_screen(app, pilot, ConfirmScreen)
        assert "AGENTS.md changed" in dialog.title_text
        labels = dict(dialog.rows.rows)
        assert labels["changed"] == "AGENTS.md"
        assert int(labels["tokens re-billed"].replace(",", "")) > 0
        await pilot.press("n")
        await say(app, pilot, "and again")  # the declined version is not offered again
        assert app.backend.session.prefix.fingerprint == start.fingerprint
        assert "kept the instructions the session started with" in conversation_text(app)
        # A new file (none at start) is offered too; accepted, it is in the prefix.
        (project / "CLAUDE.md").write_text("Use tabs.\n")
        prompt.value = "next"
        await pilot.press("enter")
        dialog = await wait_for_screen(app, pilot, ConfirmScreen)
        assert dict(dialog.rows.rows)["changed"] == "AGENTS.md, CLAUDE.md"
        await pilot.press("y")
        await say(app, pilot, "done")
        system = app.backend.session.prefix.system
        assert "Answer in detail." in system[1] and "Use tabs." in system[1]
        assert app.backend.session.prefix.fingerprint != start.fingerprint
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
        for _ in range(100):  # the second dialog: overwrite?
            await pilot.pause(0.02)
            if isinstance(app.screen, PreviewScreen) and "overwrite" in app.screen.title_text:
                break
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


async def test_mcp_server_tools_are_pinned_in_the_prefix_and_called(make: Factory) -> None:
    pytest.importorskip("mcp")
    server = McpServerConfig("inv", sys.executable, (MCP_SERVER,), None, "settings.toml")
    app = make(ChatSettings(mcp_servers=(server,)))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        names = app.backend.session.prefix.tool_names()
        assert {"mcp__inv__add", "mcp__inv__fail", "mcp__inv__total"} <= set(names)
        fp = app.backend.session.prefix.fingerprint
        await say(app, pilot, "invoice total")
        out, err = tool_results(app)[-1]
        assert out == "INV-7: 12.30" and not err
        assert app.backend.session.prefix.fingerprint == fp


async def test_a_deny_rule_naming_an_mcp_tool_refuses_it(make: Factory) -> None:
    pytest.importorskip("mcp")
    server = McpServerConfig("inv", sys.executable, (MCP_SERVER,), None, "settings.toml")
    deny = (parse_rule("mcp__inv__total", "settings.toml", "permissions.deny[0]"),)
    app = make(ChatSettings(mcp_servers=(server,), deny=deny))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert "mcp__inv__total" in app.backend.session.prefix.tool_names()  # still pinned
        await say(app, pilot, "invoice total")
        out, err = tool_results(app)[-1]
        assert err and "mcp__inv__total: refused (denied by mcp__inv__total" in out
        assert "settings.toml: permissions.deny[0]" in out


async def test_a_changed_mcp_tool_list_is_offered_priced_never_taken_silently(
    make: Factory,
) -> None:
    pytest.importorskip("mcp")
    server = McpServerConfig("inv", sys.executable, (MCP_SERVER,), None, "settings.toml")
    app = make(ChatSettings(mcp_servers=(server,)))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        start = app.backend.session.prefix
        await say(app, pilot, "grow the tools")  # the server adds `discount` and says so
        assert app.backend.session.prefix.fingerprint == start.fingerprint
        prompt = app.query_one("#prompt", PromptInput)
        prompt.value = "hello again"
        await pilot.press("enter")
        dialog = await wait_for_screen(app, pilot, ConfirmScreen)
        assert "MCP server changed its tools" in dialog.title_text
        assert dict(dialog.rows.rows)["changed"] == "added mcp__inv__discount"
        await pilot.press("n")
        await say(app, pilot, "and again")  # declined: not offered again
        assert app.backend.session.prefix.fingerprint == start.fingerprint
        assert "kept the MCP tools the session started with" in conversation_text(app)
        # The server announces again: offered again; accepted, the tool is in the prefix.
        await say(app, pilot, "grow the tools")
        prompt.value = "next"
        await pilot.press("enter")
        dialog = await wait_for_screen(app, pilot, ConfirmScreen)
        await pilot.press("y")
        await say(app, pilot, "done")
        assert "mcp__inv__discount" in app.backend.session.prefix.tool_names()
        assert "the prefix now holds the new MCP tools" in conversation_text(app)


async def test_an_mcp_tool_call_asks_showing_server_tool_and_arguments(make: Factory) -> None:
    # Claude Code asks before an MCP tool runs unless a rule allows it: so does the chat.
    pytest.importorskip("mcp")
    server = McpServerConfig("inv", sys.executable, (MCP_SERVER,), None, "settings.toml")
    app = make(ChatSettings(mcp_servers=(server,)))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        dialog = await open_dialog(app, pilot, "invoice total", ApprovalScreen)
        assert dialog.request.action == "mcp"
        assert "MCP server inv: total (mcp__inv__total)" in dialog.request.summary
        assert '"number": "INV-7"' in dialog.request.detail
        await pilot.press("n")  # declined: the server is never called
        await say(app, pilot, "", answer="n")
        out, err = tool_results(app)[-1]
        assert err and "declined" in out
        dialog = await open_dialog(app, pilot, "invoice total", ApprovalScreen)
        await pilot.press("a")  # always, for this tool, this session
        await say(app, pilot, "", answer="n")
        assert tool_results(app)[-1] == ("INV-7: 12.30", False)
        # Asked no more: a dialog now would be answered "n" and the call would fail.
        await say(app, pilot, "invoice total", answer="n")
        assert tool_results(app)[-1] == ("INV-7: 12.30", False)


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


async def test_an_mcp_server_that_does_not_start_is_one_note(make: Factory) -> None:
    bad = McpServerConfig(
        "gone", sys.executable, ("-c", "raise SystemExit(3)"), None, "settings.toml"
    )
    app = make(ChatSettings(mcp_servers=(bad,)))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(500):
            await pilot.pause(0.02)
            if "cannot start the session" in conversation_text(app):
                break
        text = conversation_text(app)
        assert "settings.toml: mcp_servers.gone: MCP server 'gone'" in text
        assert not isinstance(app.screen, ApprovalScreen)


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
        for _ in range(500):  # the command's dialog: the turn is mid-flight
            await pilot.pause(0.02)
            if isinstance(app.screen, ApprovalScreen) and app.screen.request.action == "run":
                break
        billed = [r.cost for r in app.backend.session.ledger.rows]
        assert len(billed) == 2
        app.exit()
    with SessionStore(tmp_path / "s.sqlite") as st:
        stored = [u.cost for u in st.usage_rows("proj-session")]
    assert stored == billed  # nothing billed is missing from the store


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_in_a_git_workspace_undo_puts_back_what_a_command_changed(
    make: Factory, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from prefixlock.tui.git_checkpoint import GitCheckpoint

    # The real snapshot runs; we only note where: hashing a big tree takes seconds, so it must
    # never run on the UI thread (before the command, and again at the turn's end).
    real_snapshot = GitCheckpoint.snapshot
    threads: list[bool] = []

    def noting_snapshot(self: GitCheckpoint) -> str | None:
        threads.append(threading.current_thread() is threading.main_thread())
        return real_snapshot(self)

    monkeypatch.setattr(GitCheckpoint, "snapshot", noting_snapshot)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    before = (project / "src" / "app.py").read_bytes()
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "format it", answer="y")
        assert (project / "src" / "app.py").read_text() == "def main():\n    return 2\n"
        assert threads == [False, False]  # both snapshots, neither on the UI thread
        await say(app, pilot, "/undo")
        assert (project / "src" / "app.py").read_bytes() == before
        assert "restored src/app.py" in conversation_text(app)
