"""MCP tools through the official `mcp` package (a stdio server in a subprocess): pinned into
the frozen prefix in a stable order, called by the model through the emulator, and a tool list
that changes mid-session is a priced prefix change, applied only with its quote."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from prefixlock import Agent, FrozenPrefix, PrefixChanged, ToolResult
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step

SERVER = str(Path(__file__).resolve().parent.parent / "helpers" / "mcp_server.py")
SYSTEM = "You answer questions about invoices with the tools you have.\n" * 150
SCRIPT = Script(rules=[
    Rule(match="total", steps=[Step(text="Asking.", tool="total", input={"number": "INV-7"}),
                               Step(text="It is 12.30.")]),
    Rule(match="grow", steps=[Step(text="Growing.", tool="grow"), Step(text="Grown.")]),
    Rule(match="fail", steps=[Step(text="Trying.", tool="fail"), Step(text="It failed.")]),
])


async def test_mcp_tools_in_the_prefix_and_a_changed_list_is_priced() -> None:
    pytest.importorskip("mcp")
    from prefixlock.mcp_tools import McpServer

    async with McpServer.stdio(sys.executable, [SERVER]) as server:
        names = [t.name for t in server.tools]
        assert names == sorted(names) == ["add", "fail", "grow", "total"]
        assert "title" not in str(server.tools[0].spec.input_schema)
        prefix = FrozenPrefix(system=SYSTEM, tools=server.tools)
        with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
            agent = Agent(prefix, model="claude-sonnet-4-6", base_url=emu.base_url,
                          api_key="test-key", clock=emu.clock)
            async with agent.session() as s:
                events = [e async for e in s.send("total of INV-7?")]
                result = next(e for e in events if isinstance(e, ToolResult))
                assert result.content == "INV-7: 12.30" and not result.is_error
                failed = [e async for e in s.send("fail please")]
                bad = next(e for e in failed if isinstance(e, ToolResult))
                assert bad.is_error and "McpToolError" in bad.content and "fail" in bad.content
                assert await server.refresh(s) is None  # unchanged: nothing to price
                await s.ask("grow the tools")  # the server now offers `discount`
                change = await server.refresh(s)
                assert change is not None
                assert [t.name for t in change.added] == ["discount"] and not change.removed
                assert change.quote.action == "change_tools" and change.quote.warns
                assert "discount" not in s.prefix.tool_names()  # nothing applied yet
                change.apply()
                assert "discount" in s.prefix.tool_names()
                moved = [e async for e in s.send("total again")]
                assert any(isinstance(e, PrefixChanged) for e in moved)
    # The same server gives the same prefix bytes on another run.
    async with McpServer.stdio(sys.executable, [SERVER]) as again:
        assert FrozenPrefix(system=SYSTEM, tools=again.tools).fingerprint == prefix.fingerprint
