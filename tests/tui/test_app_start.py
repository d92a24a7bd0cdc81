"""The prompt takes keys from the first frame: the session (the store, the emulator, the MCP
servers, the agent) opens behind it. A message sent before then waits, with a line saying so,
and goes once the session is open, so its first request already carries every approved MCP
server's tools (the tool list, part of the cached prefix, never changes under the session)."""

from __future__ import annotations

import threading

import pytest

from prefixlock.coding.settings_files import ChatSettings
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import ChatBackend
from prefixlock.tui.prompt_input import PromptInput
from prefixlock.tui.widgets import UserMessage
from tests.helpers.backend_drive import OptionsFactory, last_user_text
from tests.helpers.tui_drive import conversation_text, settle, type_keys, until
from tests.tui.project_script import inv_server


async def test_typing_works_while_the_session_opens_and_the_first_message_waits_for_mcp(
    project_options: OptionsFactory,
) -> None:
    pytest.importorskip("mcp")
    backend = ChatBackend(project_options(ChatSettings(mcp_servers=(inv_server(),))))
    app = ChatApp(backend, blink=False, typeahead_grace=0.0)
    release = threading.Event()
    preload = backend.preload

    def slow_preload() -> None:  # stands in for the imports and a server slow to start
        release.wait(30)
        preload()

    backend.preload = slow_preload  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        prompt = app.query_one("#prompt", PromptInput)
        assert prompt.has_focus and not app.ready  # keys go to the prompt at once
        await type_keys(pilot, *"hello")
        assert prompt.value == "hello"
        assert "opening…" in str(app.query_one("#header").render())
        await pilot.press("enter")
        await until(lambda: bool(app.queued), "the message to wait")
        text = conversation_text(app)
        assert "waiting while the session opens and its MCP servers start" in text
        assert not app.query(UserMessage)  # not sent yet
        emulator = backend.options.emulator
        assert emulator is not None and not emulator.requests
        release.set()
        await until(lambda: app.ready, "the session to open")
        await settle(app, pilot)
        assert [str(u.render()) for u in app.query(UserMessage)] == ["› hello"]
        assert last_user_text(backend) == "hello"
        # The first request carried the MCP server's tools: they were there before it went.
        first = next(r for r in emulator.requests if r.api == "anthropic")
        names = {t["name"] for t in first.body["tools"]}
        assert {"mcp__inv__total", "mcp__inv__add"} <= names
        assert "opening" not in str(app.query_one("#header").render())
