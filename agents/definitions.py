"""Agent definitions: Markdown files with YAML front matter, Claude Code's format included.

    ---
    name: explorer
    description: Searches and reads files, reports what it found.
    model: haiku                    # an alias, a model id, or `inherit` (the parent's model)
    tools: read_file, grep, glob    # a comma string or a YAML list; Claude Code names work too
    limits: {turns: 8, dollars: 0.25, summary_tokens: 600}
    ---
    You are an explorer. ...        # the body is the subagent's system prompt

Claude Code's files (`.claude/agents/*.md`) load as they are: its tool names (Read, Grep, Glob,
LS, Bash, Edit, Write...) map to the workspace tools, `maxTurns` is the turn limit, and keys this
harness does not use (color, permissionMode...) are kept in `extra` and reported once, never
fatal. A malformed file raises a UserError naming the file and the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from prefixlock.billing.money import parse_dollars
from prefixlock.errors import UserError

# Claude Code's tool names -> the workspace tools (prefixlock.coding.workspace).
CLAUDE_TOOL_NAMES: Mapping[str, str] = {
    "Read": "read_file",
    "LS": "list_dir",
    "Glob": "glob",
    "Grep": "grep",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Write": "write_file",
    "Bash": "run_command",
    "Task": "delegate",
    "Agent": "delegate",
}

DEFAULT_SUMMARY_TOKENS = 1000
DEFAULT_MAX_TURNS = 12

# Keys this harness reads; anything else in the front matter lands in `extra`.
KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "model",
        "tools",
        "limits",
        "max_turns",
        "maxTurns",
        "max_dollars",
        "summary_tokens",
    }
)
_LIMIT_KEYS = frozenset({"turns", "dollars", "summary_tokens"})


@dataclass(frozen=True)
class AgentDefinition:
    """One subagent: its prompt, model, tools and limits, and where it was defined."""

    name: str
    description: str
    system: str  # the Markdown body: the subagent's system prompt
    model: str | None = None  # None: inherit the parent's model
    tools: tuple[str, ...] | None = None  # None: the parent's tools (minus delegate)
    max_turns: int = DEFAULT_MAX_TURNS
    max_dollars: Decimal | None = None
    summary_tokens: int = DEFAULT_SUMMARY_TOKENS
    source: str = "<memory>"  # file path, or "builtin:NAME"
    origin: str = "code"  # builtin | project | claude | code
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def unknown_keys(self) -> tuple[str, ...]:
        return tuple(sorted(self.extra))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "model": self.model or "inherit",
            "tools": None if self.tools is None else list(self.tools),
            "max_turns": self.max_turns,
            "max_dollars": None if self.max_dollars is None else str(self.max_dollars),
            "summary_tokens": self.summary_tokens,
            "source": self.source,
            "origin": self.origin,
            "extra": dict(self.extra),
        }


def _key_line(lines: list[str], key: str, first: int) -> int:
    """1-based file line of `key:` in the front matter (the opening `---` is line `first`)."""
    for i, line in enumerate(lines, start=first + 1):
        if line.lstrip().startswith(f"{key}:"):
            return i
    return first


def _tool_names(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        items = [p.strip() for p in value.split(",")]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise UserError("tools must be a comma-separated string or a list of names", where=where)
    names: list[str] = []
    for item in items:
        if not item:
            continue
        # Claude Code allows patterns such as `Bash(git status:*)`; the tool is the part before.
        base = item.split("(", 1)[0].strip()
        mapped = CLAUDE_TOOL_NAMES.get(base, base)
        if mapped not in names:
            names.append(mapped)
    return tuple(names)


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"must be a whole number of at least 1, got {value!r}", where=where)
    return value


def _dollars(value: Any, where: str) -> Decimal:
    # A subagent allowed $0 could not send its first request: the limit must be above 0.
    return parse_dollars(value, where, positive=True, allow_dollar_sign=True)


def parse_definition(
    text: str, source: str = "<memory>", *, origin: str = "code"
) -> AgentDefinition:
    """Parse one agent file. Errors name `source` and the 1-based line at fault."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise UserError(
            "no YAML front matter: an agent file starts with a '---' line", where=f"{source}:1"
        )
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise UserError(
            "front matter opened on line 1 is never closed with '---'", where=f"{source}:1"
        ) from None
    fm_lines = lines[1:end]
    try:
        data = yaml.safe_load("\n".join(fm_lines))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = (mark.line + 2) if mark is not None else 2  # +1 for 1-based, +1 for the '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        # YAML notices an unclosed list or quote where the next thing breaks it; the line
        # that opened it is where the fix goes, so name that one too.
        context = getattr(exc, "context", None)
        opened = getattr(exc, "context_mark", None)
        if context and opened is not None and opened.line + 2 != line:
            problem += f" ({context} that starts on line {opened.line + 2})"
        raise UserError(f"malformed front matter: {problem}", where=f"{source}:{line}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise UserError(
            f"front matter must be a mapping of keys, got {type(data).__name__}",
            where=f"{source}:2",
        )

    def at(key: str) -> str:
        return f"{source}:{_key_line(fm_lines, key, 1)}"

    stem = Path(source).stem if source and not source.startswith("<") else "agent"
    name = data.get("name", stem)
    if not isinstance(name, str) or not name.strip():
        raise UserError("name must be a non-empty string", where=at("name"))
    description = data.get("description", "")
    if not isinstance(description, str):
        raise UserError("description must be a string", where=at("description"))
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise UserError("model must be a model id, an alias or 'inherit'", where=at("model"))
    if isinstance(model, str) and model.strip().lower() in ("", "inherit"):
        model = None
    tools = _tool_names(data["tools"], at("tools")) if data.get("tools") is not None else None

    max_turns = DEFAULT_MAX_TURNS
    max_dollars: Decimal | None = None
    summary_tokens = DEFAULT_SUMMARY_TOKENS
    extra: dict[str, Any] = {k: v for k, v in data.items() if k not in KNOWN_KEYS}
    for key in ("max_turns", "maxTurns"):
        if key in data:
            max_turns = _positive_int(data[key], at(key))
    if "max_dollars" in data:
        max_dollars = _dollars(data["max_dollars"], at("max_dollars"))
    if "summary_tokens" in data:
        summary_tokens = _positive_int(data["summary_tokens"], at("summary_tokens"))
    limits = data.get("limits")
    if limits is not None:
        if not isinstance(limits, dict):
            raise UserError(
                "limits must be a mapping (turns, dollars, summary_tokens)", where=at("limits")
            )
        where = at("limits")
        for key, value in limits.items():
            if key == "turns":
                max_turns = _positive_int(value, f"{where} (limits.turns)")
            elif key == "dollars":
                max_dollars = _dollars(value, f"{where} (limits.dollars)")
            elif key == "summary_tokens":
                summary_tokens = _positive_int(value, f"{where} (limits.summary_tokens)")
            else:
                extra[f"limits.{key}"] = value
    body = "\n".join(lines[end + 1 :]).strip()
    if not body:
        body = f"You are the {name.strip()} subagent. {description}".strip()
    return AgentDefinition(
        name=name.strip(),
        description=" ".join(description.split()),
        system=body,
        model=model.strip() if isinstance(model, str) else None,
        tools=tools,
        max_turns=max_turns,
        max_dollars=max_dollars,
        summary_tokens=summary_tokens,
        source=source,
        origin=origin,
        extra=extra,
    )


def load_definition(path: str | Path, *, origin: str = "code") -> AgentDefinition:
    """Read and parse one agent file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read agent file: {exc}", where=str(p)) from None
    return parse_definition(text, str(p), origin=origin)
