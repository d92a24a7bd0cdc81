"""`/mcp restart NAME` on the chat's backend: a server started again with the same tools keeps
the prefix byte for byte (the next request reads it all from the cache) and its tools call the
new process; one that lists other tools is priced and taken only when the user says so; one
that failed at the start can be started once fixed; one that does not start again is one line
with its log. (The dialog: tests/tui/test_app_mcp_restart.py.)"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from prefixlock.coding.settings_files import ChatSettings, McpServerConfig
from prefixlock.events import UsageReport
from prefixlock.tui.commands import parse
from prefixlock.tui.mcp_restart import McpRestartError, restart_server
from tests.helpers.backend_drive import BackendChat, OptionsFactory, started
from tests.tui.project_script import MCP_SERVER, inv_server


@pytest.fixture(autouse=True)
def _mcp() -> None:
    pytest.importorskip("mcp")


def _usage(events: Sequence[object]) -> list[UsageReport]:
    return [ev for ev in events if isinstance(ev, UsageReport)]


def _connection(chat: BackendChat) -> object:
    (server,) = chat.backend.mcp_servers
    assert server._session is not None
    return server._session


async def test_a_restart_with_the_same_tools_keeps_the_prefix_and_the_cache(
    project_options: OptionsFactory,
) -> None:
    async with started(project_options(ChatSettings(mcp_servers=(inv_server(),)))) as chat:
        backend = chat.backend
        await chat.say("hello")
        first = _usage(await chat.say("hello again"))[-1].usage
        start = backend.session.prefix
        before = _connection(chat)
        restarted = await restart_server(backend, "inv")
        assert restarted.change is None
        assert _connection(chat) is not before  # a new connection, to a new process
        assert backend.session.prefix.fingerprint == start.fingerprint
        # The next request reads everything the last one did, and more.
        after = _usage(await chat.say("and once more"))[0].usage
        assert after.cache_read >= first.cache_read + first.cache_write > 0
        assert after.cache_write < first.cache_read // 4
        # The pinned tool calls the restarted server.
        await chat.say("invoice total", answer="once")
        assert chat.tool_results()[-1] == ("INV-7: 12.30", False)
        assert "inv (settings.toml): running, 4 tools" in backend.mcp_text()


async def test_a_restart_with_other_tools_is_priced_and_taken_only_on_yes(
    project_options: OptionsFactory, tmp_path: Path
) -> None:
    marker = tmp_path / "discount-on"
    env = {**os.environ, "INV_DISCOUNT_IF": str(marker)}
    config = McpServerConfig("inv", sys.executable, (MCP_SERVER,), env, "settings.toml")
    async with started(project_options(ChatSettings(mcp_servers=(config,)))) as chat:
        backend = chat.backend
        await chat.say("hello")
        start = backend.session.prefix
        marker.touch()  # the server's next start lists `discount` too
        restarted = await restart_server(backend, "inv")
        assert restarted.change is not None
        assert restarted.change.describe() == "added mcp__inv__discount"
        assert restarted.change.quote.tokens_rebilled > 0
        assert backend.session.prefix.fingerprint == start.fingerprint  # nothing applied yet
        await restarted.leave()  # declined: the server runs on, the prefix is kept
        assert backend.session.prefix.fingerprint == start.fingerprint
        assert "running, 4 tools pinned in the prefix (5 listed by" in backend.mcp_text()
        await chat.say("invoice total")
        assert chat.tool_results()[-1] == ("INV-7: 12.30", False)
        again = await restart_server(backend, "inv")
        assert again.change is not None
        again.take()
        await chat.say("done")
        assert "mcp__inv__discount" in backend.session.prefix.tool_names()
        # Taken: a restart listing the same (new) tools changes nothing more.
        assert (await restart_server(backend, "inv")).change is None


async def test_a_server_that_failed_at_the_start_is_started_once_fixed(
    project_options: OptionsFactory, tmp_path: Path
) -> None:
    # A server that needs a file present (as npx needs its package): missing at the start.
    needed = tmp_path / "installed"
    code = (
        "import sys, runpy, pathlib\n"
        f"if not pathlib.Path({str(needed)!r}).exists():\n"
        "    sys.stderr.write('npm ERR! code E404\\n'); raise SystemExit(1)\n"
        f"sys.argv = [{MCP_SERVER!r}]; runpy.run_path({MCP_SERVER!r}, run_name='__main__')"
    )
    config = McpServerConfig("inv", sys.executable, ("-c", code), None, "settings.toml")
    async with started(project_options(ChatSettings(mcp_servers=(config,)))) as chat:
        backend = chat.backend
        assert "inv" in backend.mcp_failed
        await chat.say("hello")
        start = backend.session.prefix
        # Still broken: one line with its log, the session goes on without it.
        with pytest.raises(McpRestartError, match=r"did not start again: .*its log: .*inv\.log"):
            await restart_server(backend, "inv")
        assert "failed: did not start again" in backend.mcp_text()
        assert "npm ERR! code E404" in (backend.mcp_log_dir / "inv.log").read_text()
        needed.touch()
        restarted = await restart_server(backend, "inv")
        assert restarted.change is not None  # its tools are new to the prefix: priced
        assert "added mcp__inv__add" in restarted.change.describe()
        assert backend.session.prefix.fingerprint == start.fingerprint
        restarted.take()
        assert "inv (settings.toml): running" in backend.mcp_text()
        await chat.say("invoice total", answer="once")
        assert chat.tool_results()[-1] == ("INV-7: 12.30", False)


async def test_a_restart_that_fails_leaves_the_server_out_and_the_chat_going(
    project_options: OptionsFactory, tmp_path: Path
) -> None:
    gone = tmp_path / "gone"
    code = (
        "import sys, runpy, pathlib\n"
        f"if pathlib.Path({str(gone)!r}).exists():\n"
        "    sys.stderr.write('server removed\\n'); raise SystemExit(1)\n"
        f"sys.argv = [{MCP_SERVER!r}]; runpy.run_path({MCP_SERVER!r}, run_name='__main__')"
    )
    config = McpServerConfig("inv", sys.executable, ("-c", code), None, "settings.toml")
    async with started(project_options(ChatSettings(mcp_servers=(config,)))) as chat:
        backend = chat.backend
        start = backend.session.prefix
        gone.touch()
        with pytest.raises(McpRestartError, match="the session goes on without it"):
            await restart_server(backend, "inv")
        assert backend.mcp_servers == []
        assert backend.session.prefix.fingerprint == start.fingerprint  # still pinned
        # The model asks for a pinned tool of the stopped server: an error it can read.
        await chat.say("invoice total", answer="once")
        out, err = chat.tool_results()[-1]
        assert err and "not running" in out
        gone.unlink()  # back: the same server, the same tools, the prefix kept
        assert (await restart_server(backend, "inv")).change is None
        await chat.say("invoice total", answer="once")
        assert chat.tool_results()[-1] == ("INV-7: 12.30", False)
        assert backend.session.prefix.fingerprint == start.fingerprint


async def test_only_a_declared_and_approved_server_restarts(
    project_options: OptionsFactory,
) -> None:
    stranger = McpServerConfig("stranger", "npx", ("evil",), None, ".mcp.json", project=True)
    settings = ChatSettings(mcp_servers=(inv_server(), stranger))
    async with started(project_options(settings)) as chat:
        with pytest.raises(McpRestartError, match=r"no MCP server named 'nope' \(inv, stranger\)"):
            await restart_server(chat.backend, "nope")
        with pytest.raises(McpRestartError, match=r"'stranger' from \.mcp\.json is not approved"):
            await restart_server(chat.backend, "stranger")


def test_the_command_parses() -> None:
    assert parse("/mcp restart inv").args == ("restart", "inv")
    assert parse("/mcp").error is None
    assert parse("/mcp restart").error == "usage: /mcp [restart NAME]"
    assert parse("/mcp stop inv").error == "usage: /mcp [restart NAME]"
