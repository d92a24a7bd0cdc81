"""Custom slash commands: Markdown files in `.claude/commands/` and `.prefixlock/commands/`.

`.prefixlock/commands/review.md` is `/review`; a file in a subfolder, `git/commit.md`, is
`/git:commit`. An optional YAML front matter gives `description` (shown in /help) and
`argument-hint`; other keys (Claude Code's `allowed-tools`, `model`) are kept out of the
message and ignored here. The body is the message: `$ARGUMENTS` becomes everything typed
after the command, `$1`..`$9` its words; with neither, the arguments go after the body.
The expansion is sent as the user's message, never into the prefix, so a command costs no
cache. Project files win over user-level ones (`~/.claude/commands`, `~/.prefixlock/commands`),
`.prefixlock` over `.claude`; a built-in command's name cannot be taken.

The chat expands a typed `/name args` (`expand_line`); `prefixlock run "/review src/x.py"`
expands its task the same way (`expand_task`, which also refuses a `/name` no file defines).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import ConfigError

COMMAND_DIRS = (Path(".claude") / "commands", Path(".prefixlock") / "commands")
FILE_LIMIT = 256_000  # bytes: a command file is a prompt, not a data set
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*(?::[a-z0-9][a-z0-9_.-]*)*$")
_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    description: str
    argument_hint: str
    body: str
    source: str

    def expand(self, arguments: str) -> str:
        """The message this command sends with `arguments` (what was typed after it)."""
        words = arguments.split()
        uses_args = "$ARGUMENTS" in self.body or _POSITIONAL.search(self.body) is not None
        text = self.body.replace("$ARGUMENTS", arguments)
        text = _POSITIONAL.sub(
            lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text
        )
        if arguments and not uses_args:
            text = f"{text}\n\n{arguments}"
        return text.strip()


def load_commands(
    workspace: Path, user_dir: Path | None = None, *, reserved: Iterable[str] = ()
) -> tuple[dict[str, CustomCommand], list[str]]:
    """(commands by name, notes) from every command folder; a malformed file raises
    ConfigError naming it. Notes say which files were shadowed or skipped."""
    roots = [user_dir] if user_dir is not None else []
    roots.append(workspace)
    found: dict[str, CustomCommand] = {}
    notes: list[str] = []
    taken = set(reserved)
    for root in roots:
        for rel in COMMAND_DIRS:
            folder = root / rel
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*.md")):
                if not path.is_file():
                    continue
                parts = path.relative_to(folder).with_suffix("").parts
                name = ":".join(p.lower() for p in parts)
                if not _NAME.match(name):
                    notes.append(f"{path}: skipped (a command name is letters, digits, . _ -)")
                    continue
                if name in taken:
                    notes.append(f"{path}: /{name} is a built-in command; file ignored")
                    continue
                found[name] = parse_command(name, _read(path), str(path))
    return found, notes


def expand_line(line: str, commands: Mapping[str, CustomCommand]) -> str | None:
    """The message a line invoking a custom command (`/name arguments`) sends, or None when
    the line invokes none of `commands`."""
    stripped = line.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    words = stripped[1:].split(None, 1)
    command = commands.get(words[0].lower()) if words else None
    if command is None:
        return None
    return command.expand(words[1] if len(words) > 1 else "")


def expand_task(task: str, commands: Mapping[str, CustomCommand]) -> str:
    """A headless task: `/name args` becomes the command's message, `//text` the text
    `/text`; a `/name` that no command file defines is a ConfigError (a typo must not reach
    the model as a task). A leading `/` before a path (`/tmp/x ...`) is left as it is."""
    stripped = task.strip()
    if stripped.startswith("//"):
        return stripped[1:]
    expanded = expand_line(stripped, commands)
    if expanded is not None:
        return expanded
    head = stripped[1:].split(None, 1)[0].lower() if stripped[1:].strip() else ""
    if stripped.startswith("/") and _NAME.match(head):
        known = ", ".join(f"/{n}" for n in sorted(commands)) or "none"
        raise ConfigError(
            f"no custom command /{head} in {' or '.join(str(d) for d in COMMAND_DIRS)} "
            f"(found: {known}); '//' sends a task that starts with '/'",
            where="task",
        )
    return task


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            data = fh.read(FILE_LIMIT + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read command file: {exc.strerror}", where=str(path)) from None
    if len(data) > FILE_LIMIT:
        raise ConfigError(f"a command file over {FILE_LIMIT:,} bytes", where=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", where=str(path)) from None


def parse_command(name: str, text: str, source: str) -> CustomCommand:
    """One command file: optional front matter between `---` lines, then the body."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    meta: dict[str, object] = {}
    body = text
    if lines and lines[0].strip() == "---":
        close = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if close is None:
            raise ConfigError(
                "front matter opened on line 1 is never closed with '---'", where=f"{source}:1"
            )
        try:
            loaded = yaml.safe_load("\n".join(lines[1:close]))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 2 if mark is not None else 2
            problem = getattr(exc, "problem", None) or "not YAML"
            raise ConfigError(
                f"malformed front matter: {problem}", where=f"{source}:{line}"
            ) from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError("front matter must be a mapping of keys", where=f"{source}:2")
        meta = loaded or {}
        body = "\n".join(lines[close + 1 :])
    description = meta.get("description", "")
    if not isinstance(description, str):
        raise ConfigError("description must be text", where=f"{source}: description")
    hint = meta.get("argument-hint", "")
    if not isinstance(hint, str):
        hint = " ".join(str(h) for h in hint) if isinstance(hint, list) else str(hint)
    body = body.strip()
    if not body:
        raise ConfigError("the command has no text to send", where=source)
    if not description:
        description = body.splitlines()[0][:60]
    return CustomCommand(name, description.strip(), hint.strip(), body, source)
