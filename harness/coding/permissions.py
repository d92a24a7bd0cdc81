"""Which writes, commands, reads and MCP tool calls go ahead without asking: the permission
mode and the settings' allow / deny rules, applied to the workspace's approval requests, to the
read tools' paths and to MCP tool names (the decisions are pure, no I/O). Used by the chat
(which asks the user when the answer is "ask") and by `prefixlock run` (which has nobody to ask
and refuses).

Order: a deny rule always wins (even in bypass mode and over "always this session"); then an ask
rule (`permissions.ask`, as in Claude Code) asks whatever else would allow (the chat's dialog;
`prefixlock run` refuses, naming the rule); plan mode refuses every write and every command
not allow-listed; bypass allows the rest; accept-edits allows writes; an allow rule, or the
user's "always" for this session, allows; else ask.

Command rules follow Claude Code: `Bash(npm test)` is that exact command, `Bash(npm test:*)`
that command and any arguments after it, a `*` elsewhere matches anything. A command line
made of several commands (`a && b`, `a; b`, `a | b`) is allowed only when every one of them
is, and denied when any one is; command substitution (`$(...)`, backticks) or an output
redirection is never allowed by a rule (it is asked). Path rules (`Edit(src/**)`,
`Read(.env)`) match the workspace-relative path: `*` within a folder, `**` across folders, a
pattern without `/` any file of that name, a leading `/` or `./` the workspace root.

MCP tools (`mcp__SERVER__TOOL`) are named by Claude Code's forms: `mcp__SERVER__TOOL` one tool,
`mcp__SERVER` or `mcp__SERVER__*` every tool of that server. As in Claude Code, a call is asked
about unless something allows it: a deny rule refuses it (in every mode); plan mode runs only
allow-listed ones; bypass runs the rest; an allow rule, `--allow mcp`, or the user's "always"
for that tool this session allows it; otherwise ask (accept-edits allows file edits only, so
it still asks). The chat asks in a dialog; `prefixlock run` has nobody to ask and refuses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from .settings_files import READ_TOOLS, WRITE_TOOLS, ChatSettings, PermissionMode, Rule
from .workspace import Action, ApprovalRequest

Verdict = Literal["allow", "deny", "ask"]

# Where one command ends and the next begins (outside quotes is not tracked: a quoted `;` only
# makes a rule stricter, never looser).
_SEPARATORS = re.compile(r"&&|\|\||[;&|\n]")
# Never allowed by a rule: what runs another command or writes a file through the shell.
_UNSAFE = re.compile(r"\$\(|`|>|<\(")


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    reason: str  # why, for the user's note or the model's error ("" when asking)


@dataclass
class Permissions:
    """The settings' rules plus what the user allowed during this session."""

    settings: ChatSettings = field(default_factory=ChatSettings)
    allowed: set[Action] = field(default_factory=set)  # "always this session", --allow, /allow
    mode: PermissionMode = "ask"
    # MCP tools the user allowed with "always" this session (their prefixed names).
    allowed_tools: set[str] = field(default_factory=set)
    allow_mcp: bool = False  # every MCP tool (`--allow mcp`); deny rules and plan mode hold

    def __post_init__(self) -> None:
        self.mode = self.settings.mode

    def decide(self, request: ApprovalRequest) -> Ruling:
        if request.action == "write":
            return self._write(request.path or "")
        return self._run(request.detail)

    def _write(self, path: str) -> Ruling:
        writes = [r for r in self.settings.deny if r.tool in WRITE_TOOLS]
        hit = first_path_rule(writes, path)
        if hit is not None:
            return Ruling("deny", f"denied by {hit.text} ({hit.source})")
        if self.mode == "plan":
            return Ruling("deny", "plan mode is read-only: no file is written")
        hit = first_path_rule([r for r in self.settings.ask if r.tool in WRITE_TOOLS], path)
        if hit is not None:
            return Ruling("ask", f"asked by {hit.text} ({hit.source})")
        if self.mode == "bypass":
            return Ruling("allow", "bypass mode")
        if self.mode == "accept-edits":
            return Ruling("allow", "accept-edits mode")
        hit = first_path_rule([r for r in self.settings.allow if r.tool in WRITE_TOOLS], path)
        if hit is not None:
            return Ruling("allow", f"allowed by {hit.text}")
        if "write" in self.allowed:
            return Ruling("allow", "allowed for this session")
        return Ruling("ask", "")

    def _run(self, command: str) -> Ruling:
        parts = split_command(command)
        bash_deny = [r for r in self.settings.deny if r.tool == "Bash"]
        for part in [command.strip(), *parts]:
            for rule in bash_deny:
                if command_matches(rule.pattern, part):
                    return Ruling("deny", f"denied by {rule.text} ({rule.source})")
        bash_ask = [r for r in self.settings.ask if r.tool == "Bash"]
        for part in [command.strip(), *parts]:
            for rule in bash_ask:
                if command_matches(rule.pattern, part) and self.mode != "plan":
                    return Ruling("ask", f"asked by {rule.text} ({rule.source})")
        allowed_by = self._allow_rule(command, parts)
        if self.mode == "plan":
            if allowed_by is not None:
                return Ruling("allow", f"allowed by {allowed_by}")
            return Ruling("deny", "plan mode is read-only: only allow-listed commands run")
        if self.mode == "bypass":
            return Ruling("allow", "bypass mode")
        if allowed_by is not None:
            return Ruling("allow", f"allowed by {allowed_by}")
        if "run" in self.allowed:
            return Ruling("allow", "allowed for this session")
        return Ruling("ask", "")

    def _allow_rule(self, command: str, parts: list[str]) -> str | None:
        """The rule(s) that allow every part of `command`, or None."""
        if _UNSAFE.search(command) or not parts:
            return None
        rules = [r for r in self.settings.allow if r.tool == "Bash"]
        used: list[str] = []
        for part in parts:
            hit = next((r for r in rules if command_matches(r.pattern, part)), None)
            if hit is None:
                return None
            if hit.text not in used:
                used.append(hit.text)
        return ", ".join(used)

    def read_denied(self, path: str) -> Rule | None:
        """The deny rule that keeps `path` (workspace-relative) from being read, if any."""
        return first_path_rule([r for r in self.settings.deny if r.tool in READ_TOOLS], path)

    def decide_tool(self, name: str) -> Ruling:
        """An MCP tool call by its prefixed name (see the module docstring)."""
        hit = first_tool_rule(self.settings.deny, name)
        if hit is not None:
            return Ruling("deny", f"denied by {hit.text} ({hit.source})")
        hit = first_tool_rule(self.settings.ask, name)
        if hit is not None and self.mode != "plan":
            return Ruling("ask", f"asked by {hit.text} ({hit.source})")
        allowed = first_tool_rule(self.settings.allow, name)
        if self.mode == "plan" and allowed is None:
            return Ruling("deny", "plan mode is read-only: only allow-listed MCP tools run")
        if allowed is not None:
            return Ruling("allow", f"allowed by {allowed.text}")
        if self.mode == "bypass":
            return Ruling("allow", "bypass mode")
        if self.allow_mcp or name in self.allowed_tools:
            return Ruling("allow", "allowed for this session")
        return Ruling("ask", "")

    def refuse_tool(self, name: str) -> str | None:
        """Why an MCP tool call is refused now with nobody to ask, or None (the headless
        `McpServer` gate of `prefixlock run`: the mode and the rules are read at each call).
        What would be asked is refused, saying how to allow it."""
        ruling = self.decide_tool(name)
        if ruling.verdict == "allow":
            return None
        if ruling.verdict == "deny":
            return ruling.reason
        if ruling.reason:  # an ask rule: no flag makes it allowed
            return f"{ruling.reason}: prefixlock run has nobody to ask"
        server = name.split("__")[1] if name.count("__") >= 2 else name
        return (
            "prefixlock run has nobody to ask: allow it with --allow mcp, --permission-mode "
            f"bypass or a permissions.allow rule such as {name} or mcp__{server}"
        )

    def read_rule(self, path: str) -> str | None:
        """The text of the deny rule that keeps `path` from being read (the workspace's
        `read_denied`: it refuses the path and leaves it out of folder-wide listings)."""
        rule = self.read_denied(path)
        return rule.text if rule is not None else None


