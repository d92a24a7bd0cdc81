"""The chat app's link to the SDK: one session (on a real provider, or on the in-process
emulator when no key is set), its workspace tools, store, guard quotes and subagents.

No Textual here: the app calls these methods and renders what they return, and tests can drive a
backend on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from prefixlock.billing.prices import PriceTable
from prefixlock.cache.defaults import UNPRICED_TTL_SECONDS, model_min_tokens, model_ttl
from prefixlock.clock import Clock, SystemClock
from prefixlock.coding.custom_commands import CustomCommand, load_commands
from prefixlock.coding.instructions import INSTRUCTION_FILES as INSTRUCTION_FILES
from prefixlock.coding.instructions import INSTRUCTION_LIMIT as INSTRUCTION_LIMIT
from prefixlock.coding.instructions import project_instructions as project_instructions
from prefixlock.coding.mcp_consent import ConsentFile, command_line, consent, consent_path
from prefixlock.coding.permissions import Permissions
from prefixlock.coding.sandbox import SandboxOptions
from prefixlock.coding.settings_files import ChatSettings, McpServerConfig
from prefixlock.coding.workspace import (
    ApprovalRequest,
    Approver,
    Decision,
    Workspace,
    WorkspaceError,
)
from prefixlock.errors import (
    ConfigError,
    MissingKeyError,
    PrefixlockError,
    UnknownModelError,
    UserError,
)
from prefixlock.events import (
    Event,
    PrefixChanged,
    SubagentFinish,
    SubagentStart,
    ToolCall,
    ToolResult,
    TurnComplete,
    UsageReport,
)
from prefixlock.providers.registry import KEY_VAR_NAMES

from .network_approval import NetworkApprovals
from .state import CacheState, PanelView, format_dollars
from .undo import UndoJournal

if TYPE_CHECKING:  # each is imported where it is used: the chat starts without what it lacks,
    # and the prompt shows before the session's machinery is loaded (`preload`)
    from prefixlock.agent import Agent
    from prefixlock.agents.registry import AgentRegistry
    from prefixlock.agents.runner import SubagentDelegator
    from prefixlock.coding.hooks import Hook, HookConsent, HookRunner
    from prefixlock.coding.mcp_tools import McpServer, ToolListChange
    from prefixlock.delegation import DelegationResult, ParentSession
    from prefixlock.emulator import Emulator
    from prefixlock.guard.quote import Quote
    from prefixlock.media import Image, UserPart
    from prefixlock.prefix import FrozenPrefix
    from prefixlock.providers import Sleep
    from prefixlock.session import Session
    from prefixlock.settings import Settings
    from prefixlock.store.database import SessionStore
    from prefixlock.tools import Tool, ToolLike

    from .model_picker import ModelRow

DEFAULT_MODEL = "claude-sonnet-4-6"
# Requests the offline chat's emulator keeps a record of (the chat never reads it; each parsed
# body holds the whole conversation, most of a long offline session's growth when it kept 20).
EMULATOR_KEEP_REQUESTS = 1
# Requests the session keeps records and ledger rows of in memory (older rows are folded into
# the ledger's sums), and how many keep their body: each body holds the whole conversation so
# far, so even 50 of them grew with every turn. The session reads only the newest; the store
# keeps every request, and /lint reads the newest LINT_REQUESTS from it. Memory stays flat
# however long the chat runs.
KEEP_REQUESTS = 50
KEEP_BODIES = 1
LINT_REQUESTS = 50
SCRIPT_PATH = Path(__file__).with_name("data") / "chat_script.yaml"

SYSTEM_PROMPT = """\
You are prefixlock's coding assistant, working in the user's workspace through tools.

How you work:
- Look before you change anything: list_dir, glob and grep to find things, read_file to read
  them. Never guess the content of a file; quote paths as path:line.
- Change files with edit_file (an exact string replacement; copy the old text exactly from
  read_file output, without the line numbers) or write_file for new files. Each change is shown
  to the user as a diff and may be declined; if it is, say so and ask what they want instead.
- Run commands (tests, linters, builds) with run_command. It runs in the workspace root with a
  timeout and returns the exit code and the output, shortened when long.
- Paths outside the workspace are refused. Do not try to get around that.
- Side tasks that need little of this conversation's context (a broad search, a summary of
  files) can go to a subagent with the delegate tool when it is offered: it runs on its own
  model and cache and returns only a summary.
- Keep answers short and concrete. Use Markdown; put code in fenced blocks with a language.

