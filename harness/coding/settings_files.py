"""The settings files of `prefixlock chat` and `prefixlock run`: `.prefixlock/settings.toml`,
the Claude Code `settings.json` shape, and Claude Code's project MCP file `.mcp.json`.

Read, lowest precedence first (a later file wins a scalar; permission rules add up; an MCP
server of the same name is replaced):

    ~/.claude/settings.json          ~/.prefixlock/settings.toml          (user level)
    .mcp.json   .claude/settings.json   .claude/settings.local.json   .prefixlock/settings.toml
                                                                      (project)

`settings.toml`:

    model = "claude-sonnet-4-6"
    effort = "low"                       # minimal | low | medium | high | max
    permission_mode = "ask"              # ask | accept-edits | plan | bypass

    [permissions]
    allow = ["Bash(npm test:*)", "Edit(src/**)", "mcp__files__read"]
    deny  = ["Bash(rm:*)", "Read(.env)", "mcp__files__delete"]

    [mcp_servers.files]                   # stdio MCP servers, tools pinned in the prefix
    command = "python"
    args = ["server.py"]

    [sandbox]                             # the command sandbox's options (SANDBOX_HOOK)

From a Claude Code `settings.json` the keys that fit are read (`model`, `permissions.allow`,
`permissions.deny`, `permissions.defaultMode`, and the project-MCP consent keys
`enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`, which a
settings.toml spells `enable_all_project_mcp_servers`, `enabled_project_mcp_servers`,
`disabled_project_mcp_servers`); `hooks` is prefixlock.coding.hooks'; other keys
are left alone. `.mcp.json` is `{"mcpServers": {NAME: {"command", "args", "env"}}}` (or
`"type": "http"` with a `"url"`); `${VAR}` and `${VAR:-default}` in its strings are taken from
the environment, as Claude Code does. An unknown key in a `settings.toml` or a server entry is
a typo and an error. MCP servers declared by the project's files are marked `project`: they
start only with the user's consent (prefixlock.coding.mcp_consent), and the consent keys count only
from the user's files and `.claude/settings.local.json`, never from a file the repository
ships. Every error is one `ConfigError` naming the file and the field (the CLI
prints it and exits 2). A project's file (one the repository ships, or one a command could
write) cannot loosen the sandbox or skip approvals: its `[sandbox]` keys count only where they
tighten, and its `accept-edits` / `bypass` mode not at all (`ignored` says what was left out).
Command-line flags beat all of these (`sandbox_options`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from ..errors import ConfigError

if TYPE_CHECKING:
    from .sandbox import SandboxMode, SandboxOptions

PermissionMode = Literal["ask", "accept-edits", "plan", "bypass"]
MODES: tuple[PermissionMode, ...] = ("ask", "accept-edits", "plan", "bypass")
# Claude Code's `permissions.defaultMode` values, as ours.
CLAUDE_MODES: dict[str, PermissionMode] = {
    "default": "ask",
    "acceptEdits": "accept-edits",
    "plan": "plan",
    "bypassPermissions": "bypass",
}
EFFORTS = ("minimal", "low", "medium", "high", "max")
# Tools a permission rule may name (Claude Code's names). Bash rules steer run_command; Edit,
# Write, MultiEdit and NotebookEdit the file writes; Read, Grep, Glob and LS the reads. WebFetch,
# WebSearch and Task rules are accepted (a shared Claude file has them) and match nothing here.
RULE_TOOLS = frozenset(
    {
        "Bash",
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "Read",
        "Grep",
        "Glob",
        "LS",
        "WebFetch",
        "WebSearch",
        "Task",
    }
)
WRITE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS"})
# A tool name, then an optional (pattern); `mcp__server__*` may end in `*`.
_RULE = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_-]*\*?)(?:\((?P<pattern>.*)\))?$", re.DOTALL)
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

#: The `[sandbox]` table's hook: settings keep the table as read (`ChatSettings.sandbox`, plain
#: TOML values) and do not interpret it. The command sandbox (prefixlock.coding.sandbox) owns
#: its options and their validation; it reads this table from here.
SANDBOX_HOOK = "sandbox"
#: The keys that approve or refuse the project's MCP servers (see ChatSettings): Claude Code's
#: names in a settings.json, and ours in a settings.toml.
JSON_CONSENT_KEYS = (
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
)
TOML_CONSENT_KEYS = (
    "enable_all_project_mcp_servers",
    "enabled_project_mcp_servers",
    "disabled_project_mcp_servers",
)
#: Claude Code's project MCP file, in the workspace root.
MCP_JSON = ".mcp.json"
# `${VAR}` or `${VAR:-default}` in a `.mcp.json` string.
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class Rule:
    """One permission rule: `Bash(npm test:*)` is tool "Bash", pattern "npm test:*"."""

    tool: str
    pattern: str | None  # None: the whole tool ("Bash" alone)
    text: str
    source: str  # "file (permissions.allow[2])", said when the rule decides


@dataclass(frozen=True)
class McpServerConfig:
    """An MCP server from `[mcp_servers.NAME]` or `.mcp.json`: a stdio command, or (from
    `.mcp.json`, `"type": "http"`) a streamable HTTP `url` (then `command` is "")."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    source: str = ""
    url: str | None = None
    # Declared by the project's own files (`.mcp.json`, the project's settings.toml or
    # .claude/settings.json): a cloned repository's, started only with the user's consent
    # (prefixlock.coding.mcp_consent). Set by `load_settings`; a config built in code is the
    # caller's.
    project: bool = False


