"""MCP tools through the official `mcp` package (a stdio server in a subprocess, and the same
server over streamable HTTP on 127.0.0.1, served by uvicorn in process): pinned into
the frozen prefix in a stable order, called by the model through the emulator, and a tool list
that changes mid-session is a priced prefix change, applied only with its quote."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from prefixlock import Agent, FrozenPrefix, PrefixChanged, ToolResult
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step
from prefixlock.guard.policy import CachePolicy

SERVER = str(Path(__file__).resolve().parent.parent / "helpers" / "mcp_server.py")
SYSTEM = "You answer questions about invoices with the tools you have.\n" * 150
SCRIPT = Script(
    rules=[
        Rule(
            match="total",
            steps=[
                Step(text="Asking.", tool="total", input={"number": "INV-7"}),
                Step(text="It is 12.30."),
            ],
        ),
        Rule(match="grow", steps=[Step(text="Growing.", tool="grow"), Step(text="Grown.")]),
        Rule(match="fail", steps=[Step(text="Trying.", tool="fail"), Step(text="It failed.")]),
    ]
)


async def test_mcp_tools_in_the_prefix_and_a_changed_list_is_priced() -> None:
    pytest.importorskip("mcp")
    from prefixlock.coding.mcp_tools import McpServer, announced_changes

    async with McpServer.stdio(sys.executable, [SERVER]) as server:
        names = [t.name for t in server.tools]
        assert names == sorted(names) == ["add", "fail", "grow", "total"]
        assert "title" not in str(server.tools[0].spec.input_schema)
        prefix = FrozenPrefix(system=SYSTEM, tools=server.tools)
        with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
            agent = Agent(
                prefix,
                model="claude-sonnet-4-6",
                base_url=emu.base_url,
                api_key="test-key",
                clock=emu.clock,
            )
            async with agent.session() as s:
                events = [e async for e in s.send("total of INV-7?")]
                result = next(e for e in events if isinstance(e, ToolResult))
                assert result.content == "INV-7: 12.30" and not result.is_error
                failed = [e async for e in s.send("fail please")]
                bad = next(e for e in failed if isinstance(e, ToolResult))
                assert bad.is_error and "McpToolError" in bad.content and "fail" in bad.content
                assert await server.refresh(s) is None  # unchanged: nothing to price
                assert not server.list_changed and await announced_changes([server], s) == []
                await s.ask("grow the tools")  # the server now offers `discount`, and says so
                assert server.list_changed  # its tools/list_changed notification
                [change] = await announced_changes([server], s)
                assert not server.list_changed  # listed again: asked once per announcement
                assert await announced_changes([server], s) == []
                assert [t.name for t in change.added] == ["discount"] and not change.removed
                assert change.describe() == "added discount"
                assert change.quote.action == "change_tools" and change.quote.warns
                # A warm cache: the default policy keeps the pinned list, "always" moves.
                assert not CachePolicy().allow_tools(change.quote)
                assert CachePolicy(tools="always").allow_tools(change.quote)
                assert "discount" not in s.prefix.tool_names()  # nothing applied yet
                change.apply()
                assert "discount" in s.prefix.tool_names()
                moved = [e async for e in s.send("total again")]
                assert any(isinstance(e, PrefixChanged) for e in moved)
    # The same server gives the same prefix bytes on another run.
    async with McpServer.stdio(sys.executable, [SERVER]) as again:
        assert FrozenPrefix(system=SYSTEM, tools=again.tools).fingerprint == prefix.fingerprint


@contextlib.asynccontextmanager
async def _http_server() -> AsyncIterator[str]:
    """The helper server's app over streamable HTTP, served by uvicorn in this event loop on a
    socket bound and listening before the server starts (no wait for it to come up)."""
    import uvicorn

    from tests.helpers import mcp_server

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    app = mcp_server.app.streamable_http_app(host="127.0.0.1")
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_mcp_over_streamable_http_is_pinned_and_a_changed_list_is_priced() -> None:
    pytest.importorskip("mcp")
    from prefixlock.coding.mcp_tools import McpServer

    async with _http_server() as url:
        async with McpServer.http(url, prefix="inv_") as server:
            names = [t.name for t in server.tools]
            assert names == sorted(names) == ["inv_add", "inv_fail", "inv_grow", "inv_total"]
            prefix = FrozenPrefix(system=SYSTEM, tools=server.tools)
            script = Script(
                rules=[
                    Rule(
                        match="total",
                        steps=[
                            Step(text="Asking.", tool="inv_total", input={"number": "INV-7"}),
                            Step(text="It is 12.30."),
                        ],
                    ),
                    Rule(
                        match="grow",
                        steps=[Step(text="Growing.", tool="inv_grow"), Step(text="Grown.")],
                    ),
                ]
            )
            with Emulator.start(clock=ManualClock(), script=script) as emu:
                agent = Agent(
                    prefix,
                    # Chat Completions: the tools come first, so a new tool re-bills them all.
                    model="openai-chat:gpt-5",
                    base_url=emu.base_url,
                    api_key="test-key",
                    clock=emu.clock,
                )
                async with agent.session() as s:
                    events = [e async for e in s.send("total of INV-7?")]
                    result = next(e for e in events if isinstance(e, ToolResult))
                    assert result.content == "INV-7: 12.30" and not result.is_error
                    assert await server.refresh(s) is None
                    await s.ask("grow the tools")
                    change = await server.refresh(s)
                    assert change is not None
                    assert [t.name for t in change.added] == ["inv_discount"]
                    # Priced before anything moves: the tools' tokens are re-billed.
                    assert change.quote.action == "change_tools"
                    assert change.quote.tokens_rebilled > 1_000
                    assert "inv_discount" not in s.prefix.tool_names()
                    change.apply()
                    applied = s.prefix.fingerprint
                    moved = [e async for e in s.send("total again")]
                    assert any(isinstance(e, PrefixChanged) for e in moved)
                tools_sent = [t["function"]["name"] for t in emu.requests[0].body["tools"]]
                assert tools_sent == sorted(tools_sent)
        # Reconnecting gives the same tools, in the same order: the same prefix bytes.
        async with McpServer.http(url, prefix="inv_") as again:
            assert FrozenPrefix(system=SYSTEM, tools=again.tools).fingerprint == applied
