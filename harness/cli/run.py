"""`prefixlock models` (the price table) and `prefixlock run` (one headless task); and the
registration of `prefixlock demo`, whose module (prefixlock.cli.demo) is too big to load for
`prefixlock --help`.

`run` sends one task to a model, runs its tool calls, prints the final answer and one summary
line (tokens read / written / uncached, hit rate, cost, saved). With no API key for the model's
provider it runs on the in-process emulator (a scripted model) and says so on stderr.

It reads what the chat reads (prefixlock.coding.settings_files: model, effort, permission mode and
rules, MCP servers, `[sandbox]`; the instruction files; custom commands for a `/name` task), and
its flags win over the settings. Headless there is nobody to ask: a write or command that the
chat would ask about is refused (the model reads why) unless `--allow`, `--permission-mode` or
an allow rule lets it through; deny rules and plan mode hold whatever the flags say.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..coding.settings_files import MODES
from .command import Command, add_fork_wait_flags, add_sandbox_flags, deferred
from .headless import OUTPUT_FORMATS

if TYPE_CHECKING:
    from decimal import Decimal

    from ..clock import Clock
    from ..coding.hooks import HookRunner
    from ..coding.mcp_tools import McpServer
    from ..coding.permissions import Permissions
    from ..coding.settings_files import ChatSettings, McpServerConfig
    from ..coding.workspace import ApprovalRequest, Decision
    from ..session import Session
    from ..store.database import SessionStore
    from ..tools import Tool
    from .headless import Denial

DEFAULT_RUN_MODEL = "claude-opus-4-7"


def _configure_models(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prices", metavar="FILE", help="a JSON price file that overrides the built-in one"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _run_models(args: argparse.Namespace) -> int:
    import json

    from rich import box
    from rich.console import Console
    from rich.table import Table

    from ..billing.prices import PriceTable

    table = PriceTable.default(args.prices)
    if args.json:
        rows = [
            {
                "model": p.model,
                "provider": p.provider,
                "api": p.api,
                "input": str(p.input),
                "cache_read": str(p.cache_read),
                "cache_write_5m": str(p.write_5m),
                "cache_write_1h": str(p.write_1h),
                "output": str(p.output),
                "min_cacheable_tokens": p.min_cacheable_tokens,
                "cache_ttl_seconds": p.cache_ttl_seconds,
                "date": p.date,
                "source": p.source,
                "note": p.note,
            }
            for p in table
        ]
        print(json.dumps(rows, indent=2))
        return 0
    console = Console()
    # Fits 80 columns with nothing cut (ids and prices are what the user reads): no vertical
    # rules, and no provider column (the id says it, and so do the sources below).
    cells = [
        (
            p.model,
            str(p.input),
            str(p.cache_read),
            str(p.write_5m),
            str(p.write_1h),
            str(p.output),
            f"{p.min_cacheable_tokens:,}",
            p.date,
        )
        for p in table
    ]
    t = Table(
        title="Prices, $ per million tokens",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    headers = ("model", "input", "read", "write\n5m", "write\n1h", "output", "min", "date")
    for i, header in enumerate(headers):
        widest = max([len(r[i]) for r in cells] + [len(line) for line in header.split("\n")])
        t.add_column(
            header,
            justify="left" if header in ("model", "date") else "right",
            no_wrap=True,
            width=widest,
        )
    for row in cells:
        t.add_row(*row)
    console.print(t)
    console.print("min: the fewest tokens a prefix needs to be cached. Sources:", highlight=False)
    by_source: dict[str, list[str]] = {}
    for p in table:
        by_source.setdefault(p.source or "(none given)", []).append(p.provider)
    for source, providers in by_source.items():
        who = "/".join(sorted(set(providers)))
        n = len(providers)
        console.print(
            f"  {who} ({n} model{'s' if n > 1 else ''}): {source}", soft_wrap=True, highlight=False
        )
    for p in table:
        if p.note:
            console.print(f"  note, {p.model}: {p.note}", soft_wrap=True, highlight=False)
    aliases = ", ".join(f"{k} -> {v}" for k, v in sorted(table.aliases.items()))
    console.print(f"aliases: {aliases}", highlight=False)
    return 0


MODELS_COMMAND = Command("show the price table", _configure_models, _run_models, order=40)


def _configure_run(p: argparse.ArgumentParser) -> None:
    from ..cache.anthropic import DEFAULT_TTL, TTL_LABELS

    p.add_argument(
        "task",
        help="what to ask the model ('-' reads it from standard input); '/NAME ARGS' runs a "
        "custom command from .claude/commands or .prefixlock/commands ('//' for a task that "
        "starts with '/')",
    )
    p.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="text",
        help="text (default): the answer on stdout, the summary and session id on stderr; "
        "json: one result object on stdout; stream-json: one JSON object per line as the run "
        "goes (Claude Code's shapes, docs/run-output.md). Exit codes: 0 done, 1 provider "
        "failure, 2 user error, 3 stopped by --max-turns/--max-dollars, 4 done with a write, "
        "command or MCP call refused",
    )
    p.add_argument(
        "--model",
        default=None,
        help=f"model id (default: the settings' model, else {DEFAULT_RUN_MODEL}; claude-*, "
        "gpt-*, deepseek-*, or anthropic:/openai:/openai-responses:/openai-compat: followed by "
        "any id)",
    )
    p.add_argument("--base-url", metavar="URL", help="API base URL (OpenAI-compatible servers)")
    p.add_argument(
        "--max-turns",
        type=int,
        default=25,
        metavar="N",
        help="stop after N model requests (default 25)",
    )
    p.add_argument("--max-dollars", metavar="D", help="stop once the session has cost D dollars")
    p.add_argument(
        "--system",
        default="You are a concise, careful assistant.",
        help="system prompt text (or @FILE to read it from a file)",
    )
    p.add_argument("--ttl", choices=TTL_LABELS, default=DEFAULT_TTL, help="Anthropic cache TTL")
    p.add_argument("--prices", metavar="FILE", help="a JSON price file over the built-in one")
    p.add_argument(
        "--tools",
        choices=("read", "all", "none"),
        default="read",
        help="read: read-only workspace tools (read, list, glob, grep) on --workspace; all: "
        "the chat's tools (also edit_file, write_file, run_command; see --allow)",
    )
    p.add_argument(
        "--workspace",
        default=".",
        metavar="DIR",
        help="the directory the tools may use (default: the current one); as in the chat, its "
        "AGENTS.md, CLAUDE.md and CONVENTIONS.md join the prompt and its settings files "
        "(.prefixlock/settings.toml, .claude/settings.json, .claude/settings.local.json, "
        ".mcp.json; also ~/.claude/settings.json, ~/.prefixlock/settings.toml) are read",
    )
    p.add_argument(
        "--allow",
        action="append",
        choices=("write", "run", "mcp"),
        default=[],
        help="let the model write files / run commands (with --tools all) / call MCP tools "
        "(repeatable). Headless, nobody is asked: a write, command or MCP tool call not allowed "
        "by this, --permission-mode or a settings allow rule (e.g. Bash(npm test:*), "
        "mcp__SERVER) is refused; deny rules and plan mode always hold",
    )
    p.add_argument(
        "--mcp-trust",
        action="append",
        default=[],
        metavar="NAME",
        help="start the project's MCP server NAME (declared by the workspace's .mcp.json or "
        "project settings; repeatable). Without consent (this, enabledMcpjsonServers or "
        "enableAllProjectMcpServers in your own or .claude/settings.local.json settings, or "
        "a yes in prefixlock chat) a project's server is not started; servers from your own "
        "settings files always start",
    )
    p.add_argument(
        "--trust-hooks",
        action="store_true",
        help="run the hooks of the workspace's own .claude/settings.json and "
        "settings.local.json (they run on this machine, outside the sandbox: without this "
        "flag they are listed, not run); the hooks of ~/.claude/settings.json always run",
    )
    p.add_argument(
        "--permission-mode",
        choices=MODES,
        default=None,
        help="over the settings' mode: ask (default; headless, what would be asked is refused), "
        "accept-edits, plan (read-only) or bypass",
    )
    add_sandbox_flags(p, default=None)
    p.add_argument(
        "--tool-changes",
        choices=("quote", "always"),
        default="quote",
        help="when an MCP server changes its tool list mid-run: quote (default; take the new "
        "list only if it re-bills no cached tokens, else keep the pinned one) or always "
        "(CachePolicy.tools)",
    )
    p.add_argument(
        "--emulator",
        action="store_true",
        help="run on the local emulator even when an API key is set",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="show tool calls and retries on stderr"
    )
    p.add_argument(
        "--store",
        metavar="FILE",
        help="session store to record the run in (with --resume default: $PREFIXLOCK_STORE, "
        "else prefixlock/sessions.sqlite under $XDG_DATA_HOME or ~/.local/share)",
    )
    p.add_argument("--resume", metavar="ID", help="continue stored session ID with the task")
    p.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the newest stored session of --workspace (as `claude --continue`)",
    )
    add_fork_wait_flags(p, "process")


def _read_system(value: str) -> str:
    from ..userfiles import read_user_text

    if not value.startswith("@"):
        return value
    return read_user_text(value[1:], "system prompt")  # missing or not UTF-8: one line


def _dollars(value: str | None) -> Decimal | None:
    """`--max-dollars` as Decimal: a finite, non-negative amount (`nan` is not one)."""
    from ..billing.money import parse_dollars
    from ..errors import ConfigError

    if value is None:
        return None
    return parse_dollars(value, "--max-dollars", error=ConfigError)


def _base_url(value: str | None) -> str | None:
    """`--base-url` must be an http(s) URL with a host: `localhost:8000` would otherwise fail
    later as a connection error that does not say what was wrong."""
    from urllib.parse import urlsplit

    from ..errors import ConfigError

    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"not an http(s) URL: {value!r} (e.g. http://localhost:8000/v1)", where="--base-url"
        )
    return value


def _check_store(args: argparse.Namespace, clock: Clock | None = None) -> SessionStore | None:
    """`--store` / `--resume` / `--fork` / `--wait`, checked before any work: the store opens,
    the session exists, and it is not open in another process (unless forked). With --wait,
    once that process has closed it (waiting on `clock`), the lease is taken here and kept: the
    resume works under it, so another waiter cannot take it in between. The store is returned
    open; the caller closes it."""
    import sys

    from ..store.database import SessionStore, default_path
    from ..store.leases import SessionBusyError
    from ..store.waiting import announcer, wait_seconds

    wait = wait_seconds(args.wait, resume=args.resume, fork=args.fork)
    if args.store is None and args.resume is None:
        return None
    path = str(args.store) if args.store is not None else str(default_path())
    store = SessionStore(path, clock=clock)
    try:
        if args.resume:
            store.session(args.resume)  # UnknownSessionError names the id
            held = store.lease(args.resume)
            if wait > 0:  # taken now even when free: a free session can be taken by another
                say = announcer(args.resume, wait, sys.stderr)
                store.acquire(args.resume, wait=wait, on_wait=say, reserve=True)
            elif held is not None and not args.fork:
                raise SessionBusyError(args.resume, held, str(store.path))
    except BaseException:
        store.close()
        raise
    return store


def _workspace_tools(
    args: argparse.Namespace,
    settings: ChatSettings,
    permissions: Permissions,
    denials: list[Denial],
) -> tuple[list[Tool], str]:
    """The tools `--tools` names on `--workspace` (reads guarded by the settings' Read deny
    rules, writes and commands by the headless approver), and its instruction files' text.
    With commands allowed and no usable sandbox: one line now, not a refusal mid-task."""
    from pathlib import Path

    from ..coding.instructions import project_instructions
    from ..coding.sandbox import SandboxError
    from ..coding.settings_files import sandbox_options
    from ..coding.workspace import Workspace, WorkspaceError
    from ..errors import ConfigError

    if set(args.allow) - {"mcp"} and args.tools != "all":
        raise ConfigError("needs --tools all (read tools never ask)", where="--allow")
    if args.tools == "none":
        return [], ""
    options = sandbox_options(settings, args.sandbox, args.no_network)
    try:
        # No allow-set on the workspace: every write and command reaches the approver, so
        # the deny rules hold over --allow, as in the chat.
        ws = Workspace(
            args.workspace,
            approve=_headless_approver(permissions, denials),
            sandbox=options,
            read_denied=permissions.read_rule,  # Read(...) deny rules, folder-wide tools too
        )
    except WorkspaceError as exc:
        raise ConfigError(str(exc), where="--workspace") from None
    instructions = project_instructions(ws.root, Path.home())
    if args.tools == "read":
        return ws.read_only_tools(), instructions
    if _commands_may_run(permissions):
        try:
            ws.sandbox.check()
        except SandboxError as exc:
            raise ConfigError(f"{exc} (--sandbox off)", where="--sandbox") from None
    return ws.tools(), instructions


def _hooks(args: argparse.Namespace) -> HookRunner:
    """Claude Code's hooks for `--workspace` (a malformed `hooks` value: one line, exit 2);
    what is not run is said on stderr now."""
    import sys
    from pathlib import Path

    from ..coding.hooks import HookRunner, load_hooks

    root = Path(args.workspace).expanduser().resolve()
    found, notes = load_hooks(root, Path.home())
    runner = HookRunner(found, root, trust_project=args.trust_hooks)
    for note in notes:
        print(f"prefixlock: {note}", file=sys.stderr)
    if runner.untrusted:
        where = sorted({h.source.split(" (")[0].split(": ")[0] for h in runner.untrusted})
        print(
            f"prefixlock: {len(runner.untrusted)} hook(s) of the workspace's settings not run "
            f"({', '.join(where)}): a repository's hooks run on this machine, outside the "
            "sandbox; --trust-hooks runs them",
            file=sys.stderr,
        )
    return runner


def _newest_session(args: argparse.Namespace) -> str:
    """`--continue`: the newest stored session started in `--workspace` (one line when there
    is none, or with --resume)."""
    from pathlib import Path

    from ..coding.recent_sessions import stored
    from ..errors import ConfigError
    from ..store.database import default_path

    if args.resume is not None:
        raise ConfigError("give --resume ID or --continue, not both", where="--continue")
    store = Path(args.store).expanduser() if args.store else default_path()
    workspace = Path(args.workspace).expanduser().resolve()
    _, ids = stored(store, workspace)
    if not ids:
        raise ConfigError(
            f"no stored session of {workspace} in {store} (start one with --store, or name one "
            "with --resume ID; `prefixlock sessions list` lists them)",
            where="--continue",
        )
    return ids[0]


def _commands_may_run(permissions: Permissions) -> bool:
    """Could any command run without a dialog (flag, mode or an allow rule)?"""
    if "run" in permissions.allowed or permissions.mode == "bypass":
        return True
    return any(r.tool == "Bash" for r in permissions.settings.allow)


def _headless_approver(
    permissions: Permissions, denials: list[Denial]
) -> Callable[[ApprovalRequest], Awaitable[Decision]]:
    """The workspace's approval callback with nobody to ask: what the rules, the mode and the
    flags allow goes ahead; everything else is refused, the reason said on stderr and to the
    model (as the tool's error), and kept in `denials` (the run's exit code and JSON say it)."""
    import sys

    from ..coding.workspace import WorkspaceError
    from .headless import Denial

    async def approve(request: ApprovalRequest) -> Decision:
        ruling = permissions.decide(request)
        if ruling.verdict == "allow":
            return "once"
        if ruling.verdict == "deny":
            why = f"{request.summary}: refused ({ruling.reason})"
        elif ruling.reason:  # an ask rule: no flag or mode makes it allowed
            why = f"{request.summary}: refused ({ruling.reason}: prefixlock run has nobody to ask)"
        else:
            flag = "--allow write" if request.action == "write" else "--allow run"
            rule = "Edit(src/**)" if request.action == "write" else "Bash(npm test:*)"
            why = (
                f"{request.summary}: refused (prefixlock run has nobody to ask: allow it with "
                f"{flag}, --permission-mode or a permissions.allow rule such as {rule})"
            )
        print(f"prefixlock: {why}", file=sys.stderr)
        denials.append(Denial(request.tool, request.summary, why))
        raise WorkspaceError(why)

    return approve


def _headless_gate(permissions: Permissions, denials: list[Denial]) -> Callable[[str], str | None]:
    """The MCP servers' gate with nobody to ask: a refusal is said on stderr as well as to
    the model (as the tool's error), like a refused write or command."""
    import sys

    from .headless import Denial

    def gate(name: str) -> str | None:
        refused = permissions.refuse_tool(name)
        if refused is not None:
            print(f"prefixlock: {name}: refused ({refused})", file=sys.stderr)
            denials.append(Denial(name, name, refused))
        return refused

    return gate


def _consented_servers(args: argparse.Namespace, settings: ChatSettings) -> list[McpServerConfig]:
    """The MCP servers that may start: the user's own, and the project's that the user
    approved (`--mcp-trust`, the settings keys, a yes in the chat). Each project server left
    out is one stderr line saying how to approve it; `--mcp-trust` naming a server no file
    declares is a user error (exit 2)."""
    import sys
    from pathlib import Path

    from ..coding.mcp_consent import ConsentFile, consent, consent_path, how_to_approve
    from ..errors import ConfigError
    from ..store.database import default_path

    declared = {c.name for c in settings.mcp_servers}
    for name in args.mcp_trust:
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise ConfigError(
                f"no MCP server named {name!r} is declared (declared: {known})", where="--mcp-trust"
            )
    store = Path(args.store).expanduser() if args.store else default_path()
    answers = ConsentFile(consent_path(store, Path(args.workspace).expanduser())).answers
    started = []
    for config in settings.mcp_servers:
        verdict = consent(config, settings, answers, args.mcp_trust)
        if verdict.starts:
            started.append(config)
            continue
        why = "declined" if verdict.verdict == "declined" else "not approved"
        print(
            f"prefixlock: MCP server {config.name!r} from {config.source} not started "
            f"({why}: a project's server needs your consent; {how_to_approve(config)})",
            file=sys.stderr,
        )
    return started


def _load_settings(args: argparse.Namespace) -> ChatSettings:
    """The settings files for `--workspace` (user level from the home folder); a bad one is
    a ConfigError naming it (exit 2). `--permission-mode` wins over theirs."""
    import sys
    from dataclasses import replace
    from pathlib import Path

    from ..coding.settings_files import ignored_notes, load_settings

    settings = load_settings(Path(args.workspace).expanduser(), Path.home())
    for note in ignored_notes(settings):
        print(f"prefixlock: {note}", file=sys.stderr)
    if args.permission_mode is not None:
        settings = replace(settings, permission_mode=args.permission_mode)
    return settings


def _run_run(args: argparse.Namespace, clock: Clock | None = None) -> int:
    """`prefixlock run`; `clock` (tests: a ManualClock) is what a --wait waits on."""
    import asyncio
    import contextlib
    import os
    import sys
    import time
    from pathlib import Path

    from ..agent import Agent
    from ..billing.prices import PriceTable
    from ..billing.usage import Usage
    from ..coding.recent_sessions import record as record_session
    from ..errors import ConfigError, MissingKeyError, ProviderError
    from ..events import (
        ProviderFault,
        StoreWriteFailed,
        ToolCall,
        ToolResult,
        TurnComplete,
    )
    from ..prefix import FrozenPrefix
    from ..providers import resolve_route
    from ..settings import Settings
    from ..store.errors import StoreWriteLost
    from .headless import EXIT_LIMIT, EXIT_REFUSED, HeadlessTranscript, exit_code

    if args.task == "-":
        args.task = _read_stdin_task()
    if not args.task.strip():
        raise ConfigError("the task is empty: say what the model should do", where="task")

    from ..coding.custom_commands import expand_task, load_commands
    from ..coding.mcp_tools import announced_changes, open_servers
    from ..coding.permissions import Permissions
    from ..errors import UnknownModelError
    from ..guard.policy import CachePolicy

    file_settings = _load_settings(args)
    # Flags beat the settings files: --model over their model.
    model = args.model or file_settings.model or DEFAULT_RUN_MODEL
    prices = PriceTable.default(args.prices)
    from_file = args.model is None and file_settings.model is not None
    if from_file and ":" not in model and prices.lookup(model) is None:
        # As in the chat: a typo in a settings file is named there, not sent to a provider.
        raise UnknownModelError(
            f"unknown model {model!r}; `prefixlock models` lists the priced ones "
            "(openai-compat:NAME for any other)",
            where=f"{file_settings.model_source}: model",
        )
    try:
        route = resolve_route(model, _base_url(args.base_url), prices)
    except UnknownModelError as exc:
        if from_file:
            raise exc.at(f"{file_settings.model_source}: model") from None
        raise
    max_dollars = _dollars(args.max_dollars)
    if max_dollars is not None and prices.lookup(route.model) is None:
        # The loop stops on the session's dollars; an unpriced model never has any.
        raise ConfigError(
            f"{route.model!r} is not in the price table, so a dollar limit cannot be kept: "
            "add it with --prices FILE",
            where="--max-dollars",
        )
    if args.max_turns < 1:
        raise ConfigError("must be at least 1", where="--max-turns")
    settings = Settings(
        ttl=args.ttl,
        max_turns=args.max_turns,
        max_dollars=max_dollars,
        effort=file_settings.effort,
    )
    permissions = Permissions(
        file_settings,
        # prefixlock: ignore[PL201] membership only; the instructions never read it
        allowed={a for a in args.allow if a != "mcp"},
        allow_mcp="mcp" in args.allow,
    )
    mcp_configs = _consented_servers(args, file_settings)
    policy = CachePolicy(tools=args.tool_changes)
    denials: list[Denial] = []
    tools, instructions = _workspace_tools(args, file_settings, permissions, denials)
    hooks = _hooks(args)
    # A `/name` task is a custom command, expanded as the chat expands it (a malformed
    # command file or an unknown name: one line, exit 2).
    commands, _ = load_commands(Path(args.workspace).expanduser(), Path.home())
    task = expand_task(args.task, commands)
    if args.continue_:
        args.resume = _newest_session(args)
    system = _read_system(args.system)
    # The project's instruction files: a system block of their own, as in the chat.
    system_blocks = (system, instructions) if instructions else system

    stack = contextlib.ExitStack()
    store = _check_store(args, clock)
    if store is not None:
        stack.enter_context(store)
    base_url, api_key = args.base_url, None
    # No key: the emulator stands in, unless the user named a server (--base-url): a local
    # vLLM or Ollama must not be silently replaced by a scripted model.
    if args.emulator or (args.base_url is None and not os.environ.get(route.key_var)):
        try:
            from ..emulator import EXPLORER, Emulator
        except ImportError:  # no emulator in this install: the key is required
            Emulator = None  # type: ignore[assignment,misc]
        if Emulator is not None:
            # The explorer script: it looks around with whatever tools are offered (list,
            # search, read) and summarizes what they returned.
            # With the same prices, so a model added by --prices is served too.
            emu = stack.enter_context(Emulator.start(script=EXPLORER, prices=prices))
            base_url, api_key = emu.base_url, "emulator"
            why = "--emulator given" if args.emulator else f"no {route.key_var} set"
            print(
                f"prefixlock: {why}: running on the local emulator (a scripted model)",
                file=sys.stderr,
            )
    if api_key is None and not os.environ.get(route.key_var):
        # Said here in the CLI's words: the library's message suggests `api_key=`.
        at = f" at {args.base_url}" if args.base_url else ""
        hint = " (any value if the server ignores keys)" if args.base_url else ""
        raise MissingKeyError(
            f"no API key for {route.label}{at}: set {route.key_var}{hint}", where=route.key_var
        )

    started = time.monotonic()
    workspace_root = Path(args.workspace).expanduser().resolve()
    out = _Output(args.output_format)
    report: HeadlessTranscript | None = None
    ended: dict[str, Any] = {"usage": Usage(), "cost": None, "hit_rate": 0.0}

    async def go() -> tuple[str, str, str | None]:
        async with contextlib.AsyncExitStack() as servers:
            # The settings' MCP servers, listed once: their tools pinned in the prefix, each
            # call asking the permission rules first.
            mcp = await open_servers(
                servers, mcp_configs, gate=_headless_gate(permissions, denials)
            )
            mcp_tools = [t for server in mcp for t in server.tools]
            # Hooks around each call; the specs, and so the prefix's bytes, are unchanged.
            wrapped = hooks.wrap([*tools, *mcp_tools], Path(args.workspace).expanduser().resolve())
            prefix = FrozenPrefix(system=system_blocks, tools=wrapped)
            return await converse(prefix, mcp)

    async def follow_tool_changes(s: Session, mcp: list[McpServer]) -> None:
        for change in await announced_changes(mcp, s):
            quote = change.quote
            if policy.allow_tools(quote):
                change.apply(policy="allow")
                print(
                    f"prefixlock: MCP tools changed ({change.describe()}): the next request "
                    f"has them (re-bills {quote.tokens_rebilled:,} cached tokens)",
                    file=sys.stderr,
                )
            else:
                cost = f"${quote.dollars:.4f}" if quote.dollars is not None else "unpriced"
                print(
                    f"prefixlock: MCP tools changed ({change.describe()}): kept the pinned "
                    f"list (moving would re-bill {quote.tokens_rebilled:,} cached tokens, "
                    f"{cost}; --tool-changes always takes such changes)",
                    file=sys.stderr,
                )

    # What the run answered, kept for when closing the session raises StoreWriteLost.
    lost_result: tuple[str, str, str | None] = ("", "", None)
    unstored = False

    def begin(s: Session, prefix: FrozenPrefix) -> HeadlessTranscript:
        nonlocal report
        report = HeadlessTranscript(s.id, s.model, denials=denials)
        cwd = str(Path(args.workspace).expanduser().resolve())
        out.line(report.init(cwd, [t.name for t in prefix.tools], permissions.mode))
        return report

    def say_hook_notes() -> None:
        for note in hooks.take_notes():
            print(f"prefixlock: {note}", file=sys.stderr)

    async def converse(prefix: FrozenPrefix, mcp: list[McpServer]) -> tuple[str, str, str | None]:
        nonlocal unstored
        agent = Agent(
            prefix,
            model=model,
            api_key=api_key,
            base_url=base_url,
            prices=prices,
            settings=settings,
            store=store,
        )
        fresh = args.resume is None
        session = agent.session() if fresh else agent.resume(args.resume, fork=args.fork)
        try:
            result = await _converse_in(session, mcp)
        except StoreWriteLost as lost:  # the answer stands; the store misses billed work
            print(f"prefixlock: session store {lost}", file=sys.stderr)
            unstored = True
            result = lost_result
        return result

    async def _converse_in(session: Session, mcp: list[McpServer]) -> tuple[str, str, str | None]:
        nonlocal lost_result
        answer, limit = "", None
        fresh = args.resume is None
        async with session as s:
            print(f"prefixlock: session {s.id}", file=sys.stderr)
            if store is not None:  # for --continue and the chat's session picker
                record_session(Path(store.path), workspace_root, s.id, time.time())
            transcript = begin(s, s.prefix)
            hooks.session_id = s.id
            blocked, first = await hooks.prompt(task, start="startup" if fresh else "resume")
            message: str | None = first
            say_hook_notes()
            if blocked is not None:
                print(f"prefixlock: UserPromptSubmit hook: {blocked}", file=sys.stderr)
                denials.append(Denial("UserPromptSubmit", task[:80], blocked))
            while blocked is None and message is not None:
                async for event in s.send(message):
                    for line in transcript.feed(event):
                        out.line(line)
                    if isinstance(event, TurnComplete):
                        answer, limit = event.text, event.limit_hit
                    elif args.verbose and isinstance(event, ToolCall):
                        print(f"  tool {event.name} {event.input}", file=sys.stderr)
                    elif args.verbose and isinstance(event, ProviderFault):
                        print(f"  {event.message} (retrying: {event.retrying})", file=sys.stderr)
                    elif isinstance(event, StoreWriteFailed):  # said once by the recorder
                        print(f"prefixlock: {event.message}", file=sys.stderr)
                    elif isinstance(event, ToolResult):
                        say_hook_notes()
                        if mcp:
                            # A tool may have made a server change its list: the next request
                            # goes with it or not, as the cache policy says (said either way).
                            await follow_tool_changes(s, mcp)
                # A Stop hook may send the model on (its reason is the next message).
                message = await hooks.stop(answer) if limit is None else None
                say_hook_notes()
                if message is not None:
                    print(f"prefixlock: Stop hook: going on: {message}", file=sys.stderr)
            ended.update(usage=s.ledger.usage, cost=s.ledger.cost, hit_rate=s.ledger.hit_rate)
            result = lost_result = answer, s.ledger.summary(), limit
        return result

    answer, summary, limit, error = "", "", None, None
    with stack:
        try:
            answer, summary, limit = asyncio.run(go())
        except ProviderError as exc:
            error = f"provider error: {exc}"
            print(f"prefixlock: {error}", file=sys.stderr)
    if report is not None:
        for line in report.finish():
            out.line(line)
        result = report.result(
            answer=answer,
            limit=limit,
            error=error,
            usage=ended["usage"],
            cost=ended["cost"],
            hit_rate=ended["hit_rate"],
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        out.result(result)
    if error is None and args.output_format == "text":
        print(answer)
    if limit is not None:
        print(f"prefixlock: stopped by the {limit} limit (exit {EXIT_LIMIT})", file=sys.stderr)
    if denials and error is None and limit is None:
        n = len(denials)
        print(
            f"prefixlock: exit {EXIT_REFUSED}: the model finished, but {n} write(s), "
            "command(s) or MCP call(s) were not allowed",
            file=sys.stderr,
        )
    if summary:
        print(summary, file=sys.stderr)
    if unstored:
        return 1  # the answer stands, but the store lost billed work (said above)
    return exit_code(limit, error, denials)


def _read_stdin_task() -> str:
    """`run -`: the task is standard input, whole (a terminal is not a task: say so)."""
    import sys

    from ..errors import ConfigError

    if sys.stdin is None or sys.stdin.isatty():
        why = "'-' reads the task from standard input, which is a terminal"
        raise ConfigError(why, where="task")
    try:
        return sys.stdin.read()
    except UnicodeDecodeError as exc:
        why = f"standard input is not UTF-8 text ({exc.reason})"
        raise ConfigError(why, where="task") from None


class _Output:
    """Prints the JSON lines of `--output-format`: each `stream-json` line as it comes
    (flushed, for a reader on a pipe), the `json` result alone at the end."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt

    def line(self, obj: dict[str, Any]) -> None:
        if self.fmt == "stream-json":
            self._print(obj)

    def result(self, obj: dict[str, Any]) -> None:
        if self.fmt in ("json", "stream-json"):
            self._print(obj)

    @staticmethod
    def _print(obj: dict[str, Any]) -> None:
        import json
        import sys

        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        sys.stdout.flush()


RUN_COMMAND = Command(
    "run one task headless and print the answer and its cost", _configure_run, _run_run, order=10
)


DEMO_COMMAND = deferred(
    "prefixlock.cli.demo",
    help="run the offline demo: prefixlock vs a naive client, on a cache-aware and a crude server",
    order=5,
    configure="_configure",
    run="_run",
)