@dataclass(frozen=True)
class ChatSettings:
    """What the settings files say, merged (see the module docstring for the order)."""

    model: str | None = None
    model_source: str = ""  # the file that set `model` (named if the model is unknown)
    effort: str | None = None
    permission_mode: PermissionMode | None = None  # None: not set here ("ask")
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()  # asked even when an allow rule, the mode or "always" would allow
    mcp_servers: tuple[McpServerConfig, ...] = ()
    sandbox: Mapping[str, Any] = field(default_factory=dict)  # see SANDBOX_HOOK
    # `[sandbox]` tables of the project's files (file, table), lowest precedence first: they
    # may only make the sandbox stricter (`sandbox_options`).
    project_sandbox: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    sources: tuple[str, ...] = ()  # the files read, lowest precedence first
    # What was read and not honoured, one line each (a repository's file cannot loosen the
    # sandbox or skip approvals).
    ignored: tuple[str, ...] = ()
    # Consent to the project's MCP servers (Claude Code's enableAllProjectMcpServers,
    # enabledMcpjsonServers, disabledMcpjsonServers). Honoured only from the user's files and
    # the project's local .claude/settings.local.json: the repository cannot approve itself.
    enable_all_project_mcp: bool | None = None
    enabled_project_mcp: tuple[str, ...] = ()
    disabled_project_mcp: tuple[str, ...] = ()

    @property
    def mode(self) -> PermissionMode:
        return self.permission_mode or "ask"


def settings_files(workspace: Path, user_dir: Path | None) -> list[Path]:
    """Where settings are looked for, lowest precedence first (`user_dir`: the home folder;
    None reads only the project's files)."""
    files: list[Path] = []
    if user_dir is not None:
        files += [
            user_dir / ".claude" / "settings.json",
            user_dir / ".prefixlock" / "settings.toml",
        ]
    files += [
        workspace / MCP_JSON,
        workspace / ".claude" / "settings.json",
        workspace / ".claude" / "settings.local.json",
        workspace / ".prefixlock" / "settings.toml",
    ]
    return files


