"""MCP tools pinned into the frozen prefix: a stdio MCP server (the official `mcp` package,
`pip install prefixlock[mcp]`) offers two tools; they join the prefix, sorted, and the model
calls one. When the server's list changes, `refresh` prices the prefix change before anything
moves. Offline: the server is a subprocess, the model the emulator's script."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from prefixlock import Agent, FrozenPrefix, ToolResult
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step

SERVER = '''
from mcp.server.mcpserver import MCPServer

app = MCPServer("invoices")

@app.tool()
def total(number: str) -> str:
    """The total of an invoice."""
    return f"{number}: 12.30"

def discount(number: str, percent: int) -> str:
    """Discount an invoice."""
    return f"{number} discounted {percent}%"

@app.tool()
def grow() -> str:
    """Offer one more tool."""
    app.add_tool(discount)
    return "added discount"

app.run()
'''
SCRIPT = Script(rules=[
    Rule(match="total", steps=[Step(text="Asking.", tool="total", input={"number": "INV-7"}),
                               Step(text="It is 12.30.")]),
    Rule(match="grow", steps=[Step(text="Growing.", tool="grow"), Step(text="Grown.")]),
])


async def main() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("install prefixlock[mcp] to run this example")
        return
    from prefixlock.mcp_tools import McpServer

    Path("invoice_server.py").write_text(SERVER)
    async with McpServer.stdio(sys.executable, ["invoice_server.py"]) as server:
        print("MCP tools:", [t.name for t in server.tools])
        prefix = FrozenPrefix(system="You answer about invoices.\n" * 150, tools=server.tools)
        with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
            agent = Agent(prefix, model="claude-sonnet-4-6", base_url=emu.base_url,
                          api_key="test-key", clock=emu.clock)
            async with agent.session() as s:
                async for event in s.send("total of INV-7?"):
                    if isinstance(event, ToolResult):
                        print(f"{event.name} -> {event.content}")
                await s.ask("grow the tools")
                change = await server.refresh(s)
                if change is not None:
                    print("the server's tools changed:", [t.name for t in change.added])
                    print(change.quote.summary())
                    change.apply()
                print("prefix tools now:", list(s.prefix.tool_names()))


if __name__ == "__main__":
    asyncio.run(main())