def split_command(command: str) -> list[str]:
    """The simple commands of a command line, stripped, empty ones dropped."""
    return [p.strip() for p in _SEPARATORS.split(command) if p.strip()]


def command_matches(pattern: str | None, command: str) -> bool:
    """Claude Code's Bash rule semantics (see the module docstring)."""
    if pattern is None:
        return True
    cmd = " ".join(command.split())
    pat = " ".join(pattern.split())
    if pat.endswith(":*"):
        head = pat[:-2].rstrip()
        return cmd == head or cmd.startswith(head + " ")
    if "*" in pat:
        return _glob(pat, across=True).fullmatch(cmd) is not None
    return cmd == pat


def path_matches(pattern: str | None, path: str) -> bool:
    """gitignore-like path rules over a workspace-relative POSIX path."""
    if pattern is None:
        return True
    pat = pattern.strip()
    rel = path.strip()
    if rel.startswith("./"):
        rel = rel[2:]
    if pat.startswith("./"):
        pat = pat[2:]
    anchored = pat.startswith("/") or "/" in pat.rstrip("/")
    pat = pat.lstrip("/")
    if pat.endswith("/"):  # a folder: everything under it
        pat += "**"
    if not anchored:  # a bare name: that name at any depth, or anything under such a folder
        pat = "**/" + pat
    regex = _glob(pat, across=False)
    return (
        regex.fullmatch(rel) is not None
        or regex.fullmatch(rel + "/") is not None
        or any(regex.fullmatch(rel[:i]) is not None for i, ch in enumerate(rel) if ch == "/")
    )


def first_path_rule(rules: Iterable[Rule], path: str) -> Rule | None:
    return next((r for r in rules if path_matches(r.pattern, path)), None)


def tool_matches(rule_tool: str, name: str) -> bool:
    """Does an MCP rule's tool (`mcp__srv`, `mcp__srv__*`, `mcp__srv__tool`) name `name`?"""
    if not rule_tool.startswith("mcp__"):
        return False
    if rule_tool.endswith("__*"):
        return name.startswith(rule_tool[:-1])
    return name == rule_tool or name.startswith(rule_tool + "__")


def first_tool_rule(rules: Iterable[Rule], name: str) -> Rule | None:
    return next((r for r in rules if tool_matches(r.tool, name)), None)


@lru_cache(maxsize=256)
def _glob(pattern: str, *, across: bool) -> re.Pattern[str]:
    """`*` (any run of characters, within one folder unless `across`), `**` (across
    folders), `?` (one character); everything else literal."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append(".*" if across else "[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("." if across else "[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)
