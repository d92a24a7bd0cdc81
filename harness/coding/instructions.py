"""The instruction files the chat and `prefixlock run` put in the prompt, found as Claude Code
finds its memory files: the user's own (`~/.claude/CLAUDE.md`), those of the folders above the
workspace, the workspace's (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md,
CONVENTIONS.md), the files they `@import`, and nested ones in subfolders.

Read once at session start into one block of the frozen prefix; an edit mid-session does not
change the cached prefix behind the user's back (`/init` and the chat's reload say what changed).
A nested file (`src/api/CLAUDE.md`) would change the prefix if it joined it when first needed,
so it goes where Claude Code's lazy loading would put it without breaking the cache: appended to
the first `read_file` result under its folder (`NestedInstructions`).

Each file is opened without following a symlink out of its folder and without blocking on a
FIFO: an `AGENTS.md -> ~/.ssh/id_ed25519` link must not send a key to the provider. An import
must stay inside the tree of the file that imports it (the workspace for the project's files,
the home folder for the user's): a repository's `@~/.aws/credentials` is refused and said so.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

# The workspace's files, read into the frozen prefix at session start, in this order.
INSTRUCTION_FILES = (
    "AGENTS.md",
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "CLAUDE.local.md",
    "CONVENTIONS.md",
)
# The user's own, read first (Claude Code's user memory).
USER_FILES = (".claude/CLAUDE.md",)
# Of the folders above the workspace and of nested folders (Claude Code's recursive lookup).
FOLDER_FILES = ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md")
INSTRUCTION_LIMIT = 64_000  # bytes per file: a huge one is cut (and says so), not sent whole
IMPORT_DEPTH = 5  # Claude Code follows at most five hops of @imports
HEADING = "# Project instructions from "  # + the file's label: one section per file
_HEADINGS = re.compile(
    r"^# (?:Project|User|Parent folder|Imported) instructions from (.+)$", re.MULTILINE
)
# `@path` outside code: a path with a slash or a file suffix, not an e-mail's or a decorator's @.
_IMPORT = re.compile(r"(?<![\w@`])@((?:~/|\.{1,2}/|/)?[\w.\-]+(?:/[\w.\-]+)*)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"`[^`\n]*`")


def _read_inside(path: Path, boundary: Path) -> bytes | None:
    """Up to INSTRUCTION_LIMIT + 1 bytes of `path` if it is a regular file that resolves
    inside `boundary`; None otherwise (absent, a folder, a FIFO, a link leading out)."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(boundary.resolve()):
        return None
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read(INSTRUCTION_LIMIT + 1)


def _text(data: bytes, label: str) -> str:
    text = data[:INSTRUCTION_LIMIT].decode("utf-8", "replace").strip()
    if len(data) > INSTRUCTION_LIMIT:
        text += f"\n[{label} cut at {INSTRUCTION_LIMIT:,} bytes]"
    return text


def import_targets(text: str) -> list[str]:
    """The `@path` imports of a file's text, in order, leaving out code blocks and code spans
    (where Claude Code does not evaluate them either)."""
    prose = _SPAN.sub("", _FENCE.sub("", text))
    found: list[str] = []
    for m in _IMPORT.finditer(prose):
        target = m.group(1).rstrip(".")
        if ("/" in target or "." in target) and target not in found:
            found.append(target)
    return found