def load_settings(workspace: Path, user_dir: Path | None = None) -> ChatSettings:
    """Read and merge every settings file that exists; a bad one raises ConfigError."""
    merged = ChatSettings()
    seen: set[Path] = set()
    files = settings_files(workspace, user_dir)
    user_files = set(files[:2]) if user_dir is not None else set()
    local = workspace / ".claude" / "settings.local.json"  # the user's, not committed
    for path in files:
        if not path.is_file():
            continue
        real = path.resolve()
        if real in seen:  # the home folder is the workspace: one file, read once
            continue
        seen.add(real)
        layer = read_settings_file(path)
        if path not in user_files:
            layer = _project_layer(layer, str(path))
            # The project's servers wait for consent; its shared files cannot give it.
            layer = replace(
                layer, mcp_servers=tuple(replace(s, project=True) for s in layer.mcp_servers)
            )
            if path != local:
                layer = replace(
                    layer,
                    enable_all_project_mcp=None,
                    enabled_project_mcp=(),
                    disabled_project_mcp=(),
                )
        merged = merge(merged, layer)
    return merged


#: Permission modes a project's file may set: the ones that ask as much or more.
PROJECT_MODES: tuple[PermissionMode, ...] = ("ask", "plan")


def _project_layer(layer: ChatSettings, source: str) -> ChatSettings:
    """A file in the workspace (shipped by the repository, or writable by what runs there):
    its `[sandbox]` table kept apart (it may only tighten), and a permission mode that skips
    approvals left out, said in `ignored`."""
    ignored: list[str] = []
    mode = layer.permission_mode
    if mode is not None and mode not in PROJECT_MODES:
        ignored.append(
            f"{source}: permission mode {mode!r} ignored: a mode that skips approvals counts "
            "only from your own settings (~/.prefixlock/settings.toml, ~/.claude/settings.json) "
            "or --permission-mode"
        )
        mode = None
    table = ((source, layer.sandbox),) if layer.sandbox else ()
    return replace(
        layer,
        permission_mode=mode,
        sandbox={},
        project_sandbox=table,
        ignored=tuple(ignored),
    )


