"""Tools from MCP servers (the official `mcp` package, extra `prefixlock[mcp]`), pinned into the
frozen prefix at session start.

    async with McpServer.stdio("python", ["server.py"]) as server:
        prefix = FrozenPrefix(system=..., tools=[*my_tools, *server.tools])
        async with Agent(prefix, ...).session() as s:
            ...
            change = await server.refresh(s)      # the server's tool list changed?
            if change is not None:                # a priced prefix change, never a silent one
                print(change.quote.summary()); change.apply()

The tools are listed once, when the server is opened, and become ordinary tools of the prefix:
their specs are canonical bytes sorted by name like every other tool, so the same server gives
the same prefix bytes on every run whatever order it lists them in. A call goes to the server
(`tools/call`); an MCP error result becomes an error tool result for the model. A server whose
list changes later changes nothing by itself: `refresh(session)` lists again and, when the list
differs from what the session's prefix holds, returns the change with the guard's quote
(`s.quote_tools`), applied only by `change.apply()` (`s.change_tools` with that quote).
`restart(session)` stops the server and starts it again (a new process or connection): a
server that lists the same tools keeps the prefix byte for byte (the pinned tools call the new
process), one that lists others gives the priced change, as `refresh` does.
A server that sends `notifications/tools/list_changed` sets `server.list_changed`;
`announced_changes(servers, session)` refreshes just those servers. The chat offers each such
change with its quote (like an edited instruction file); `prefixlock run` applies it when
`CachePolicy.allow_tools` says so and otherwise keeps the pinned list.
Stdio servers and streamable HTTP servers both work.

`open_servers(stack, configs, gate=...)` opens the servers the settings files name
(`[mcp_servers]`, `.mcp.json`), each tool named `mcp__SERVER__TOOL` as in Claude Code, for the
chat and `prefixlock run` alike; `gate` (the permission rules' `Permissions.refuse_tool`) is
asked before every call, so a deny rule naming an MCP tool refuses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..extras import need
from ..tools import Tool, ToolSpec, check_tool_name, strip_titles

if TYPE_CHECKING:
    from mcp import ClientSession

    from ..guard.quote import Quote
    from ..session import Session
    from .settings_files import McpServerConfig

#: Asked before each call with the tool's (prefixed) name: a reason to refuse it, or None.
Gate = Callable[[str], "str | None"]
#: Makes a new transport to the server each time it is opened: a context manager yielding
#: (read stream, write stream, ...).
Connect = Callable[[], AbstractAsyncContextManager[Any]]


class McpToolError(Exception):
    """An MCP server answered a tool call with an error result (the model sees its text)."""


@dataclass(frozen=True)
class ToolListChange:
    """A server's tool list differs from the session's prefix: what changed and its price."""

    session: Session
    quote: Quote
    added: tuple[Tool, ...]
    removed: tuple[str, ...]
    changed: tuple[Tool, ...]

    def describe(self) -> str:
        """What changed, for the user: `added mcp__inv__discount; removed ...`."""
        parts = [
            f"{label} {', '.join(names)}"
            for label, names in (
                ("added", [t.name for t in self.added]),
                ("removed", list(self.removed)),
                ("changed", [t.name for t in self.changed]),
            )
            if names
        ]
        return "; ".join(parts)

    def apply(self, *, policy: str | None = None) -> Quote:
        """Move the session to the new list (its quote, or `policy="allow"`)."""
        return self.session.change_tools(
            add=[*self.added, *self.changed],
            remove=self.removed,  # a changed tool is replaced by adding it
            quote=None if policy else self.quote,
            policy=policy,
        )


class McpServer:
    """A connection to one MCP server and the tools it offered when opened."""

    def __init__(
        self, connect: Connect, label: str, *, prefix: str = "", gate: Gate | None = None
    ) -> None:
        self._connect = connect  # called once per start: a restart needs a fresh transport
        self.label = label
        self.prefix = prefix  # prepended to each tool name ("" keeps the server's names)
        self.gate = gate  # asked before each call (permission rules); None: every call runs
        self.tools: tuple[Tool, ...] = ()
        # The server announced a new tool list (tools/list_changed) since it was last listed.
        self.list_changed: bool = False
        self._listed: set[str] = set()  # every tool name it ever listed (they may be pinned)
        # The task holding the connection open, and the event that ends it.
        self._holder: tuple[asyncio.Task[None], asyncio.Event] | None = None
        self._session: ClientSession | None = None

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        prefix: str = "",
        gate: Gate | None = None,
        errlog: Any = None,
        log: Path | None = None,
    ) -> McpServer:
        """A server run as a subprocess speaking MCP over its stdin/stdout; its stderr goes to
        `errlog` (an open file; None: this process's stderr), or appended to the file `log`
        (opened at each start, closed when the server stops)."""
        need("mcp", "mcp", "McpServer")
        from mcp import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=command, args=list(args), env=dict(env) if env is not None else None
        )

        @contextlib.asynccontextmanager
        async def connect() -> AsyncIterator[Any]:
            with contextlib.ExitStack() as files:
                out = errlog or _errlog()
                if log is not None:
                    log.parent.mkdir(parents=True, exist_ok=True)
                    out = files.enter_context(log.open("a", encoding="utf-8"))
                async with stdio_client(params, errlog=out) as streams:
                    yield streams

        return cls(connect, f"stdio:{command}", prefix=prefix, gate=gate)

    @classmethod
    def http(cls, url: str, *, prefix: str = "", gate: Gate | None = None) -> McpServer:
        """A server reached over streamable HTTP at `url`."""
        need("mcp", "mcp", "McpServer")
        from mcp.client.streamable_http import streamable_http_client

        return cls(lambda: streamable_http_client(url), url, prefix=prefix, gate=gate)

    @classmethod
    def from_config(
        cls, config: McpServerConfig, *, gate: Gate | None = None, log: Path | None = None
    ) -> McpServer:
        """The server a settings entry names; its tools are `mcp__NAME__TOOL`; a stdio
        server's stderr is appended to `log` (None: this process's stderr)."""
        prefix = f"mcp__{config.name}__"
        if config.url is not None:
            return cls.http(config.url, prefix=prefix, gate=gate)
        return cls.stdio(
            config.command, config.args, env=config.env, prefix=prefix, gate=gate, log=log
        )

    async def __aenter__(self) -> McpServer:
        need("mcp", "mcp", "McpServer")
        await self._open()
        try:
            self.tools = await self._list()
        except BaseException:
            await self._close()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._close()

    async def restart(self, session: Session) -> ToolListChange | None:
        """Stop the server and start it again, then list its tools. None when `session`'s
        prefix already holds exactly them: nothing changes, not a byte (the pinned tools now
        call the new process). Else the change, priced by the guard; nothing is applied, as
        with `refresh`. A server that does not start again raises and stays stopped."""
        with contextlib.suppress(Exception):  # a server that crashed: its end is not news
            await self._close()
        await self._open()
        return await self.refresh(session)

    async def _open(self) -> None:
        # The MCP client's task groups must be left from the task that entered them; the
        # connection lives in a task of its own, so any task may open, restart or close it.
        loop = asyncio.get_running_loop()
        opened: asyncio.Future[ClientSession] = loop.create_future()
        close = asyncio.Event()
        task = loop.create_task(self._hold(opened, close), name=f"MCP server {self.label}")
        try:
            self._session = await opened
        except BaseException:
            close.set()
            with contextlib.suppress(BaseException):  # its failure is the one raised here
                await task
            raise
        self._holder = (task, close)

    async def _hold(self, opened: asyncio.Future[ClientSession], close: asyncio.Event) -> None:
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._connect())
                session = await stack.enter_async_context(
                    ClientSession(streams[0], streams[1], message_handler=self._on_message)
                )
                await session.initialize()
                if opened.done():  # the opener was cancelled meanwhile
                    return
                opened.set_result(session)
                await close.wait()
        except BaseException as exc:
            if opened.done():
                raise
            if isinstance(exc, asyncio.CancelledError):
                opened.cancel()
            else:
                opened.set_exception(exc)

    async def _close(self) -> None:
        holder, self._holder = self._holder, None
        self._session = None
        if holder is not None:
            task, close = holder
            close.set()
            await task

    async def _on_message(self, message: object) -> None:
        from mcp import types

        if isinstance(message, types.ToolListChangedNotification):
            self.list_changed = True  # acted on where it is safe: see announced_changes

    async def _list(self) -> tuple[Tool, ...]:
        session = self._require()
        self.list_changed = False  # cleared before the call: a notice during it still counts
        listed = await session.list_tools()
        tools = tuple(
            sorted(
                (self._tool(t.name, t.description or "", t.input_schema) for t in listed.tools),
                key=lambda t: t.name,
            )
        )
        self._listed.update(t.name for t in tools)
        return tools

    def _require(self) -> ClientSession:
        if self._session is None:
            raise ConfigError(f"MCP server {self.label} is not open: use `async with`")
        return self._session

    def _tool(self, name: str, description: str, schema: Mapping[str, Any]) -> Tool:
        local = check_tool_name(f"{self.prefix}{name}")

        async def call(**arguments: Any) -> str:
            if self._session is None:  # stopped (a restart that failed): nothing to ask
                raise McpToolError(f"{local}: the MCP server {self.label} is not running")
            refused = self.gate(local) if self.gate is not None else None
            if refused is not None:  # the model reads this as the tool's error
                raise McpToolError(f"{local}: refused ({refused})")
            result = await self._require().call_tool(name, arguments)
            text = "\n".join(
                str(getattr(c, "text", "")) or f"[{getattr(c, 'type', 'content')}]"
                for c in result.content
            )
            if result.is_error:
                raise McpToolError(text or f"{self.label}: {name} failed")
            return text

        call.__name__ = local
        return Tool(ToolSpec(local, description, strip_titles(dict(schema))), call, None)

    async def refresh(self, session: Session) -> ToolListChange | None:
        """List the server's tools again. None when the session's prefix already holds exactly
        them; else the change, priced by the guard (nothing is applied)."""
        fresh = {t.name: t for t in await self._list()}
        # Every name this server ever listed: a tool it dropped while the user kept the old
        # list is still the server's (and still a removal to offer).
        held = {t.name: t for t in session.prefix.tools if t.name in self._listed}
        self.tools = tuple(fresh[n] for n in sorted(fresh))
        added = tuple(fresh[n] for n in sorted(set(fresh) - set(held)))
        removed = tuple(sorted(set(held) - set(fresh)))
        changed = tuple(
            fresh[n] for n in sorted(set(fresh) & set(held)) if fresh[n].spec != held[n]
        )
        if not (added or removed or changed):
            return None
        quote = session.quote_tools(add=[*added, *changed], remove=removed)
        return ToolListChange(session, quote, added, removed, changed)


async def announced_changes(servers: Iterable[McpServer], session: Session) -> list[ToolListChange]:
    """The priced tool-list changes of the servers that announced one (tools/list_changed)
    since they were last listed; the others are not asked. Nothing is applied."""
    changes = []
    for server in servers:
        if server.list_changed:
            change = await server.refresh(session)
            if change is not None:
                changes.append(change)
    return changes


async def open_servers(
    stack: contextlib.AsyncExitStack,
    configs: Iterable[McpServerConfig],
    *,
    gate: Gate | None = None,
    log_dir: Path | None = None,
    on_failure: Callable[[McpServerConfig, str], None] | None = None,
) -> list[McpServer]:
    """Open each configured server on `stack` (closed with it) and list its tools. One that
    does not start is a ConfigError naming its settings entry (the CLI's one line, exit 2);
    with `on_failure`, it is left out and `on_failure(config, why)` told instead, so the
    others and the session go on. With `log_dir`, each stdio server's stderr goes to
    `log_dir/NAME.log` (`server_log`), never over a screen."""
    opened: list[McpServer] = []
    for cfg in configs:
        log = server_log(log_dir, cfg.name) if log_dir is not None else None
        server = McpServer.from_config(cfg, gate=gate, log=log)
        try:
            await stack.enter_async_context(server)
        except ConfigError:
            raise
        except Exception as exc:
            what = cfg.url or cfg.command
            table = "mcpServers" if cfg.source.endswith(".mcp.json") else "mcp_servers"
            why = f"MCP server {cfg.name!r} ({what}) did not start: {type(exc).__name__}: {exc}"
            if on_failure is not None:
                on_failure(cfg, why)
                continue
            raise ConfigError(why, where=f"{cfg.source}: {table}.{cfg.name}") from None
        opened.append(server)
    return opened


def server_log(log_dir: Path, name: str) -> Path:
    """Where a stdio server's stderr is kept."""
    return log_dir / f"{name}.log"


def _errlog() -> Any:
    """Where the server's stderr goes: ours, if it is a real file. Under pytest's capture or in
    a notebook sys.stderr has no file descriptor, and a subprocess cannot write to it; the
    process's original stderr can take it."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__
    return sys.stderr
