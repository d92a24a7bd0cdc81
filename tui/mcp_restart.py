"""`/mcp restart NAME`: stop one MCP server and start it again, without a silent prefix change.

A server's tools are pinned in the frozen prefix. A restart that lists the same tools changes no
byte of it (the pinned tools call the new process), so the next request reads the cache; one
that lists other tools is a prefix change, priced by the guard and offered like an edited
instruction file: taken only on a yes. A server that failed at the start is started the same
way (its tools, new to the prefix, are the priced change). A server that does not start again
is said in one line with its log, and the session goes on without it.

`restart_server` is the backend's half (no screen); `McpCommands` is the app's `/mcp`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from prefixlock.errors import UserError

if TYPE_CHECKING:
    from prefixlock.coding.mcp_tools import McpServer, ToolListChange

    from .backend import ChatBackend
    from .widgets import Note


class McpRestartError(UserError):
    """A restart that cannot be done (no such server, not approved, did not start)."""


@dataclass
class Restarted:
    """A server started again: `change` is None when its tools are the prefix's already."""

    backend: ChatBackend
    name: str
    server: McpServer
    change: ToolListChange | None

    def take(self) -> None:
        """Put the server's new tool list in the prefix (the quoted change)."""
        if self.change is not None:
            self.change.apply()
        self._running()

    async def leave(self) -> None:
        """Keep the prefix as it is. A server that was running goes on (its pinned tools stay,
        as when a server's announced change is declined); one whose tools the prefix never held
        is stopped again."""
        if self.server in self.backend.mcp_servers:
            return
        with contextlib.suppress(Exception):
            await self.server.__aexit__(None, None, None)
        self.backend.mcp_failed[self.name] = "started again, its tools not put in the prefix"

    def _running(self) -> None:
        self.backend.mcp_failed.pop(self.name, None)
        if self.server not in self.backend.mcp_servers:
            self.backend.mcp_servers.append(self.server)


async def restart_server(backend: ChatBackend, name: str) -> Restarted:
    """Stop the server the settings call `name` (if it runs), start it, list its tools and
    compare them with the session's prefix. A failure is an McpRestartError whose text is the
    one line to show; a server that fails to start is left out (`/mcp` says so, with its log)."""
    from prefixlock.coding.mcp_consent import consent
    from prefixlock.coding.mcp_tools import McpServer, server_log

    config = next((c for c in backend.chat_settings.mcp_servers if c.name == name), None)
    if config is None:
        names = ", ".join(c.name for c in backend.chat_settings.mcp_servers) or "none declared"
        raise McpRestartError(f"no MCP server named {name!r} ({names}); /mcp lists them")
    if not consent(config, backend.chat_settings, backend.mcp_consent.answers).starts:
        raise McpRestartError(
            f"MCP server {name!r} from {config.source} is not approved for this project: "
            "enabledMcpjsonServers in .claude/settings.local.json approves it"
        )
    session = backend.session
    prefix = f"mcp__{name}__"
    server = next((s for s in backend.mcp_servers if s.prefix == prefix), None)
    if server is None:
        server = backend.mcp_stopped.get(name)
    if server is None:  # never started (it failed at the start): a new connection
        log = server_log(backend.mcp_log_dir, name) if config.url is None else None
        server = McpServer.from_config(config, gate=backend._mcp_gate, log=log)
    try:
        change = await server.restart(session)
    except Exception as exc:
        if server in backend.mcp_servers:
            backend.mcp_servers.remove(server)
        backend.mcp_stopped[name] = server  # its tools may be pinned: it is the same server
        why = f"{type(exc).__name__}: {exc}"
        backend.mcp_failed[name] = f"did not start again: {why}"
        where = f" (its log: {server_log(backend.mcp_log_dir, name)})" if config.url is None else ""
        raise McpRestartError(
            f"MCP server {name!r} did not start again: {why}{where}; the session goes on without it"
        ) from None
    backend.mcp_stopped.pop(name, None)
    restarted = Restarted(backend, name, server, change)
    if change is None:
        restarted.take()  # the same tools: nothing to price
    return restarted


class McpCommands(App[None]):
    """The app's `/mcp`: list the servers, or restart one (a base class of `ChatApp`)."""

    backend: ChatBackend

    async def add_note(self, text: str, kind: str = "info") -> Note:
        raise NotImplementedError  # ChatApp's

    def refresh_panel(self) -> None:
        raise NotImplementedError  # ChatApp's

    async def cmd_mcp(self, args: tuple[str, ...]) -> None:
        if not args:
            await self.add_note(self.backend.mcp_text(), "info")
        elif getattr(self, "busy", False):
            await self.add_note("wait for the running turn to finish", "warn")
        else:
            self.restart_mcp(args[1])

    @work(exclusive=True, group="dialog")
    async def restart_mcp(self, name: str) -> None:
        await self.add_note(f"restarting MCP server {name!r}…", "info")
        try:
            restarted = await restart_server(self.backend, name)
        except McpRestartError as exc:
            await self.add_note(str(exc), "error")
            return
        change = restarted.change
        if change is None:
            n = len(restarted.server.tools)
            await self.add_note(
                f"restarted MCP server {name!r}: the same {n} tool{'s' if n != 1 else ''}, "
                "the prefix unchanged (the next request reads the cache)",
                "info",
            )
            return
        from .quotes import change_rows
        from .screens import ConfirmScreen

        what = change.describe()
        ok = await self.push_screen_wait(
            ConfirmScreen(
                f"MCP server {name!r} restarted with other tools: put them in the prefix?",
                change_rows(change.quote, what),
            )
        )
        if ok:
            restarted.take()
            await self.add_note(f"the prefix now holds the new MCP tools ({what})", "warn")
        else:
            await restarted.leave()
            await self.add_note(
                f"kept the prefix as it was ({what} not taken)"
                + ("" if restarted.server in self.backend.mcp_servers else f"; {name!r} stopped"),
                "info",
            )
        self.refresh_panel()