def read_settings_file(path: Path) -> ChatSettings:
    """One file, by its kind (`.toml` ours, `.json` Claude Code's)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read settings: {exc.strerror}", where=str(path)) from None
    except UnicodeDecodeError:
        raise ConfigError("cannot read settings: not UTF-8 text", where=str(path)) from None
    if path.suffix == ".toml":
        return parse_toml(text, str(path))
    if path.name == MCP_JSON:
        return parse_mcp_json(text, str(path))
    return parse_claude_json(text, str(path))


def parse_toml(text: str, source: str) -> ChatSettings:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        where = f"{source}:{found.group(1)}" if found else source
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"malformed TOML: {message}", where=where) from None
    known = {
        "model",
        "effort",
        "permission_mode",
        "permissions",
        "mcp_servers",
        SANDBOX_HOOK,
        *TOML_CONSENT_KEYS,
    }
    for key in data:
        if key not in known:
            raise ConfigError(
                f"unknown setting (known: {', '.join(sorted(known))})", where=f"{source}: {key}"
            )
    out = ChatSettings(sources=(source,))
    if "model" in data:
        out = replace(out, model=_text(data["model"], source, "model"), model_source=source)
    if "effort" in data:
        out = replace(out, effort=_effort(data["effort"], source))
    if "permission_mode" in data:
        mode = data["permission_mode"]
        if mode not in MODES:
            raise ConfigError(
                f"must be one of {', '.join(MODES)}, got {mode!r}",
                where=f"{source}: permission_mode",
            )
        out = replace(out, permission_mode=cast(PermissionMode, mode))
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise ConfigError("must be a table (allow, deny, ask)", where=f"{source}: permissions")
    for key in perms:
        if key not in ("allow", "deny", "ask"):
            raise ConfigError(
                "unknown key (known: allow, deny, ask)", where=f"{source}: permissions.{key}"
            )
    out = replace(
        out,
        allow=_rules(perms.get("allow", []), source, "permissions.allow"),
        deny=_rules(perms.get("deny", []), source, "permissions.deny"),
        ask=_rules(perms.get("ask", []), source, "permissions.ask"),
    )
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError("must be a table of servers", where=f"{source}: mcp_servers")
    out = replace(
        out, mcp_servers=tuple(_server(name, spec, source) for name, spec in servers.items())
    )
    sandbox = data.get(SANDBOX_HOOK, {})
    if not isinstance(sandbox, dict):
        raise ConfigError("must be a table", where=f"{source}: {SANDBOX_HOOK}")
    return _consent_keys(replace(out, sandbox=sandbox), data, source, TOML_CONSENT_KEYS)


def parse_claude_json(text: str, source: str) -> ChatSettings:
    """The keys of a Claude Code settings file that mean something here."""
    data = _json_object(text, source)
    out = ChatSettings(sources=(source,))
    if "model" in data:
        out = replace(out, model=_text(data["model"], source, "model"), model_source=source)
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise ConfigError(
            "must be an object (allow, deny, defaultMode)", where=f"{source}: permissions"
        )
    mode = perms.get("defaultMode")
    if mode is not None:
        if mode not in CLAUDE_MODES:
            raise ConfigError(
                f"must be one of {', '.join(CLAUDE_MODES)}, got {mode!r}",
                where=f"{source}: permissions.defaultMode",
            )
        out = replace(out, permission_mode=CLAUDE_MODES[mode])
    out = replace(
        out,
        allow=_rules(perms.get("allow", []), source, "permissions.allow"),
        deny=_rules(perms.get("deny", []), source, "permissions.deny"),
        ask=_rules(perms.get("ask", []), source, "permissions.ask"),
    )
    return _consent_keys(out, data, source, JSON_CONSENT_KEYS)


def _consent_keys(
    out: ChatSettings, data: Mapping[str, Any], source: str, keys: tuple[str, str, str]
) -> ChatSettings:
    """The three project-MCP consent keys, by their names in this kind of file."""
    every, enabled, disabled = keys
    if every in data:
        if not isinstance(data[every], bool):
            raise ConfigError(
                f"must be true or false, got {data[every]!r}", where=f"{source}: {every}"
            )
        out = replace(out, enable_all_project_mcp=data[every])
    names: list[tuple[str, ...]] = []
    for key in (enabled, disabled):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError("must be a list of server names", where=f"{source}: {key}")
        names.append(tuple(value))
    return replace(out, enabled_project_mcp=names[0], disabled_project_mcp=names[1])


def _json_object(text: str, source: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"malformed JSON: {exc.msg}", where=f"{source}:{exc.lineno}") from None
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", where=source)
    return data


def parse_mcp_json(
    text: str, source: str, environ: Mapping[str, str] | None = None
) -> ChatSettings:
    """Claude Code's `.mcp.json`: its `mcpServers`, checked as `[mcp_servers]` entries are
    (`environ`, default os.environ, fills `${VAR}` references)."""
    data = _json_object(text, source)
    for key in data:
        if key != "mcpServers":
            raise ConfigError("unknown key (known: mcpServers)", where=f"{source}: {key}")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError("must be an object of servers", where=f"{source}: mcpServers")
    env = os.environ if environ is None else environ
    return ChatSettings(
        mcp_servers=tuple(
            _server(
                name,
                _expand_env(spec, env, f"{source}: mcpServers.{name}"),
                source,
                table="mcpServers",
            )
            for name, spec in servers.items()
        ),
        sources=(source,),
    )


def _expand_env(value: object, environ: Mapping[str, str], at: str) -> object:
    """`value` with `${VAR}` / `${VAR:-default}` filled in its strings (lists and objects
    followed); an unset variable without a default is an error naming it."""
    if isinstance(value, str):

        def fill(found: re.Match[str]) -> str:
            name, default = found.group(1), found.group(2)
            if name in environ:
                return environ[name]
            if default is not None:
                return default
            raise ConfigError(
                f"${{{name}}} is not set in the environment (and has no ':-default')", where=at
            )

        return _ENV_REF.sub(fill, value)
    if isinstance(value, list):
        return [_expand_env(v, environ, at) for v in value]
    if isinstance(value, dict):
        return {k: _expand_env(v, environ, at) for k, v in value.items()}
    return value


def merge(low: ChatSettings, high: ChatSettings) -> ChatSettings:
    """`high` over `low`: its scalars win when it sets them; rules and servers add up (a
    server of the same name is replaced)."""
    servers = {s.name: s for s in low.mcp_servers}
    servers.update({s.name: s for s in high.mcp_servers})
    return ChatSettings(
        model=high.model if high.model is not None else low.model,
        model_source=high.model_source if high.model is not None else low.model_source,
        effort=high.effort if high.effort is not None else low.effort,
        permission_mode=high.permission_mode or low.permission_mode,
        allow=low.allow + high.allow,
        deny=low.deny + high.deny,
        ask=low.ask + high.ask,
        mcp_servers=tuple(servers[n] for n in sorted(servers)),
        sandbox={**low.sandbox, **high.sandbox},
        project_sandbox=low.project_sandbox + high.project_sandbox,
        sources=low.sources + high.sources,
        ignored=low.ignored + high.ignored,
        enable_all_project_mcp=(
            high.enable_all_project_mcp
            if high.enable_all_project_mcp is not None
            else low.enable_all_project_mcp
        ),
        enabled_project_mcp=low.enabled_project_mcp + high.enabled_project_mcp,
        disabled_project_mcp=low.disabled_project_mcp + high.disabled_project_mcp,
    )


def parse_rule(text: object, source: str, where: str) -> Rule:
    """`Tool` or `Tool(pattern)`; `mcp__server` / `mcp__server__tool` name MCP tools."""
    at = f"{source}: {where}"
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"a rule must be text such as 'Bash(npm test:*)', got {text!r}", where=at)
    found = _RULE.match(text.strip())
    if found is None:
        raise ConfigError(f"malformed rule {text!r}: expected Tool or Tool(pattern)", where=at)
    tool, pattern = found.group("tool"), found.group("pattern")
    if tool not in RULE_TOOLS and not tool.startswith("mcp__"):
        raise ConfigError(
            f"unknown tool {tool!r} in rule {text!r} (known: {', '.join(sorted(RULE_TOOLS))}, "
            "mcp__SERVER[__TOOL])",
            where=at,
        )
    if tool.endswith("*") and not (tool.startswith("mcp__") and tool.endswith("__*")):
        raise ConfigError(f"malformed rule {text!r}: only mcp__SERVER__* ends in '*'", where=at)
    if pattern is not None and not pattern.strip():
        pattern = None  # "Bash()" is "Bash"
    if tool.startswith("mcp__") and pattern is not None:
        raise ConfigError(
            f"an MCP rule takes no (pattern): {text!r} (mcp__SERVER[__TOOL])", where=at
        )
    return Rule(tool, pattern.strip() if pattern else None, text.strip(), at)


def _rules(value: object, source: str, key: str) -> tuple[Rule, ...]:
    if not isinstance(value, list):
        raise ConfigError(
            "must be a list of rules such as 'Bash(npm test:*)'", where=f"{source}: {key}"
        )
    return tuple(parse_rule(v, source, f"{key}[{i}]") for i, v in enumerate(value))


def _text(value: object, source: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"must be non-empty text, got {value!r}", where=f"{source}: {key}")
    return value.strip()


def _effort(value: object, source: str) -> str:
    if value not in EFFORTS:
        raise ConfigError(
            f"must be one of {', '.join(EFFORTS)}, got {value!r}", where=f"{source}: effort"
        )
    return str(value)


def _server(name: str, spec: object, source: str, table: str = "mcp_servers") -> McpServerConfig:
    """One server entry; `table` is where it sits (`mcp_servers`, or `.mcp.json`'s
    `mcpServers`, whose entries may also say `"type"`: stdio, or http with a `url`)."""
    at = f"{source}: {table}.{name}"
    if not _SERVER_NAME.match(name):
        raise ConfigError("a server name is letters, digits, '_' and '-' (1 to 40)", where=at)
    if not isinstance(spec, dict):
        raise ConfigError("must be a table (command, args, env)", where=at)
    known = (
        ("command", "args", "env")
        if table == "mcp_servers"
        else ("type", "command", "args", "env", "url")
    )
    for key in spec:
        if key not in known:
            raise ConfigError(f"unknown key (known: {', '.join(known)})", where=f"{at}.{key}")
    kind = spec.get("type", "stdio")
    if kind not in ("stdio", "http"):
        raise ConfigError(
            f"must be stdio or http (the transports supported here), got {kind!r}",
            where=f"{at}.type",
        )
    if kind == "http":
        url = _text(spec.get("url"), source, f"{table}.{name}.url")
        if not re.match(r"^https?://[^/\s]+", url):
            raise ConfigError(f"not an http(s) URL: {url!r}", where=f"{at}.url")
        extra = [k for k in ("command", "args", "env") if k in spec]
        if extra:
            raise ConfigError("an http server has a url, not a command", where=f"{at}.{extra[0]}")
        return McpServerConfig(name, "", (), None, source, url=url)
    if "url" in spec:
        raise ConfigError('a url needs "type": "http"', where=f"{at}.url")
    command = _text(spec.get("command"), source, f"{table}.{name}.command")
    args = spec.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError("must be a list of strings", where=f"{at}.args")
    env = spec.get("env")
    if env is not None and (
        not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values())
    ):
        raise ConfigError("must be a table of strings", where=f"{at}.env")
    return McpServerConfig(name, command, tuple(args), env, source)


def sandbox_options(
    settings: ChatSettings | None, mode: SandboxMode | None = None, no_network: bool = False
) -> SandboxOptions:
    """How commands run: the `[sandbox]` table of the user's own files (validated by the
    sandbox itself), then the project's tables where they make it stricter, then the command
    line's `--sandbox MODE` and `--no-network`, which win over every file."""
    return sandbox_options_noted(settings, mode, no_network)[0]


