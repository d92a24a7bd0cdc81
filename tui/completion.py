"""What the prompt can complete at the cursor: a `/command` at the start of the input, or an
`@path` mention of a workspace file anywhere in it.

`context_at` finds the word being typed and `candidates` ranks what may replace it; both are
pure (the file list comes in as an argument). `workspace_files` lists the workspace's files
once per session: `git ls-files` where the workspace is a git repository (so `.gitignore` is
respected exactly), else a walk that skips hidden folders, the usual build and virtualenv
folders and the simple patterns of a top-level `.gitignore`.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .commands import COMMANDS

if TYPE_CHECKING:
    from prefixlock.coding.custom_commands import CustomCommand

MAX_FILES = 20_000  # listed per workspace: enough to complete in, bounded on a huge tree
MAX_SHOWN = 8  # candidates shown under the prompt at a time
SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", ".venv", "venv", "build", "dist", "target", ".git"}
)


@dataclass(frozen=True)
class Context:
    """The word under the cursor that a completion would replace: `text[start:end]`."""

    kind: str  # "command" | "file"
    start: int  # offset of the word's first character (the `/` or the `@`)
    end: int  # offset just after the cursor's word
    word: str  # what was typed after the `/` or `@`


@dataclass(frozen=True)
class Candidate:
    """One completion: the text that replaces the word, and a short description."""

    value: str
    help: str = ""


def context_at(text: str, offset: int) -> Context | None:
    """The completable word ending at `offset` in `text`, or None.

    A command only as the input's first word (`/mo` → `/model`); a mention wherever a word
    starts with `@` (after a space or at the start), so an e-mail address is left alone.
    """
    offset = max(0, min(offset, len(text)))
    start = offset
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = offset
    while end < len(text) and not text[end].isspace():
        end += 1
    word = text[start:offset]
    if word.startswith("/") and not word.startswith("//") and not text[:start].strip():
        return Context("command", start, end, word[1:])
    if word.startswith("@"):
        return Context("file", start, end, word[1:])
    return None


def command_candidates(word: str, custom: Sequence[Candidate] = ()) -> list[Candidate]:
    """Commands whose name starts with `word`, with their synopsis: the chat's own, then the
    project's and the user's custom commands (`custom_candidates`)."""
    w = word.lower()
    own = [
        Candidate(f"/{c.name}", f"{c.args} {c.help}".strip())
        for c in COMMANDS
        if c.name.startswith(w)
    ]
    return own + [c for c in custom if c.value[1:].lower().startswith(w)]


def custom_candidates(commands: Mapping[str, CustomCommand]) -> list[Candidate]:
    """The custom commands (`.claude/commands/*.md`, `.prefixlock/commands/*.md`, the user's)
    as completions, sorted, each with its argument hint, description and file. A name the chat
    itself uses stays the chat's (it runs first), so it is not offered twice."""
    builtin = {c.name for c in COMMANDS}
    out = []
    for name in sorted(commands):
        if name in builtin:
            continue
        c = commands[name]
        what = " ".join(p for p in (c.argument_hint, c.description) if p)
        out.append(Candidate(f"/{name}", f"{what} ({c.source})".strip()))
    return out


def file_candidates(word: str, files: Sequence[str], limit: int = MAX_SHOWN) -> list[Candidate]:
    """Workspace files matching `word`: the path starting with it first, then its file name
    starting with it, then the path containing it (case-insensitive); shorter paths first."""
    w = word.lower()
    ranked: list[tuple[int, int, str]] = []
    for path in files:
        low = path.lower()
        if low.startswith(w):
            rank = 0
        elif low.rsplit("/", 1)[-1].startswith(w):
            rank = 1
        elif w in low:
            rank = 2
        else:
            continue
        ranked.append((rank, len(path), path))
    ranked.sort()
    return [Candidate(f"@{p}") for _, _, p in ranked[:limit]]


def candidates(
    ctx: Context, files: Sequence[str], custom: Sequence[Candidate] = ()
) -> list[Candidate]:
    if ctx.kind == "command":
        return command_candidates(ctx.word, custom)[:MAX_SHOWN]
    return file_candidates(ctx.word, files)


def apply(text: str, ctx: Context, value: str) -> tuple[str, int]:
    """`text` with the context's word replaced by `value` (and a space after it); returns the
    new text and the cursor offset after the insertion."""
    tail = text[ctx.end :]
    insert = value if tail.startswith(" ") else value + " "
    return text[: ctx.start] + insert + tail, ctx.start + len(insert)


# -- listing the workspace (I/O) ----------------------------------------------------------------


def workspace_files(root: Path, limit: int = MAX_FILES) -> list[str]:
    """The workspace's files as `/`-separated relative paths, sorted, at most `limit`."""
    listed = _git_files(root)
    if listed is None:
        listed = _walk_files(root, _ignore_patterns(root), limit)
    return sorted(listed)[:limit]


def _git_files(root: Path) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files, or None when `root` is not in a git
    work tree (or git is missing or slow)."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    # --cached lists deleted-but-staged files too: only those present are worth offering.
    return [n for n in dict.fromkeys(names) if n and (root / n).is_file()]


def _ignore_patterns(root: Path) -> list[str]:
    try:
        text = (root / ".gitignore").read_text("utf-8", errors="replace")
    except OSError:
        return []
    lines = (line.strip() for line in text.splitlines())
    # Negations and anchored sub-paths need git's own matcher: left out (git ls-files covers
    # every git repository; this is only for plain folders).
    return [line.strip("/") for line in lines if line and not line.startswith(("#", "!"))]


def _ignored(name: str, rel: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) for p in patterns)


def _walk_files(root: Path, patterns: list[str], limit: int) -> list[str]:
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(folder, root)
        prefix = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIP_DIRS
            and not _ignored(d, prefix + d, patterns)
        )
        for f in sorted(files):
            if not _ignored(f, prefix + f, patterns):
                out.append(prefix + f)
                if len(out) >= limit:
                    return out
    return out