The conversation, not this prompt, carries anything that changes (dates, file states, test
results), so this prompt and the tool list stay byte-identical for the whole session and the
provider's prompt cache keeps serving them.
"""


def api_key_from_env(env: dict[str, str] | None = None) -> str | None:
    source = os.environ if env is None else env
    for var in KEY_VAR_NAMES:
        value = source.get(var)
        if value:
            return value
    return None


@dataclass
class BackendOptions:
    """How `prefixlock chat` was asked to run."""

    model: str = DEFAULT_MODEL
    workspace: Path = field(default_factory=Path.cwd)
    store_path: Path | None = None
    resume: str | None = None
    fork: bool = False  # with `resume`: continue a copy under a new id (the original stays)
    wait: float = 0.0  # with `resume`: seconds to wait (check(), on `clock`) for its holder
    # `--model` given with `--resume`: the stored session keeps its model until the user takes
    # the priced switch the app offers once it is open. Never switched silently: a switch
    # re-bills the whole cached prefix, and that is the user's call to make with the quote.
    switch_to: str | None = None
    session_id: str | None = None
    api_key: str | None = None  # None: read from the environment; "" forces the emulator
    base_url: str | None = None
    clock: Clock | None = None
    emulator_script: Path | None = None  # None: the chat script shipped with the app
    emulator_faults: list[dict[str, Any]] = field(default_factory=list)
    allow: tuple[str, ...] = ()
    sandbox: SandboxOptions | None = None  # how commands run; None: bubblewrap, the default
    emulator: Emulator | None = None  # one already running (tests share one across app runs)
    # Offline, the URL of an emulator serving in another process (the long-session benchmark
    # measures the chat's own process that way); None: `emulator`, else the chat starts one.
    emulator_url: str | None = None
    sleep: Sleep | None = None  # the transport's sleep between retries (tests advance a clock)
    settings: Settings | None = None  # None: the defaults
    # The settings files' content (prefixlock.coding.settings_files.load_settings): permission
    # mode and rules, MCP servers. None: the defaults (ask before every write and command).
    chat_settings: ChatSettings | None = None
    # The home folder for user-level custom commands (~/.claude/commands...); None: project only.
    user_dir: Path | None = None
    # The chat's default for `Settings.compact_at` (when `settings` names none): the session
    # compacts before a turn once the context it carries passes this share of the model's
    # window, by the same rule as any Agent (prefixlock.guard.compaction). 0: never;
    # `/compact` still does it on demand.
    auto_compact_at: float = 0.85
    # Run the hooks of the workspace's own Claude Code settings (prefixlock.coding.hooks);
    # the user's own hooks (user_dir) always run.
    trust_hooks: bool = False


def session_settings(options: BackendOptions) -> Settings:
    """The chat's settings: the given ones, with `auto_compact_at` as their `compact_at` when
    they name none (the session's own auto-compaction, as any Agent's)."""
    from prefixlock.settings import Settings

    settings = options.settings or Settings()
    if settings.compact_at is None and options.auto_compact_at:
        settings = settings.with_(compact_at=options.auto_compact_at)
    return settings


def default_store_path() -> Path:
    from prefixlock.store.database import default_path

    return default_path()


class ChatBackend:
    """One chat session and everything around it: emulator, agent, store, tools, figures."""

    def __init__(self, options: BackendOptions, approve: Approver | None = None) -> None:
        self.options = options
        self.clock: Clock = options.clock or SystemClock()
        self.prices: PriceTable = PriceTable.default()
        env_key = self._env_key(options.model)
        key = options.api_key if options.api_key is not None else env_key
        self.offline: bool = not key and options.base_url is None
        self.offline_reason: str = self._offline_reason(env_key) if self.offline else ""
        # Offline, any non-empty key satisfies the emulator. Online, an explicit key is used as
        # given; a key from the environment is left to each provider (None), so switching to
        # another provider's model picks that provider's own variable.
        self._key: str | None = "emulator-local-key" if self.offline else (options.api_key or None)
        self.approve = approve
        self._granted: dict[str, int] = {}  # approved deferred calls not run yet, per tool
        # Every write and command reaches _approve (the workspace's own allow-set stays
        # empty): the settings' deny rules hold even after an "always", and /undo snapshots
        # each file before it is written.
        self.chat_settings: ChatSettings = options.chat_settings or ChatSettings()
        self.permissions: Permissions = Permissions(
            self.chat_settings,
            allowed={a for a in options.allow if a in ("write", "run")},  # type: ignore[misc]
            allow_mcp="mcp" in options.allow,
        )
        self.workspace: Workspace = Workspace(
            options.workspace,
            approve=self._approve,
            sandbox=options.sandbox or "bwrap",
            read_denied=self._read_denied,  # folder-wide reads leave denied paths out too
        )
        self.undo: UndoJournal = UndoJournal(self.workspace.root)
        # Said to the user when a setting decides an approval (the app shows it as a note).
        self.notify: Callable[[str], Awaitable[None]] | None = None
        # Told to the model with the next message (an /undo it should know about).
        self.pending_context: list[str] = []
        # Custom slash commands (name -> command) and what loading them noticed.
        self.custom_commands: dict[str, CustomCommand] | None = None
        self.command_notes: list[str] = []
        self.mcp_servers: list[McpServer] = []
        # The user's answers about the project's MCP servers, kept beside the store per
        # workspace (prefixlock.coding.mcp_consent); notes on the ones not started, for the app.
        self.mcp_consent: ConsentFile = ConsentFile(
            consent_path(options.store_path, self.workspace.root)
        )
        self.mcp_notes: list[str] = []
        self.mcp_failed: dict[str, str] = {}  # server name -> why it did not start
        self.mcp_stopped: dict[str, McpServer] = {}  # a restart that failed (tui/mcp_restart.py)
        self._mcp_task: asyncio.Task[None] | None = None
        self._mcp_close = asyncio.Event()
        self.model: str = options.model
        self.session_id: str = options.session_id or options.resume or "(new)"
        self.state: CacheState = CacheState(self.model, self._ttl(self.model), self._min_tokens)
        self.keepalive: bool = False
        self.emulator: Emulator | None = None
        self.agent: Agent | None = None
        self._session: Session | None = None
        self.store: SessionStore | None = None
        self.delegator: LiveDelegator | None = None
        # Agent definitions, read by check() (None: start() reads them).
        self.registry: AgentRegistry | None = None
        # The project's instruction files, read once now (a block of the frozen prefix); an
        # edit later is offered as a priced prefix change (instructions_change), never taken
        # silently. A version the user declined is not offered again.
        self.instructions: str = project_instructions(self.workspace.root, self.options.user_dir)
        self._declined_instructions: str | None = None
        # Each subagent's runs and their cost, by name (None: a run's cost unknown), for
        # `/cost`: a row a run grew with every delegation for the chat's life.
        self.sub_costs: dict[str, tuple[int, Decimal | None]] = {}
        # Claude Code's hooks (read at start); what is not run is said in `hook_notes`.
        self.hooks: HookRunner | None = None
        self.hook_notes: list[str] = []
        self._hooks_found: list[Hook] = []
        self._hooks_read_notes: list[str] = []
        self._hooks_answered = False
        self.hook_consent: HookConsent | None = None
        self._hooks_started = False

    @property
    def session(self) -> Session:
        """The chat's session (open from `start()` until `close()`)."""
        if self._session is None:
            raise RuntimeError("the chat has no session: start() opens it")
        return self._session

    def _env_key(self, model: str) -> str | None:
        """The environment's key for `model`'s provider (any known key if it has no route)."""
        from prefixlock.providers import resolve_route

        try:
            route = resolve_route(model, self.options.base_url, self.prices)
        except UserError:
            return api_key_from_env()
        return os.environ.get(route.key_var) or None

    def _offline_reason(self, env_key: str | None) -> str:
        """Why the app runs on the emulator, in the user's terms: --offline, or the key that
        the model's provider reads is not set (another provider's key does not count)."""
        if self.options.api_key == "" and env_key:
            return "--offline"
        if api_key_from_env() is None:
            return "No API key found"
        from prefixlock.providers import resolve_route

        try:
            var = resolve_route(self.options.model, None, self.prices).key_var
        except UserError:
            return "No API key found"
        return f"No {var} set for {self.options.model}"

    async def _approve(self, request: ApprovalRequest) -> Decision:
        """Settings first (deny rules hold even after an approval), then a call the user
        approved through the session's deferred approvals (`decide`), then allow rules and the
        permission mode, then the user; an approved write is snapshotted for /undo before it
        happens."""
        ruling = self.permissions.decide(request)
        if ruling.verdict == "deny":
            # The model reads this as the tool's error: it says which setting refused.
            raise WorkspaceError(f"{request.summary}: refused ({ruling.reason})")
        if self._granted.get(request.tool, 0) > 0:
            self._granted[request.tool] -= 1  # asked in the dialog already: not twice
        elif ruling.verdict == "allow":
            if self.notify is not None and ruling.reason != "allowed for this session":
                await self.notify(f"{request.summary}: {ruling.reason}")
        else:
            decision = await self.approve(request) if self.approve is not None else False
            if decision == "session":
                self.permissions.allowed.add(request.action)
            elif decision is not True and decision != "once":
                return False
        if request.action == "write" and request.path:
            self.undo.before_write(request.path)
        elif request.action == "run":
            # Blocking git calls, off the event loop (a big tree takes a moment to hash).
            await asyncio.to_thread(self.undo.before_command)
        return "once"

    def allow(self, action: Literal["write", "run"]) -> None:
        """Stop asking before writes / commands for the rest of the session (deny rules and
        plan mode still hold)."""
        self.permissions.allowed.add(action)

    def _min_tokens(self, model: str) -> int:
        return model_min_tokens(self.prices.lookup(model))

    def _ttl(self, model: str) -> float:
        # A price entry with no lifetime (0) is read as the default one, as no entry is.
        return float(model_ttl(self.prices.lookup(model)) or UNPRICED_TTL_SECONDS)

    @property
    def provider_label(self) -> str:
        if self.offline:
            return "EMULATOR (offline)"
        return "live: " + (self.options.base_url or "provider API")

    # -- lifecycle ------------------------------------------------------------------------------

    def check(self) -> None:
        """Fail early, before the screen opens, on what the user can fix (exit code 2)."""
        from prefixlock.providers import resolve_route

        if ":" not in self.model and self.prices.lookup(self.model) is None:
            raise UnknownModelError(
                f"unknown model {self.model!r}; `prefixlock models` lists the priced ones "
                "(openai-compat:NAME for any other)",
                where="--model",
            )
        route = resolve_route(self.model, self.options.base_url, self.prices)
        if not self.offline and not (self.options.api_key or os.environ.get(route.key_var)):
            # Online (a --base-url without a key): said now, not as a dead session on screen.
            at = f" at {self.options.base_url}" if self.options.base_url else ""
            hint = " (any value if the server ignores keys)" if self.options.base_url else ""
            raise MissingKeyError(
                f"no API key for {route.label}{at}: set {route.key_var}{hint}",
                where=route.key_var,
            )
        try:
            from prefixlock.agents.registry import AgentRegistry
        except ImportError:  # agents not installed: no subagents, nothing to check
            pass
        else:
            # The workspace's agent files (.claude/agents, .prefixlock/agents): a malformed one
            # is the user's to fix (file:line), not a session that cannot start on screen.
            self.registry = AgentRegistry.discover(self.workspace.root)
        self.load_custom_commands()  # a malformed command file: file:line, exit 2
        if self.options.store_path is not None:
            from prefixlock.store.database import SessionStore
            from prefixlock.store.leases import SessionBusyError

            # Not a store (another file, a newer schema, a folder): one line now, not a
            # session that cannot start on screen.
            with SessionStore(self.options.store_path, clock=self.clock) as store:
                if self.options.resume:
                    # UnknownSessionError names the id; a malformed row (bad JSON, a cost that
                    # is not a number, a broken blob) is one StoreError line, not a traceback
                    # or a session that cannot start on screen.
                    store.load(self.options.resume)
                    store.usage_rows(self.options.resume)
                    held = store.lease(self.options.resume)
                    if held is not None and self.options.wait > 0:
                        # Said on the terminal, before the screen: the wait is bounded. The
                        # lease waited for is kept for the session (reserve=True), so another
                        # waiter cannot take it before the screen opens.
                        self.store = self._waited(self.options.resume, self.options.wait)
                    elif held is not None and not self.options.fork:
                        # Open in another chat: one line now (fork it or wait), never two
                        # processes writing one session.
                        raise SessionBusyError(self.options.resume, held, str(store.path))

    def _waited(self, session_id: str, seconds: float) -> SessionStore:
        """The store the session will open on, holding `session_id`'s lease once its holder
        has gone (SessionBusyError after `seconds`)."""
        from prefixlock.store.database import SessionStore
        from prefixlock.store.waiting import announcer

        assert self.options.store_path is not None
        store = SessionStore(self.options.store_path, clock=self.clock)
        try:
            store.acquire(
                session_id,
                wait=seconds,
                on_wait=announcer(session_id, seconds, sys.stderr),
                reserve=True,
            )
        except BaseException:
            store.close()
            raise
        return store

    def load_custom_commands(self) -> dict[str, CustomCommand]:
        """The workspace's (and the user's) custom slash commands, read once."""
        if self.custom_commands is None:
            from .commands import COMMANDS

            self.custom_commands, self.command_notes = load_commands(
                self.workspace.root, self.options.user_dir, reserved=[c.name for c in COMMANDS]
            )
        return self.custom_commands

    def _read_denied(self, rel: str) -> str | None:
        """The read deny rule's text for a workspace-relative path (the rules as they are
        now: /permissions may change them)."""
        return self.permissions.read_rule(rel)

    async def _open_mcp_servers(self) -> None:
        """Start the settings' stdio MCP servers and list their tools (once: pinned in the
        prefix for the session). A server that fails to start is a ConfigError naming it.
        The servers live in a task of their own: the MCP client's task groups must be left
        from the task that entered them, and the app opens and closes in different ones."""
        if self._mcp_task is not None or not self.chat_settings.mcp_servers:
            return
        loop = asyncio.get_running_loop()
        opened: asyncio.Future[None] = loop.create_future()
        self._mcp_close = asyncio.Event()
        self._mcp_task = asyncio.create_task(self._hold_mcp_servers(opened, self._mcp_close))
        try:
            await opened
        except BaseException:
            self._mcp_task = None
            raise

    def mcp_to_ask(self) -> list[McpServerConfig]:
        """The project's MCP servers the user has not answered about yet (the app asks before
        `start()`; one not answered does not start)."""
        return [
            c
            for c in self.chat_settings.mcp_servers
            if consent(c, self.chat_settings, self.mcp_consent.answers).verdict == "ask"
        ]

    def answer_mcp(self, config: McpServerConfig, approved: bool) -> None:
        """The user's answer about a project server, remembered for this project."""
        self.mcp_consent.remember(config, approved)
        if self.mcp_consent.warning:
            self.mcp_notes.append(self.mcp_consent.warning)
            self.mcp_consent.warning = None

    def mcp_text(self) -> str:
        """`/mcp`: each MCP server the settings declare, where from, and its state (running
        with its tools, failed with its log, or waiting for consent)."""
        from prefixlock.coding.mcp_tools import server_log

        configs = self.chat_settings.mcp_servers
        if not configs:
            return "no MCP servers declared (.mcp.json, [mcp_servers] in settings.toml)"
        running = {s.prefix.removeprefix("mcp__").removesuffix("__"): s for s in self.mcp_servers}
        lines = ["MCP servers:"]
        for c in configs:
            if c.name in running:
                server = running[c.name]
                n = len(server.tools)
                if self._session is not None:  # what the prefix holds (a new list not taken)
                    n = sum(t.startswith(server.prefix) for t in self.session.prefix.tool_names())
                state = f"running, {n} tool{'s' if n != 1 else ''} pinned in the prefix"
                if n != len(server.tools):
                    state += f" ({len(server.tools)} listed by the server now)"
            elif c.name in self.mcp_failed:
                log = server_log(self.mcp_log_dir, c.name)
                state = f"failed: {self.mcp_failed[c.name]} (log: {log})"
            else:
                verdict = consent(c, self.chat_settings, self.mcp_consent.answers)
                state = "declined" if verdict.verdict == "declined" else "not approved"
                if verdict.starts:
                    state = "starting"
            lines.append(f"  {c.name} ({c.source}): {state}")
            lines.append(f"    runs: {command_line(c)}")
        return "\n".join(lines)

    def _startable_mcp(self) -> list[McpServerConfig]:
        """The servers that may start: the user's own and the approved project ones; a note
        for each project server left out."""
        started = []
        for config in self.chat_settings.mcp_servers:
            verdict = consent(config, self.chat_settings, self.mcp_consent.answers)
            if verdict.starts:
                started.append(config)
            else:
                self.mcp_notes.append(
                    f"MCP server {config.name!r} from {config.source} not started "
                    f"({'declined' if verdict.verdict == 'declined' else 'not approved'}: "
                    f"{verdict.reason or 'no answer'}; `{command_line(config)}`). "
                    "enabledMcpjsonServers in .claude/settings.local.json approves it"
                )
        return started

    def _mcp_gate(self, name: str) -> str | None:
        """Asked before each MCP tool call: deny rules and plan mode refuse; a call that needs
        the user runs only when the dialog approved it (the session deferred it)."""
        ruling = self.permissions.decide_tool(name)
        if ruling.verdict == "deny":
            return ruling.reason
        if ruling.verdict == "allow":
            return None
        if self._granted.get(name, 0) > 0:
            self._granted[name] -= 1
            return None
        return "not approved by the user"

    def mcp_tool_names(self) -> set[str]:
        """Every MCP tool name the session may call (what the servers list now)."""
        return {t.name for server in self.mcp_servers for t in server.tools}

    async def _hold_mcp_servers(self, opened: asyncio.Future[None], close: asyncio.Event) -> None:
        from prefixlock.coding.mcp_tools import open_servers

        try:
            async with contextlib.AsyncExitStack() as stack:
                # Each call asks the permission rules first, then the user (_mcp_gate).
                # A server that fails is left out, said in one line with its log (its
                # stderr goes there, never over the screen); the session starts without it.
                self.mcp_servers = await open_servers(
                    stack,
                    self._startable_mcp(),
                    gate=self._mcp_gate,
                    log_dir=self.mcp_log_dir,
                    on_failure=self._mcp_failed,
                )
                opened.set_result(None)
                await close.wait()
        except BaseException as exc:
            self.mcp_servers = []
            if opened.done():
                raise
            opened.set_exception(exc)
        finally:
            self.mcp_servers = []

    @property
    def mcp_log_dir(self) -> Path:
        """Where the MCP servers' stderr is kept: beside the session store."""
        store = self.options.store_path
        return (Path(store).expanduser().parent if store else self.workspace.root) / "mcp-logs"

    def _mcp_failed(self, config: McpServerConfig, why: str) -> None:
        from prefixlock.coding.mcp_tools import server_log

        self.mcp_failed[config.name] = why
        log = server_log(self.mcp_log_dir, config.name)
        self.mcp_notes.append(f"{why}; the session goes on without it (its log: {log})")

    def load_hooks(self) -> HookRunner:
        """Claude Code's hooks for this workspace; a malformed `hooks` value is a ConfigError
        naming the file and field. A repository's own hooks wait for the user's consent:
        `--trust-hooks`, an "always" remembered for exactly these hooks, or the dialog's answer
        (`hooks_to_ask`, `answer_hooks`)."""
        from prefixlock.coding.hooks import HookConsent, load_hooks

        if self.hooks is None:
            found, notes = load_hooks(self.workspace.root, self.options.user_dir)
            self._hooks_found, self._hooks_read_notes = found, list(notes)
            self.hook_consent = HookConsent(self.options.store_path, self.workspace.root)
            project = [h for h in found if h.project]
            trusted = self.options.trust_hooks or (
                bool(project) and self.hook_consent.allows(project)
            )
            self._make_hook_runner(trusted, asked=False)
        assert self.hooks is not None
        return self.hooks

    def _make_hook_runner(self, trusted: bool, *, asked: bool) -> None:
        from prefixlock.coding.hooks import HookRunner

        self.hooks = HookRunner(self._hooks_found, self.workspace.root, trust_project=trusted)
        self.hook_notes = list(self._hooks_read_notes)
        if self.hooks.untrusted:
            n = len(self.hooks.untrusted)
            why = "you declined them" if asked else "not approved"
            self.hook_notes.append(
                f"{n} hook(s) of the workspace's .claude settings not run ({why}): a "
                "repository's hooks run on this machine, outside the sandbox (prefixlock chat "
                "--trust-hooks runs them)"
            )

    def hooks_to_ask(self) -> list[Hook]:
        """The repository's hooks waiting for the user's answer (the app asks before
        `start()`); empty once answered or when there are none."""
        if self._hooks_answered:
            return []
        return list(self.load_hooks().untrusted)

    def answer_hooks(self, answer: str) -> None:
        """The user's answer about the repository's hooks: "once" (this session), "always"
        (remembered for exactly these hooks) or "no"."""
        self._hooks_answered = True
        project = list(self.load_hooks().untrusted)
        consent = self.hook_consent
        if answer == "always" and consent is not None:
            consent.remember(project)
            if consent.warning:
                self._hooks_read_notes.append(consent.warning)
        self._make_hook_runner(answer in ("once", "always"), asked=True)

    def prefix(self) -> FrozenPrefix:
        from prefixlock.prefix import FrozenPrefix
        from prefixlock.tools import Tool

        tools: list[ToolLike] = list(self.workspace.tools())
        if self.delegator is not None:
            tools.append(self.delegator.tool())
        for server in self.mcp_servers:  # listed once, at start: pinned in the prefix
            tools.extend(server.tools)
        system = (SYSTEM_PROMPT, self.instructions) if self.instructions else SYSTEM_PROMPT
        if self.hooks is not None:
            # Hooks around each call; the specs, and so the prefix's bytes, are unchanged.
            root, hooks = self.workspace.root, self.hooks
            tools = [hooks.wrap_tool(t, root) if isinstance(t, Tool) else t for t in tools]
        return FrozenPrefix(system=system, tools=tools)

    def preload(self) -> None:
        """Import what `start()` needs. Blocking (most of a second on a loaded machine): the
        app runs it in a thread after the first frame, so the prompt takes keys meanwhile."""

        import prefixlock.agent
        import prefixlock.coding.hooks
        import prefixlock.coding.recent_sessions
        import prefixlock.store.database

        if self.chat_settings.mcp_servers:
            import prefixlock.coding.mcp_tools

            with contextlib.suppress(ImportError):  # not installed: start() says so
                import mcp
                import mcp.client.stdio
                import mcp.client.streamable_http
                import mcp.types  # noqa: F401
        if self.offline:
            import prefixlock.emulator
        with contextlib.suppress(ImportError):  # agents not installed: no subagents
            import prefixlock.agents.runner  # noqa: F401

    async def start(self) -> None:
        """Start the emulator (offline), build the agent and open (or resume) the session."""
        from prefixlock.agent import Agent

        self.load_custom_commands()
        self.load_hooks()
        # A command that failed without the network may run again with it: the user is asked.
        self.workspace.sandbox.ask_network = NetworkApprovals(self).ask
        await self._open_mcp_servers()
        base_url = self.options.base_url
        if self.offline and self.options.emulator is not None:
            base_url = self.options.emulator.base_url
        elif self.offline and self.options.emulator_url is not None:
            base_url = self.options.emulator_url
        elif self.offline:
            from prefixlock.emulator import Emulator, EmulatorConfig, FaultSpec, Script

            script = Script.load(self.options.emulator_script or SCRIPT_PATH)
            # The chat never reads the emulator's record of requests: a few are kept, not every
            # body of a long session (each holds the whole conversation so far).
            config = EmulatorConfig(
                faults=[FaultSpec(**f) for f in self.options.emulator_faults],
                keep_requests=EMULATOR_KEEP_REQUESTS,
            )
            self.emulator = Emulator.start(config, self.clock, script=script)
            base_url = self.emulator.base_url
        if self.options.store_path is not None and self.store is None:  # not already waited on
            from prefixlock.store.database import SessionStore

            self.store = SessionStore(self.options.store_path, clock=self.clock)
        try:
            from prefixlock.agents.runner import SubagentDelegator

            self.delegator = LiveDelegator(
                SubagentDelegator(self.registry, root=self.workspace.root, prices=self.prices)
            )
        except ImportError:  # agents not installed: no delegate tool, no /agents
            self.delegator = None
        self.agent = Agent(
            self.prefix(),
            model=self.options.model,
            api_key=self._key,
            base_url=base_url,
            clock=self.clock,
            prices=self.prices,
            settings=session_settings(self.options),
            sleep=self.options.sleep,
            store=self.store,
            delegator=self.delegator,
        )
        if self.options.resume:
            self._session = self.agent.resume(self.options.resume, fork=self.options.fork)
            if self.emulator is not None:
                # The built-in emulator started with this chat, its cache empty: the first
                # request's miss is this restart, not an eviction on the provider's side.
                self._session.tracker.guard.provider_restarted(
                    "the built-in emulator started empty with this chat (its cache lives in "
                    "the chat's process; `prefixlock serve` keeps it across restarts)"
                )
        else:
            self._session = self.agent.session(self.options.session_id)
        self._bind_session()

    def prepare_client(self) -> None:
        """Import the provider SDKs and make the session's client. Blocking (importing
        `anthropic` or `openai` takes seconds on a loaded machine): the app runs it in a
        thread so the screen never freezes on the first message."""
        import anthropic  # noqa: F401  (imported here so the first request finds them loaded)
        import openai  # noqa: F401

        self.session.state.provider.transport.client()

    def pending_switch(self) -> str | None:
        """The `--model` asked for with `--resume` when the session resumed on another model."""
        wanted = self.options.switch_to
        if wanted is None or self._session is None:
            return None

        def canonical(model: str) -> str:  # "haiku" and "claude-haiku-4-5" are one model
            price = self.prices.lookup(model)
            return price.model if price is not None else model

        return None if canonical(wanted) == canonical(self.session.model) else wanted

    def resumed_prefix_note(self) -> str | None:
        """A note for a resumed session kept on its stored prefix while this chat's differs
        (its system prompt or tools changed since): what moving would cost, or None."""
        s = self._session
        if s is None or not s.resumed_prefix_differs:
            return None
        q = s.quote_prefix(s.agent_prefix)
        cost = format_dollars(q.dollars) if q.dollars is not None else "unpriced"
        return (
            "this session resumes on its stored prefix (it keeps the cache); this chat's "
            f"prefix differs: moving to it would re-bill {q.tokens_rebilled:,} cached tokens "
            f"({cost})"
        )

    def _bind_session(self) -> None:
        from prefixlock.coding.recent_sessions import record

        s = self.session
        s.keep_request_bodies = KEEP_BODIES
        s.keep_requests = KEEP_REQUESTS
        s.ledger.keep_rows = KEEP_REQUESTS
        self.session_id = s.id
        if self.store is not None:  # for --continue and the session picker
            record(self.options.store_path, self.workspace.root, s.id, self.clock.now())
        self.model = s.model
        self.state = CacheState(self.model, self._ttl(self.model), self._min_tokens)
        # The totals of a resumed session come from its ledger, which the store restored for
        # the whole session; the per-turn figures (sparkline, last turn, countdown, last miss)
        # are folded from the stored rows' turns, which the ledger does not keep.
        if self.store is not None and self.options.resume:
            self.state.restore(self.store.usage_rows(s.id))
        if self.keepalive:
            s.enable_keepalive()

    async def close(self) -> None:
        if self._session is not None:
            s, self._session = self._session, None
            await s.aclose()
        for server in list(self.mcp_servers):  # each in a task of its own (a restarted one too)
            with contextlib.suppress(Exception):  # a server that died: nothing to close
                await server.__aexit__(None, None, None)
        if self._mcp_task is not None:
            task, self._mcp_task = self._mcp_task, None
            self._mcp_close.set()
            with contextlib.suppress(Exception):  # a server that died: nothing to close
                await task
        self.undo.close()
        if self.store is not None:
            self.store.close()
            self.store = None
        if self.emulator is not None:
            emu, self.emulator = self.emulator, None
            emu.close()

    # -- turns ----------------------------------------------------------------------------------

    def observe(self, ev: Event) -> None:
        self.state.apply(ev, self.clock.now())
        if isinstance(ev, UsageReport):
            self.model = ev.model
        elif isinstance(ev, SubagentFinish):
            runs, cost = self.sub_costs.get(ev.name, (0, Decimal(0)))
            total = None if cost is None or ev.cost is None else cost + ev.cost
            self.sub_costs[ev.name] = (runs + 1, total)

    async def send(self, text: str, images: Sequence[Image] = ()) -> AsyncIterator[Event]:
        """One turn. What the model must know first (files put back by /undo) goes ahead of
        the user's text in the same message; the files the turn writes are journaled."""
        used = self.state.context_tokens  # before the session's own compaction, if it is due
        summary: UsageReport | None = None
        self._gate()
        self.undo.begin(text)
        if self.pending_context:
            text = "\n".join([*self.pending_context, "", text])
            self.pending_context = []
        try:
            hooks = self.hooks
            if hooks is not None:
                hooks.session_id = self.session.id
                start = None
                if not self._hooks_started:
                    start = "resume" if self.options.resume else "startup"
                    self._hooks_started = True
                blocked, text = await hooks.prompt(text, start=start)
                await self._say_hook_notes()
                if blocked is not None:
                    await self._say(f"UserPromptSubmit hook: the message was not sent: {blocked}")
                    return
            message: str | None = text
            parts: list[UserPart] = [text, *images]
            while message is not None:
                answer, limit = "", None
                async for ev in self.session.send(parts if images else message):
                    if isinstance(ev, TurnComplete):
                        answer, limit = ev.text, ev.limit_hit
                    elif isinstance(ev, UsageReport):
                        summary = ev
                    elif isinstance(ev, PrefixChanged) and ev.reason == "compaction":
                        await self._say(self._compacted_note(used, summary))
                    yield ev
                    if isinstance(ev, ToolResult):
                        await self._say_hook_notes()
                message = None
                if hooks is not None and limit is None and not self.pending_approvals():
                    # A Stop hook may send the model on (its reason is the next message).
                    message = await hooks.stop(answer)
                    images = ()  # the images went with the first message
                    await self._say_hook_notes()
                    if message is not None:
                        await self._say(f"Stop hook: going on: {message}")
        finally:
            # A turn stopped on calls waiting for the user goes on in resume_turn: its writes
            # belong to this turn's record (one /undo undoes the whole turn).
            if not self.pending_approvals():
                await self._end_turn()

    async def _say(self, note: str) -> None:
        if self.notify is not None:
            await self.notify(note)

    async def _say_hook_notes(self) -> None:
        if self.hooks is not None:
            for note in self.hooks.take_notes():
                await self._say(note)

    # -- approvals: the SDK's deferred tool calls (prefixlock.approvals) -------------------------

    def _gate(self) -> None:
        """The session defers the calls of the workspace tools whose action the user has not
        allowed (`/allow`, "always" in the dialog); other required tools are left as set."""
        from .approval_flow import TOOL_ACTIONS, gated_tools

        required = self.session.approvals.required
        required.difference_update(TOOL_ACTIONS)
        required.update(gated_tools(self.permissions.allowed))
        # MCP tools wait for the user unless a rule, the mode or "always" decides them.
        mcp = self.mcp_tool_names()
        required.difference_update(mcp)
        required.update(n for n in mcp if self.permissions.decide_tool(n).verdict == "ask")

    def pending_approvals(self) -> list[ToolCall]:
        """The calls the stopped turn waits on (empty when no turn waits)."""
        return self.session.pending_approvals if self._session is not None else []

    def decide(self, call: ToolCall, decision: Decision, *, ask_again: bool = False) -> None:
        """Record the user's answer on the session: "session" also allows the action for the
        rest of the session. `ask_again`: approved without the user (a call that can only
        fail), so the workspace still asks if it would act after all."""
        from .approval_flow import TOOL_ACTIONS

        if decision == "session" and call.name in TOOL_ACTIONS:
            self.permissions.allowed.add(TOOL_ACTIONS[call.name])
        elif decision == "session" and call.name.startswith("mcp__"):
            self.permissions.allowed_tools.add(call.name)
        if decision in (True, "once", "session"):
            self.session.approve(call.id)
            if not ask_again:
                self._granted[call.name] = self._granted.get(call.name, 0) + 1
        else:
            self.session.deny(call.id, "the user declined; nothing was changed")

    async def resume_turn(self) -> AsyncIterator[Event]:
        """Run the decided calls and continue the stopped turn."""
        self._gate()
        try:
            async for ev in self.session.resume():
                yield ev
        finally:
            self._granted.clear()  # a grant is for the calls of this resume only
            if not self.pending_approvals():
                await self._end_turn()

    async def _end_turn(self) -> None:
        """Close the turn's undo record. In a git repo that hashes the work tree (seconds in
        a big one), so it runs in a thread: the chat stays responsive meanwhile. Shielded, so
        a Ctrl+C arriving now cannot leave the record half made."""
        await asyncio.shield(asyncio.to_thread(self.undo.end))

    async def delegate(self, task: str, *, agent: str, model: str | None) -> AsyncIterator[Event]:
        """Run `task` in a subagent from the user's side; the transcript gets the call and
        the summary, the prefix is untouched. The subagent's start, its own events and its
        finish stream out as they happen (as they do when the model calls `delegate`)."""
        from prefixlock.delegation import delegate_from_session

        if self.delegator is None:
            raise ConfigError("subagents need the agents package", where="/agents")
        live = self.delegator
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        run = asyncio.ensure_future(
            delegate_from_session(self.session, task, agent=agent, model=model)
        )
        run.add_done_callback(lambda _: queue.put_nowait(None))
        live.sink = queue.put_nowait
        finished = False
        try:
            while (ev := await queue.get()) is not None:
                finished = finished or (isinstance(ev, SubagentFinish) and ev.depth <= 1)
                yield ev
            result = await run  # its exception, if any, is the caller's
            if not finished:  # a delegator that does not stream: its pair at the end
                yield SubagentStart(
                    result.name, result.model, task, result.depth, run_id=result.run_id
                )
                yield result.finish_event()
        finally:
            live.sink = None
            if not run.done():
                run.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await run

    def history(self) -> Iterator[tuple[str, str]]:
        """(role, text) of the session's past messages, for a resumed session's screen."""
        if self._session is None:
            return
        messages = list(self._session.transcript.messages)
        results = {
            str(b.get("tool_use_id")): b
            for m in messages
            for b in m.blocks
            if b.get("type") == "tool_result"
        }
        for msg in messages:
            texts: list[str] = []
            for block in msg.blocks:
                kind = block.get("type")
                if kind == "text":
                    texts.append(str(block.get("text", "")))
                elif kind == "tool_use":
                    yield "tool", stored_tool_line(block, results.get(str(block.get("id"))))
            if texts:
                yield msg.role, "\n".join(texts)

    def panel_view(self) -> PanelView:
        """The panel's figures; whole-session totals are the session ledger's own."""
        self.state.keepalive = self.keepalive
        ledger = self._session.ledger if self._session is not None else None
        view = self.state.view(self.clock.now(), ledger=ledger)
        return dataclasses.replace(view, context_window=self.context_window())

    def context_window(self) -> int | None:
        """The current model's context window in tokens (None: the price table lacks it)."""
        price = self.prices.lookup(self.model)
        return price.context_window if price is not None else None

    def _compacted_note(self, used: int, summary: UsageReport | None) -> str:
        """What the chat says when the session compacted before a message."""
        window = self.context_window()
        share = self.session.state.settings.compact_at
        where = f"{used:,} tokens"
        if window and share:
            at = f"{share * 100:.3g}%"
            where = f"{used / window * 100:.3g}% of the {window:,}-token window (threshold {at})"
        cost = "unpriced"
        if summary is not None and summary.cost is not None:
            cost = f"${summary.cost:.4f}"
        return f"auto-compacted at {where}: the summary request cost {cost}"

    # -- commands -------------------------------------------------------------------------------

    def undo_last(self, *, force: bool = False) -> str:
        """Put back the files of the newest turn that wrote any; the model hears of it with
        the next message (its transcript still shows the edits)."""
        from .undo import UndoError

        try:
            result = self.undo.undo(force=force)
        except UndoError as exc:
            raise ConfigError(str(exc), where="/undo") from None
        changed = [*result.restored, *result.removed]
        if changed:
            self.pending_context.append(
                "[prefixlock: the user ran /undo; these files are back as they were before "
                f"the turn {result.label!r}: {', '.join(changed)}]"
            )
        return result.text()

    def permissions_text(self) -> str:
        from prefixlock.coding.settings_files import describe

        allowed = sorted(self.permissions.allowed)
        text = describe(self.chat_settings).replace(
            f"permission mode: {self.chat_settings.mode}",
            f"permission mode: {self.permissions.mode}",
            1,
        )
        if allowed:
            text += "\nallowed for this session: " + ", ".join(allowed)
        return text

    def instructions_change(
        self, next_message: str | None = None
    ) -> tuple[str, FrozenPrefix, Quote] | None:
        """The instruction files changed since the session's prefix was made: (the new
        text, the prefix with it, the guard's quote for moving there); None when they did
        not, or the user already declined this very version."""
        fresh = project_instructions(self.workspace.root, self.options.user_dir)
        if fresh == self.instructions or fresh == self._declined_instructions:
            return None
        system = list(self.session.prefix.system)
        if self.instructions and self.instructions in system:
            at = system.index(self.instructions)
            if fresh:
                system[at] = fresh
            else:
                del system[at]
        elif fresh:
            system.insert(1 if system else 0, fresh)  # after the app's prompt, as at start
        prefix = self.session.prefix.replace(system=system)
        return fresh, prefix, self.session.quote_prefix(prefix, next_message=next_message)

    def apply_instructions(self, fresh: str, prefix: FrozenPrefix, quote: Quote) -> None:
        self.session.change_prefix(prefix, quote=quote)
        self.instructions = fresh
        self._declined_instructions = None

    def decline_instructions(self, fresh: str) -> None:
        self._declined_instructions = fresh

    async def tool_list_changes(self) -> list[ToolListChange]:
        """The MCP servers' announced tool-list changes (tools/list_changed), each priced by
        the guard; none is applied (the app offers each, like an edited instruction file). A
        declined one is not offered again until the server announces another change."""
        from prefixlock.coding.mcp_tools import announced_changes

        if not self.mcp_servers or self._session is None:
            return []
        return await announced_changes(self.mcp_servers, self.session)

    def apply_tool_change(self, change: ToolListChange) -> None:
        """Apply an MCP tool-list change the user accepted (its price was shown first)."""
        change.apply()

    def quote_effort(self, effort: str | None) -> Quote:
        return self.session.quote_effort(effort=effort)

    def change_effort(self, effort: str | None, quote: Quote) -> None:
        self.session.change_effort(effort=effort, quote=quote)

    def cost_text(self) -> str:
        v = self.panel_view()
        ledger = self._session.ledger if self._session is not None else None
        lines = [
            f"cost so far: main {format_dollars(v.cost_main)}, subagents "
            f"{format_dollars(v.cost_sub)}, total {format_dollars(v.cost_main + v.cost_sub)}",
            f"saved by the cache: {format_dollars(v.saved)} (hit rate {v.hit_rate:.1%} over "
            f"{v.requests} requests)",
        ]
        if ledger is not None and ledger.rebilled:
            causes = ", ".join(f"{k} {n:,}" for k, n in sorted(ledger.rebilled.items()))
            lines.append(f"re-billed tokens by cause: {causes}")
        for name, (runs, cost) in self.sub_costs.items():
            shown = format_dollars(cost) if cost is not None else "?"
            lines.append(f"  subagent {name}: {shown}" + (f" ({runs} runs)" if runs > 1 else ""))
        return "\n".join(lines)

    async def set_keepalive(self, on: bool) -> str:
        self.keepalive = on
        if self._session is not None:
            if on:
                self._session.enable_keepalive()
            else:
                self._session.pings.keepalive = None
        if not on:
            return "keep-alive off"
        return "keep-alive on: idle pings keep the cache warm (spend capped at $0.50)"

    def tick_due(self) -> bool:
        """Is a request of the cache policy due between turns: a keep-alive ping (when turned
        on), or the turn end's planned 1-hour write (the default `CachePolicy`, on whether
        keep-alive is on or not)?"""
        if self._session is None:
            return False
        if self.keepalive:
            return True
        due = self._session.pings.next_ping_at()
        return due is not None and due <= self.clock.now()

    async def keepalive_tick(self) -> list[Event]:
        if not self.tick_due() or self._session is None:
            return []
        events = await self._session.keepalive_tick()
        for ev in events:
            self.observe(ev)
        return events

    def sessions_text(self) -> str:
        if self.store is None:
            return "no session store"
        rows = self.store.sessions()
        if not rows:
            return "no stored sessions yet"
        out = ["stored sessions (newest first):"]
        for r in sorted(rows, key=lambda r: r.updated, reverse=True)[:20]:
            mark = "*" if r.id == self.session_id else " "
            out.append(
                f"{mark} {r.id}  {r.model}  {r.turns} turns  hit {r.hit_rate:.0%}  "
                f"{format_dollars(r.cost)}"
            )
        out.append("/resume ID continues one (it reads the cache while it is warm)")
        return "\n".join(out)

    async def shell(self, command: str) -> str:
        """`!command`: run what the user typed in the workspace's sandbox (no dialog: the user
        typed it), snapshot for /undo first, and keep its output as context for the next
        message (in that message, never the prefix). Returns the output as shown."""
        if not command.strip():
            raise ConfigError("type a command after '!'", where="!")
        await asyncio.to_thread(self.undo.before_command)
        shown = (await self.workspace.run_unasked(command)).render()
        self.pending_context.append(f"[The user ran `{command}` in the workspace]\n{shown}")
        return shown

    async def new_session(self) -> None:
        """Close this session and open a new one on the same prefix: its first request reads
        the prefix this session cached (same tools, system and instructions)."""
        if self.agent is None:
            raise ConfigError("the session has not started", where="/new")
        old, self._session = self._session, self.agent.session()
        if old is not None:
            await old.aclose()
        self.options.resume = None
        self._hooks_started = False  # SessionStart hooks run again for the new session
        self._bind_session()

    async def resume(self, session_id: str) -> None:
        if self.agent is None or self.store is None:
            raise ConfigError("resume needs a session store", where="/resume")
        new = self.agent.resume(session_id)
        old, self._session = self._session, new
        if old is not None:
            await old.aclose()
        self.options.resume = session_id
        self._bind_session()

    def lint_text(self) -> str:
        """The policy linter's findings on what this session sends: its requests so far as a
        trace (cross-request rules), or, before the first turn, the next request's body."""
        import json
        import tempfile

        try:
            from prefixlock.policies.engine import kind_of, lint_file
            from prefixlock.policies.output import text as render
        except ImportError:
            return "the policy linter (policies package) is not installed"
        from prefixlock.transcript import Message

        s = self.session
        with tempfile.TemporaryDirectory(prefix="prefixlock-lint-") as tmp:
            if s.requests:
                path = Path(tmp) / "session.jsonl"
                lines, older = self._lint_trace()
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                what = f"{len(lines)} requests of this session" + (
                    f" (the newest; {older} older ones are in the store)" if older else ""
                )
            else:
                path = Path(tmp) / "next_request.json"
                req = s.state.provider.build_request(
                    s.prefix, [Message.user("(next message)")], s.state.settings, s.state.info
                )
                path.write_text(json.dumps(req.body, default=str), encoding="utf-8")
                what = "the next request (no turn sent yet)"
            kind = kind_of(path) or "text"
            findings, _ = lint_file(str(path), kind, self.model)
            if not findings:
                return f"lint: no findings in {what} (prefix {s.prefix.fingerprint[:12]})"
            report = render(findings, show_source=False).replace(str(path) + ":", "")
            return f"lint: {len(findings)} finding(s) in {what}:\n{report}"

    def _lint_trace(self) -> tuple[list[str], int]:
        """The newest LINT_REQUESTS requests of the session as JSONL trace lines, and how many
        older ones there are. From the store, which keeps every body (the session keeps only
        the newest, and /lint runs between turns, when the store has them all); without one,
        the bodies the session still holds."""
        import json
        from collections import deque

        s = self.session
        if self.store is not None:
            newest: deque[str] = deque(maxlen=LINT_REQUESTS)
            count = 0
            try:
                for stored in self.store.requests(s.id):
                    newest.append(json.dumps(stored.trace(), default=str))
                    count += 1
            except PrefixlockError:  # not stored yet, or the store refused: what is in memory
                count = 0
            if count:
                return list(newest), count - len(newest)
        from prefixlock.released_bodies import released

        rows = {row.seq: row for row in s.ledger.rows}
        lines = []
        first = s.state.requests_dropped
        for i, req in enumerate(s.requests, start=first):
            if released(req):  # an older request's body: in the store, not in memory
                continue
            row = rows.get(i)
            lines.append(
                json.dumps(
                    {
                        "session_id": s.id,
                        "seq": i,
                        "time": row.time if row else self.clock.now(),
                        "provider": s.state.provider.route.provider,
                        "api": req.api,
                        "model": req.model,
                        "path": req.path,
                        "body": req.body,
                        "usage": row.usage.to_dict() if row else {},
                        "raw_usage": dict(row.usage.raw) if row else {},
                        "cost": str(row.cost) if row and row.cost is not None else None,
                        "cache_key": req.cache_key,
                    },
                    default=str,
                )
            )
        return lines, s.state.sent - len(lines)

    def agents_text(self) -> str:
        if self.delegator is None:
            return "no subagents available (the agents package is missing)"
        lines = ["subagents (/agents NAME TASK runs one):"]
        for d in self.delegator.registry:
            lines.append(f"  {d.name} [{d.model or 'inherit'}]: {d.description}")
        # Unknown front-matter keys are kept and reported; on this screen, not to stderr.
        lines.extend(f"  note: {w}" for w in self.delegator.registry.warnings)
        return "\n".join(lines)

    def model_rows(self) -> list[ModelRow]:
        """The model picker's rows: each priced model's prices, whether this session's cache
        is warm on it, and what a switch to it would re-bill (the guard's quote)."""
        from .model_picker import picker_rows

        return picker_rows(
            self.prices,
            self.model,
            self.panel_view().warm_seconds or 0.0,
            self.quote_switch,
            self.clock.now(),
        )

    def quote_switch(self, model: str) -> Quote:
        if ":" not in model and self.prices.lookup(model) is None:
            # A typo would otherwise be taken for an OpenAI-compatible model id.
            raise UnknownModelError(
                f"unknown model {model!r}; /model lists the priced ones "
                "(openai-compat:NAME for any other)",
                where="/model",
            )
        return self.session.quote_switch(model)

    async def switch_model(self, model: str, quote: Quote) -> None:
        self.session.switch_model(model, quote=quote)
        self.model = self.session.model
        self.state.model = self.model
        self.state.ttl = self._ttl(self.model)

    def quote_compact(self) -> Quote:
        return self.session.quote_compaction()

    async def compact(self, quote: Quote) -> str:
        events = await self.session.compact(quote=quote)
        for ev in events:
            self.observe(ev)
        return f"compacted: the session continues on a new prefix ({len(events)} events)"