def sandbox_options_noted(
    settings: ChatSettings | None, mode: SandboxMode | None = None, no_network: bool = False
) -> tuple[SandboxOptions, list[str]]:
    """`sandbox_options`, and one line for each project `[sandbox]` key left out."""
    from .sandbox import SandboxError, SandboxOptions, tightened

    options = SandboxOptions()
    notes: list[str] = []
    if settings is not None:
        try:
            if settings.sandbox:
                options = SandboxOptions.from_mapping(settings.sandbox, where="[sandbox]")
            for source, table in settings.project_sandbox:
                options, left_out = tightened(options, table, f"{source}: [sandbox]")
                notes += left_out
        except SandboxError as exc:
            raise ConfigError(str(exc), where="settings") from None
    if mode is not None:
        options = replace(options, mode=mode)
    if no_network:
        options = replace(options, network=False)
    return options, notes


def describe(settings: ChatSettings) -> str:
    """The settings in force, for `/permissions`."""
    lines = [f"permission mode: {settings.mode}"]
    groups = (("allow", settings.allow), ("ask", settings.ask), ("deny", settings.deny))
    for label, group in groups:
        if group:
            lines.append(f"{label}: " + ", ".join(r.text for r in group))
    if settings.effort:
        lines.append(f"effort: {settings.effort}")
    if settings.mcp_servers:
        lines.append("MCP servers: " + ", ".join(s.name for s in settings.mcp_servers))
    lines.append("settings read: " + (", ".join(settings.sources) if settings.sources else "none"))
    lines += [f"ignored: {note}" for note in ignored_notes(settings)]
    return "\n".join(lines)


def ignored_notes(settings: ChatSettings) -> list[str]:
    """One line for each setting read and not honoured (a project's file asked to loosen the
    sandbox or to skip approvals)."""
    notes = list(settings.ignored)
    with contextlib.suppress(ConfigError):  # a bad table is reported where options are made
        notes += sandbox_options_noted(settings)[1]
    return notes
