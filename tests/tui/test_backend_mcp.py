"""MCP servers on the chat's backend: their tools are pinned in the prefix at the start and
called through the permission rules (a call waits for the user unless a rule decides it; a
deny rule refuses it; "always" stops the waiting for that tool); a server's announced new tool
list is priced and moved to only when taken. (The dialogs: tests/tui/test_app_project.py.)"""

from __future__ import annotations

import sys

import pytest

from prefixlock.coding.settings_files import ChatSettings, parse_rule
from prefixlock.events import ToolCall
from tests.helpers.backend_drive import Answer, OptionsFactory, never_asked, started
from tests.tui.project_script import inv_server


@pytest.fixture(autouse=True)
def _mcp() -> None:
    pytest.importorskip("mcp")


async def test_tools_are_pinned_in_the_prefix_and_called_through_the_rules(
    project_options: OptionsFactory,
) -> None:
    deny = (parse_rule("mcp__inv__grow", "settings.toml", "permissions.deny[0]"),)
    settings = ChatSettings(mcp_servers=(inv_server(),), deny=deny)
    async with started(project_options(settings)) as chat:
        prefix = chat.backend.session.prefix
        assert {"mcp__inv__add", "mcp__inv__fail", "mcp__inv__total"} <= set(prefix.tool_names())
        asked: list[str] = []

        def no(call: ToolCall) -> Answer:
            asked.append(call.name)
            return False

        # A call waits for the user (like a write); declined, the server is never called.
        await chat.say("invoice total", answer=no)
        assert asked == ["mcp__inv__total"]
        out, err = chat.tool_results()[-1]
        assert err and "declined" in out
        await chat.say("invoice total", answer="session")  # always, for this tool
        assert chat.tool_results()[-1] == ("INV-7: 12.30", False)
        assert "mcp__inv__total" in chat.backend.permissions.allowed_tools
        await chat.say("invoice total", answer=never_asked)  # asked no more
        assert chat.tool_results()[-1] == ("INV-7: 12.30", False)
        # A deny rule naming a tool refuses it without asking; the tool stays pinned.
        assert "mcp__inv__grow" in prefix.tool_names()
        await chat.say("grow the tools", answer=never_asked)
        out, err = chat.tool_results()[-1]
        assert err and "mcp__inv__grow: refused (denied by mcp__inv__grow" in out
        assert "settings.toml: permissions.deny[0]" in out
        assert chat.backend.session.prefix.fingerprint == prefix.fingerprint


async def test_a_changed_tool_list_is_priced_and_never_taken_silently(
    project_options: OptionsFactory,
) -> None:
    async with started(project_options(ChatSettings(mcp_servers=(inv_server(),)))) as chat:
        backend = chat.backend
        start = backend.session.prefix
        await chat.say("grow the tools")  # the server adds `discount` and says so
        assert backend.session.prefix.fingerprint == start.fingerprint
        (change,) = await backend.tool_list_changes()
        assert change.describe() == "added mcp__inv__discount"
        assert change.quote.tokens_rebilled > 0
        # Not taken (the user said no): not offered again, the prefix stays.
        assert await backend.tool_list_changes() == []
        await chat.say("and again")
        assert backend.session.prefix.fingerprint == start.fingerprint
        # The server announces again: offered again; taken, the tool is in the prefix.
        await chat.say("grow the tools")
        (change,) = await backend.tool_list_changes()
        backend.apply_tool_change(change)
        await chat.say("done")
        assert "mcp__inv__discount" in backend.session.prefix.tool_names()


async def test_mcp_lists_running_failed_and_unapproved_servers(
    project_options: OptionsFactory,
) -> None:
    from prefixlock.coding.settings_files import McpServerConfig

    broken = McpServerConfig("broken", sys.executable, ("-c", "raise SystemExit(3)"), None, "s")
    stranger = McpServerConfig("stranger", "npx", ("evil",), None, ".mcp.json", project=True)
    settings = ChatSettings(mcp_servers=(inv_server(), broken, stranger))
    async with started(project_options(settings)) as chat:
        text = chat.backend.mcp_text()
        lines = text.splitlines()
        inv = next(line for line in lines if line.strip().startswith("inv "))
        assert "running," in inv and "tools pinned in the prefix" in inv
        bad = next(line for line in lines if line.strip().startswith("broken "))
        assert "failed:" in bad and "mcp-logs" in bad
        assert any(line.strip().startswith("stranger (.mcp.json): not approved") for line in lines)
        assert "runs: npx evil" in text
