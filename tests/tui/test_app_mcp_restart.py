"""`/mcp restart NAME` on screen: the same tools are one note and the next request reads the
cache; other tools open the priced dialog, and the prefix moves only on "y". (The logic:
tests/tui/test_mcp_restart.py.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from prefixlock.coding.settings_files import ChatSettings, McpServerConfig
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import ChatBackend
from prefixlock.tui.prompt_input import PromptInput
from tests.helpers.backend_drive import OptionsFactory
from tests.helpers.tui_drive import conversation_text, open_dialog, ready, say, until
from tests.tui.project_script import MCP_SERVER

pytestmark = pytest.mark.usefixtures("_mcp")


@pytest.fixture
def _mcp() -> None:
    pytest.importorskip("mcp")


async def test_mcp_restart_keeps_the_prefix_or_prices_the_new_tools(
    project_options: OptionsFactory, tmp_path: Path
) -> None:
    from prefixlock.tui.screens import ConfirmScreen

    marker = tmp_path / "discount-on"
    env = {**os.environ, "INV_DISCOUNT_IF": str(marker)}
    config = McpServerConfig("inv", sys.executable, (MCP_SERVER,), env, "settings.toml")
    backend = ChatBackend(project_options(ChatSettings(mcp_servers=(config,))))
    app = ChatApp(backend, blink=False, typeahead_grace=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await say(app, pilot, "hello")
        start = backend.session.prefix.fingerprint
        prompt = app.query_one("#prompt", PromptInput)
        prompt.value = "/mcp restart inv"
        await pilot.press("enter")
        await until(
            lambda: "restarted MCP server 'inv': the same 4 tools" in conversation_text(app),
            "the restart's note",
        )
        assert backend.session.prefix.fingerprint == start
        await say(app, pilot, "hello again")
        # The turn after the restart reads all the turn before it sent, and misses nothing.
        before, after = backend.state.turns[-2].usage, backend.state.turns[-1].usage
        assert after.cache_read >= before.cache_read + before.cache_write > 0
        assert backend.state.last_miss is None
        # The server's next start lists one more tool: priced in the dialog, "n" keeps all.
        marker.touch()
        offer = await open_dialog(app, pilot, "/mcp restart inv", ConfirmScreen)
        assert "restarted with other tools" in offer.title_text
        assert dict(offer.rows.rows)["changed"] == "added mcp__inv__discount"
        await pilot.press("n")
        await until(lambda: "not taken" in conversation_text(app), "the declined note")
        assert backend.session.prefix.fingerprint == start
        offer = await open_dialog(app, pilot, "/mcp restart inv", ConfirmScreen)
        await pilot.press("y")
        await until(
            lambda: "the prefix now holds the new MCP tools" in conversation_text(app),
            "the taken note",
        )
        assert "mcp__inv__discount" in backend.session.prefix.tool_names()
        # A name the settings do not declare: one line.
        prompt.value = "/mcp restart nope"
        await pilot.press("enter")
        await until(lambda: "no MCP server named 'nope'" in conversation_text(app), "the refusal")
