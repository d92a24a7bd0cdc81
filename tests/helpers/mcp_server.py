"""A small MCP server over stdio for tests (official `mcp` package): two invoice tools, and
`grow`, which adds a `discount` tool and says so (tools/list_changed), so the server's tool
list changes mid-session. With INV_DISCOUNT_IF naming a file that exists when it starts, it
lists `discount` from the start (a restart after the file appears lists other tools)."""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("invoices")


@app.tool()
def total(number: str) -> str:
    """The total of an invoice."""
    return f"{number}: 12.30"


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def discount(number: str, percent: int) -> str:
    """Discount an invoice."""
    return f"{number} discounted {percent}%"


@app.tool()
async def grow(ctx: Context) -> str:
    """Offer one more tool."""
    app.add_tool(discount)
    await ctx.session.send_tool_list_changed()  # as a server should: the client may re-list
    return "added discount"


@app.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("ledger locked")


if os.environ.get("INV_DISCOUNT_IF") and Path(os.environ["INV_DISCOUNT_IF"]).exists():
    app.add_tool(discount)

if __name__ == "__main__":
    app.run()
