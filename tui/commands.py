"""Slash commands and key bindings of the chat app, as plain data and a pure parser.

The app, the command palette and the help screen all read `COMMANDS` and `KEYS`, so a command
or key cannot exist without being listed in the help.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandSpec:
    """One slash command: its name, argument synopsis and one line of help."""

    name: str
    args: str
    help: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("model", "[MODEL]", "model picker, or quote a switch to MODEL"),
    CommandSpec("agents", "[NAME TASK]", "list subagents, or run TASK in one"),
    CommandSpec("compact", "", "quote compacting the history, then compact"),
    CommandSpec("cost", "", "dollars: main, subagents, saved by the cache"),
    CommandSpec("sessions", "", "list stored sessions"),
    CommandSpec("resume", "ID", "resume a stored session (reads its cache)"),
    CommandSpec("new", "", "start a new session on the same prefix (its cache stays warm)"),
    CommandSpec("keepalive", "on|off", "keep the cache warm while idle"),
    CommandSpec("lint", "", "run the policy linter on the prefix"),
    CommandSpec("allow", "write|run", "stop asking before writes or commands"),
    CommandSpec("undo", "[force]", "put back the files the last turn wrote"),
    CommandSpec("init", "", "draft an AGENTS.md from the workspace, show it, write it"),
    CommandSpec("permissions", "[MODE]", "show the permission rules, or set the mode"),
    CommandSpec(
        "mcp", "[restart NAME]", "list the MCP servers (running, failed, not approved); restart one"
    ),
    CommandSpec("effort", "[LEVEL]", "reasoning effort (priced first): minimal..max|default"),
    CommandSpec("clear", "", "clear the view (the session is unchanged)"),
    CommandSpec("help", "", "show every command and key"),
    CommandSpec("quit", "", "save and quit"),
)

#: (key, what it does) for the help screen; the app's BINDINGS use the same keys.
KEYS: tuple[tuple[str, str], ...] = (
    ("enter", "send the message / run the command"),
    ("shift+enter / ctrl+j", "new line in the message (a paste keeps its lines)"),
    ("up / down (in the prompt)", "earlier messages (first / last line)"),
    ("/ or @ then tab", "complete a command or a workspace file"),
    ("ctrl+p", "command palette"),
    ("f1", "help (this screen)"),
    ("ctrl+o", "model picker (/model)"),
    ("ctrl+r", "expand or fold every tool call"),
    ("ctrl+l", "clear the conversation view"),
    ("ctrl+g", "edit the prompt in $VISUAL / $EDITOR"),
    ("f2", "toggle keep-alive"),
    ("ctrl+t", "toggle light / dark theme"),
    ("tab / shift+tab", "move focus"),
    ("pageup / pagedown", "page through the conversation (and its history)"),
    ("up / down", "scroll the conversation (when focused)"),
    ("y / a / n", "approve: yes once / always this session / no"),
    ("s / d / c", "/model dialog: switch / subagent / cancel"),
    ("escape / ctrl+c", "close a dialog, or cancel the running turn"),
    ("ctrl+q", "save and quit"),
)

_BY_NAME = {c.name: c for c in COMMANDS}


@dataclass(frozen=True)
class Parsed:
    """A parsed input line: a command with its argument words, or plain text for the model."""

    command: str | None  # None: a message for the model
    args: tuple[str, ...] = ()
    text: str = ""
    error: str | None = None  # an unknown command or a bad argument, said to the user


def parse(line: str, custom: Collection[str] = ()) -> Parsed:
    """Split an input line into a slash command or a message.

    `//text` sends `/text` to the model, so a message can start with a slash. `custom` names
    the custom commands (command files): parsed as commands, expanded by the app.
    """
    stripped = line.strip()
    if not stripped.startswith("/"):
        return Parsed(None, text=stripped)
    if stripped.startswith("//"):
        return Parsed(None, text=stripped[1:])
    words = stripped[1:].split()
    if not words:
        return Parsed(None, error="an empty command; /help lists them")
    name, args = words[0].lower(), tuple(words[1:])
    if name in custom and name not in _BY_NAME:
        return Parsed(name, args, stripped)
    if name not in _BY_NAME:
        close = [c.name for c in COMMANDS if c.name.startswith(name[:2])]
        hint = f" (did you mean /{close[0]}?)" if close else ""
        return Parsed(
            name, args, stripped, error=f"unknown command /{name}{hint}; /help lists them"
        )
    if name == "keepalive" and (len(args) > 1 or (args and args[0] not in ("on", "off"))):
        return Parsed(name, args, stripped, error="usage: /keepalive on|off")
    if name == "resume" and len(args) != 1:
        return Parsed(name, args, stripped, error="usage: /resume ID (see /sessions)")
    if name == "allow" and (len(args) != 1 or args[0] not in ("write", "run")):
        return Parsed(name, args, stripped, error="usage: /allow write|run")
    if name == "undo" and args not in ((), ("force",)):
        return Parsed(name, args, stripped, error="usage: /undo [force]")
    # The settings' words, imported only here: the prompt parses lines before the SDK loads.
    from prefixlock.coding.settings_files import EFFORTS, MODES

    if name == "permissions" and (len(args) > 1 or (args and args[0] not in MODES)):
        return Parsed(name, args, stripped, error=f"usage: /permissions [{'|'.join(MODES)}]")
    if name == "effort" and (len(args) > 1 or (args and args[0] not in (*EFFORTS, "default"))):
        return Parsed(name, args, stripped, error=f"usage: /effort [{'|'.join(EFFORTS)}|default]")
    if name == "mcp" and args and (len(args) != 2 or args[0].lower() != "restart"):
        return Parsed(name, args, stripped, error="usage: /mcp [restart NAME]")
    if name == "model" and len(args) > 1:
        return Parsed(name, args, stripped, error="usage: /model [MODEL]")
    return Parsed(name, args, stripped)


def complete(prefix: str) -> list[str]:
    """Commands whose name starts with what was typed after the slash."""
    if not prefix.startswith("/"):
        return []
    word = prefix[1:].lower()
    return [f"/{c.name}" for c in COMMANDS if c.name.startswith(word)]
