"""MCP tools pinned into the frozen prefix: a stdio MCP server (the official `mcp` package,
`pip install prefixlock[mcp]`) named in a Claude Code `.mcp.json` offers its tools; they join
the prefix as `mcp__invoices__*`, sorted, and the model calls one. A deny rule in
`.claude/settings.json` refuses one tool. The server is the project's, so it starts only once
the user consents (here `enabledMcpjsonServers` in the local `.claude/settings.local.json`),
and its tools run only when allowed (an allow rule: headless, nobody is asked). When the server
announces a new tool list (tools/list_changed), `announced_changes` prices the prefix change and
the cache policy decides before anything moves. `server.restart(session)` starts the server
again: the same tools keep the prefix byte for byte (the next request reads the cache), other
tools are a priced change, as a refresh is. Offline: the server is a subprocess, the model the
emulator's script."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

from prefixlock import Agent, FrozenPrefix, ToolResult, UsageReport
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step

SERVER = '''
from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("invoices")

@app.tool()
def total(number: str) -> str:
    """The total of an invoice."""
    return f"{number}: 12.30"

def discount(number: str, percent: int) -> str:
    """Discount an invoice."""
    return f"{number} discounted {percent}%"

@app.tool()
async def grow(ctx: Context) -> str:
    """Offer one more tool."""
    app.add_tool(discount)
    await ctx.session.send_tool_list_changed()
    return "added discount"

app.run()
'''
SCRIPT = Script(
    rules=[
        Rule(
            match="total",
            steps=[
                Step(text="Asking.", tool="mcp__invoices__total", input={"number": "INV-7"}),
                Step(text="It is 12.30."),
            ],
        ),
        Rule(
            match="grow",
            steps=[Step(text="Growing.", tool="mcp__invoices__grow"), Step(text="Grown.")],
        ),
    ]
)


async def main() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("install prefixlock[mcp] to run this example")
        return
    from prefixlock.coding.mcp_consent import consent
    from prefixlock.coding.mcp_tools import announced_changes, open_servers
    from prefixlock.coding.permissions import Permissions
    from prefixlock.coding.settings_files import load_settings
    from prefixlock.guard.policy import CachePolicy

    Path("invoice_server.py").write_text(SERVER)
    Path(".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"invoices": {"command": sys.executable, "args": ["invoice_server.py"]}}}
        )
    )
    Path(".claude").mkdir(exist_ok=True)
    Path(".claude/settings.json").write_text(
        json.dumps({"permissions": {"deny": ["mcp__invoices__total"]}})
    )
    settings = load_settings(Path("."))  # what `prefixlock chat` and `prefixlock run` read
    # A server the project's own files declare waits for the user's consent.
    print("consent:", [consent(c, settings).verdict for c in settings.mcp_servers])
    # The user's local settings (not committed) approve it and allow one of its tools.
    Path(".claude/settings.local.json").write_text(
        json.dumps(
            {
                "enabledMcpjsonServers": ["invoices"],
                "permissions": {"allow": ["mcp__invoices__grow"]},
            }
        )
    )
    settings = load_settings(Path("."))
    startable = [c for c in settings.mcp_servers if consent(c, settings).starts]
    print("consent:", [consent(c, settings).verdict for c in settings.mcp_servers])
    permissions = Permissions(settings)  # headless gate: a call nobody allowed is refused
    async with contextlib.AsyncExitStack() as stack:
        servers = await open_servers(stack, startable, gate=permissions.refuse_tool)
        tools = [t for server in servers for t in server.tools]
        print("MCP tools:", [t.name for t in tools])
        prefix = FrozenPrefix(system="You answer about invoices.\n" * 150, tools=tools)
        with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
            agent = Agent(
                prefix,
                model="claude-sonnet-4-6",
                base_url=emu.base_url,
                api_key="test-key",
                clock=emu.clock,
            )
            async with agent.session() as s:
                async for event in s.send("total of INV-7?"):
                    if isinstance(event, ToolResult):
                        print(f"{event.name} -> {event.content}")  # refused by the rule
                # Restarted (a new process) with the same tools: no byte of the prefix moves.
                (server,) = servers
                before = s.prefix.fingerprint
                assert await server.restart(s) is None and s.prefix.fingerprint == before
                reports = [e async for e in s.send("total again?") if isinstance(e, UsageReport)]
                print("after the restart, read from the cache:", reports[0].usage.cache_read)
                assert reports[0].usage.cache_read > 0
                await s.ask("grow the tools")
                for change in await announced_changes(servers, s):
                    print("the server's tools changed:", change.describe())
                    print(change.quote.summary())
                    if CachePolicy(tools="always").allow_tools(change.quote):
                        change.apply(policy="allow")
                print("prefix tools now:", list(s.prefix.tool_names()))
                # The new process lists no `discount` (the old one added it): priced, as ever.
                restarted = await server.restart(s)
                assert restarted is not None
                print("restarted:", restarted.describe(), "-", restarted.quote.summary())


if __name__ == "__main__":
    asyncio.run(main())