class LiveDelegator:
    """The subagent delegator with a switchable event sink, so a delegation the user starts
    (`/agents`, the switch dialog's "subagent") streams its events live like one the model
    starts with the `delegate` tool (which passes its own sink and is left as it is)."""

    def __init__(self, inner: SubagentDelegator) -> None:
        self.inner = inner
        self.sink: Callable[[Event], None] | None = None

    async def delegate(
        self,
        parent: ParentSession,
        task: str,
        *,
        agent: str | None = None,
        model: str | None = None,
        on_event: Callable[[Event], None] | None = None,
        **options: Any,
    ) -> DelegationResult:
        if agent is not None:
            options["agent"] = agent
        return await self.inner.delegate(
            parent, task, model=model, on_event=on_event or self.sink, **options
        )

    # The inner delegator's definitions, tool and results.
    @property
    def registry(self) -> AgentRegistry:
        return self.inner.registry

    @property
    def results(self) -> list[DelegationResult]:
        return self.inner.results

    def tool(self) -> Tool:
        return self.inner.tool()


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def stored_tool_line(call: Mapping[str, Any], result: Mapping[str, Any] | None) -> str:
    """A stored tool call and its result on one line, as the live view folds them:
    '▸ ✓ read_file path=README.md → # demo (3 lines)'; a `delegate` call names its subagent."""
    args = call.get("input") or {}
    name = str(call.get("name", "?"))
    if name == "delegate":
        head = f"delegate ⎇ {args.get('agent') or 'subagent'}"
    else:
        shown = " ".join(f"{k}={_short(str(v), 24)}" for k, v in dict(args).items())
        head = _short(f"{name} {shown}".strip(), 40)
    if result is None:
        return f"▸ {head} (no result stored)"
    raw = result.get("content", "")
    content = (
        raw
        if isinstance(raw, str)
        else " ".join(str(b.get("text", "")) for b in raw if isinstance(b, Mapping))
    )
    lines = content.count("\n") + 1 if content else 0
    first = _short(content.splitlines()[0] if content else "", 40)
    mark = "✗" if result.get("is_error") else "✓"
    return f"▸ {mark} {head} → {first} ({lines} lines)"


def make_backend(options: BackendOptions) -> ChatBackend:
    """The chat's backend for `options` (the seam tests replace)."""
    return ChatBackend(options)