@dataclass
class _Reader:
    """Reads files and their imports once each, as sections under their headings."""

    home: Path | None
    seen: set[Path] = field(default_factory=set)
    sections: list[str] = field(default_factory=list)

    def add(self, kind: str, path: Path, label: str, boundary: Path, depth: int = 0) -> None:
        data = _read_inside(path, boundary)
        if data is None:
            return
        real = path.resolve()
        if real in self.seen:
            return
        self.seen.add(real)
        text = _text(data, label)
        if not text:
            return
        self.sections.append(f"# {kind} instructions from {label}\n\n{text}")
        for target in import_targets(text):
            self._import(target, path.parent, label, boundary, depth + 1)

    def _import(self, target: str, folder: Path, by: str, boundary: Path, depth: int) -> None:
        if target.startswith("~/"):
            if self.home is None:
                return
            path = self.home / target[2:]
        else:
            path = folder / target
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return  # not a file: an npm scope, a handle, prose; left as written
        if not real.is_file():
            return
        label = f"{target} (imported by {by})"
        if not real.is_relative_to(boundary.resolve()):
            self.sections.append(
                f"# Imported instructions from {label}\n\n[not imported: {target} is outside "
                f"{_shown(boundary, self.home)}, where an import from {by} must stay]"
            )
            return
        if depth > IMPORT_DEPTH:
            self.sections.append(
                f"# Imported instructions from {label}\n\n[not imported: more than "
                f"{IMPORT_DEPTH} hops of @imports]"
            )
            return
        self.add("Imported", path, label, boundary, depth)


def _shown(path: Path, home: Path | None) -> str:
    if home is not None and path.resolve().is_relative_to(home.resolve()):
        rest = path.resolve().relative_to(home.resolve())
        return "~" if str(rest) == "." else f"~/{rest}"
    return str(path)


def project_instructions(root: Path, home: Path | None = None) -> str:
    """The instruction files for a workspace, each under a heading naming it; "" when there
    are none. In Claude Code's order: the user's (`home`, when given), the folders above the
    workspace from the top down (up to, not including, the home folder and `/`), then the
    workspace's own; each file's `@imports` follow it."""
    reader = _Reader(home)
    if home is not None:
        for name in USER_FILES:
            reader.add("User", home / name, f"~/{name}", home)
    for folder in reversed(_parents(root, home)):
        for name in FOLDER_FILES:
            label = str(Path(os.path.relpath(folder, root)) / name)
            reader.add("Parent folder", folder / name, label, folder)
    for name in INSTRUCTION_FILES:
        reader.add("Project", root / name, name, root)
    return "\n\n".join(reader.sections)


def _parents(root: Path, home: Path | None) -> list[Path]:
    """The folders above `root`, nearest first, stopping before the home folder and `/`."""
    stop = {Path("/")}
    if home is not None:
        stop.add(home.resolve())
    found = []
    for folder in root.resolve().parents:
        if folder in stop:
            break
        found.append(folder)
    return found


class NestedInstructions:
    """The instruction files of the workspace's subfolders (`src/api/CLAUDE.md`), each given
    once: with the first `read_file` of a file under its folder, appended to that result."""

    def __init__(self, root: Path) -> None:
        self.root: Path = root.resolve()
        self.given: set[Path] = set()

    def for_read(self, path: str) -> str:
        """The text to append to a read of `path` (workspace-relative): the nested files of
        its folders not given yet, outermost first; "" when there are none."""
        try:
            target = (self.root / path).resolve()
        except (OSError, RuntimeError):
            return ""
        if not target.is_relative_to(self.root):
            return ""
        folders = [f for f in target.parents if f != self.root and f.is_relative_to(self.root)]
        notes: list[str] = []
        for folder in reversed(folders):
            for name in FOLDER_FILES:
                file = folder / name
                if file in self.given:
                    continue
                data = _read_inside(file, self.root)
                if data is None:
                    continue
                self.given.add(file)
                label = str(file.relative_to(self.root))
                text = _text(data, label)
                if text:
                    notes.append(f"[Instructions for this folder, from {label}]\n{text}")
        return "\n\n".join(notes)


def changed_instruction_files(old: str, new: str) -> list[str]:
    """The files whose section differs between two `project_instructions` texts (the text as
    a whole when no section tells)."""

    def sections(text: str) -> dict[str, str]:
        found: dict[str, str] = {}
        marks = list(_HEADINGS.finditer(text))
        for i, m in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            found[m.group(1).strip()] = text[m.end() : end]
        return found

    before, after = sections(old), sections(new)
    names = list(dict.fromkeys([*before, *after]))
    return [n for n in names if before.get(n) != after.get(n)] or ["instructions"]
