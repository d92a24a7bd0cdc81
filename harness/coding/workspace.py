"""Workspace-confined coding tools: read, list, glob, grep, edit, write and run a command.

Every path the model names is resolved against the workspace root with symlinks followed, and
anything that lands outside the root is refused with a `WorkspaceError` whose message the model
sees (the agent loop turns a raising tool into an `is_error` tool result). Writes, edits and
commands ask an async approval callback first unless the user allowed that action for the
session:

    ws = Workspace(root, approve=ask_user, allow={"write"})
    prefix = FrozenPrefix(system=..., tools=ws.tools())        # or ws.read_only_tools()

The tool names, descriptions and schemas never mention the root or anything else that varies
between machines or runs, so the tool segment of the prefix stays byte-identical (and cached).
"""

from __future__ import annotations

import contextlib
import difflib
import fnmatch
import json
import os
import re
import secrets
import selectors
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from ..errors import PrefixlockError
from .instructions import NestedInstructions
from .sandbox_policy import is_protected

if TYPE_CHECKING:
    from ..tools import Tool
    from .sandbox import Sandbox, SandboxMode, SandboxOptions

Action = Literal["write", "run"]
#: What an approval callback answers: True/"once" = go ahead this time, "session" = go ahead and
#: stop asking for this action, False/"deny" = refuse.
Decision = bool | Literal["once", "session", "deny"]
Approver = Callable[["ApprovalRequest"], Awaitable[Decision]]

ACTIONS: tuple[Action, ...] = ("write", "run")

# Directories that are never worth the model's tokens and can be enormous.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        ".venv",
        "venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
    }
)


class WorkspaceError(PrefixlockError):
    """A tool request the workspace refuses (outside the root, declined, not found...).

    Its message is written for the model: it says what was refused and why.
    """


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user is asked before a write, an edit or a command runs."""

    action: Action
    tool: str  # the tool's name: write_file | edit_file | run_command
    summary: str  # one line: "edit src/app.py (+3 -1)" / "run: pytest -q"
    detail: str  # the unified diff of the change, or the command line
    path: str | None = None  # workspace-relative path for writes and edits


@dataclass(frozen=True)
class CommandResult:
    """The outcome of `Workspace.run` before it is rendered for the model."""

    command: str
    exit_code: int | None  # None: killed on timeout
    output: str
    timed_out: bool
    truncated: bool
    killed_for: str = ""  # why it was stopped early, other than the timeout (the process cap)

    def render(self) -> str:
        status = "timed out (killed)" if self.timed_out else f"exit code {self.exit_code}"
        if self.killed_for:
            status = f"killed: {self.killed_for}"
        body = self.output if self.output else "(no output)"
        return f"$ {self.command}\n{body}\n[{status}]"


# Open-time checks: never follow a symlink, never block on a FIFO (refused after fstat).
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

# grep's child process: the module is named on its command line (it is prefixlock.coding.workspace
# once installed); it runs `_grep_rows` and writes each event as a JSON line.
_GREP_CHILD = "import sys, importlib; importlib.import_module(sys.argv[1])._grep_child()"
# Seconds past `grep_seconds` before the child is killed (its start-up, and its own stop).
GREP_KILL_GRACE = 1.0

# Lines are read at most this many bytes at a time (a longer line is searched in pieces), and
# shown at most MAX_LINE characters: a one-line 100 MB file never sits in memory whole.
MAX_LINE_BYTES = 1 << 20
MAX_LINE = 2000


def _lines(fh: IO[bytes]) -> Iterator[bytes]:
    """A binary file's lines, each at most MAX_LINE_BYTES long."""
    while True:
        line = fh.readline(MAX_LINE_BYTES)
        if not line:
            return
        yield line


_SURROGATE = re.compile("[\ud800-\udfff]")


def _shown(text: str) -> str:
    """Text decoded with surrogateescape as a person reads it: undecodable bytes as `\\xe9`."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _writable(text: str, what: str) -> None:
    """Refuse text a file cannot hold: a lone surrogate has no UTF-8 bytes (and would be
    written as a raw byte by surrogateescape, which the model never meant)."""
    if _SURROGATE.search(text):
        raise WorkspaceError(
            f"{what} holds a lone surrogate (U+D800..U+DFFF) and cannot be written as UTF-8"
        )


def _cap(text: str, limit: int) -> tuple[str, bool]:
    """Keep the head and the tail of an over-long text; say how much was cut."""
    if len(text) <= limit:
        return text, False
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut ...]\n{text[-tail:]}", True


def _glob_ok(f: Path, rel: str, glob: str | None) -> bool:
    """grep's `glob` filter: the file's name or its workspace-relative path matches."""
    return not glob or fnmatch.fnmatchcase(f.name, glob) or fnmatch.fnmatchcase(rel, glob)


def _left_out(rules: list[str], one: str, many: str) -> str:
    """The note a folder-wide tool adds when read rules kept paths out of its answer."""
    if not rules:
        return ""
    n = len(rules)
    return f"\n[{n} {one if n == 1 else many} left out (denied by {', '.join(sorted(set(rules)))})]"


def unified_diff(path: str, before: str, after: str, *, context: int = 3) -> str:
    """A unified diff of one file, paths shown as a/<path> and b/<path>."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}" if before or path else "/dev/null",
        tofile=f"b/{path}",
        n=context,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_stats(diff: str) -> tuple[int, int]:
    """(+added, -removed) line counts of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


class Workspace:
    """Coding tools confined to one directory tree.

    `approve` is awaited before each write, edit or command unless its action is in `allow`
    (the actions the user allowed for the session); with no callback, an action not allowed is
    refused. `run_timeout` bounds a command's seconds; `output_limit` caps the characters any
    tool returns. `sandbox` confines commands (see prefixlock.coding.sandbox): "bwrap" by default,
    refused where bubblewrap cannot run; "off" only when the user chooses it.
    `read_denied` maps a workspace-relative path to the deny rule that keeps it from being
    read (or None): read_file and grep on it are refused, and list_dir, glob and grep over a
    folder leave it out and say how many they left out.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        approve: Approver | None = None,
        allow: Iterable[Action] = (),
        run_timeout: float = 60.0,
        output_limit: int = 30_000,
        max_read_bytes: int = 2_000_000,
        grep_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        grep_process: bool = True,
        read_denied: Callable[[str], str | None] | None = None,
        sandbox: SandboxOptions | SandboxMode = "bwrap",
    ) -> None:
        resolved = Path(root).expanduser().resolve()
        if not resolved.is_dir():
            raise WorkspaceError(f"workspace root {str(root)!r} is not a directory")
        self.root = resolved
        self.nested: NestedInstructions = NestedInstructions(resolved)
        self.approve = approve
        self.allowed: set[Action] = set()
        for action in allow:
            self.allow(action)
        self.run_timeout = run_timeout
        self.output_limit = output_limit
        self.max_read_bytes = max_read_bytes  # whole-file reads (edits); larger: streamed
        self.grep_seconds = grep_seconds  # one grep's wall-clock budget, checked per line
        self.clock = clock
        self.grep_process = grep_process  # match in a child process killed past the budget
        # The settings' read deny rules (`Read(.env)`): workspace-relative path -> the rule
        # that denies reading it, or None. Folder-wide tools leave such paths out and say so.
        self.read_denied = read_denied
        self._sandbox_choice = sandbox
        self._sandbox: Sandbox | None = None

    @property
    def sandbox(self) -> Sandbox:
        """How commands run (made on first use: grep's child process never needs it)."""
        if self._sandbox is None:
            from .sandbox import Sandbox, SandboxOptions

            choice = self._sandbox_choice
            options = SandboxOptions(mode=choice) if isinstance(choice, str) else choice
            self._sandbox = Sandbox(self.root, options)
        return self._sandbox

    # -- policy -------------------------------------------------------------------------------

    def allow(self, action: Action) -> None:
        """Stop asking before `action` for the rest of the session."""
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; expected one of {ACTIONS}")
        self.allowed.add(action)

    def revoke(self, action: Action) -> None:
        """Ask again before `action`."""
        self.allowed.discard(action)

    async def _ask(self, request: ApprovalRequest) -> None:
        # A write to git metadata or a tool's settings (a hook, an MCP server) would run on
        # the host later: asked every time, whatever was allowed for the session.
        guarded = request.action == "write" and is_protected(request.path or "")
        if request.action in self.allowed and not guarded:
            return
        if self.approve is None:
            raise WorkspaceError(
                f"{request.summary}: refused; the user has not allowed "
                f"{'writing files' if request.action == 'write' else 'running commands'}"
                " in this session"
                + (" (git metadata and tool settings are asked every time)" if guarded else "")
            )
        decision = await self.approve(request)
        if decision == "session":
            if not guarded:
                self.allow(request.action)
        elif decision is True or decision == "once":
            return
        else:
            raise WorkspaceError(f"{request.summary}: the user declined; nothing was changed")

    # -- paths --------------------------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """The real path of `path` (relative to the root, or absolute), refused outside the root.

        Symlinks are followed, so a link inside the workspace pointing out of it is refused.
        """
        if not isinstance(path, str) or not path.strip():
            raise WorkspaceError("a path is required")
        if "\x00" in path:
            raise WorkspaceError(f"path {path!r} contains a NUL byte")
        try:
            raw = Path(path).expanduser()
        except RuntimeError:  # "~nosuchuser/x": no such user to expand
            raise WorkspaceError(
                f"path {path!r} names a home folder that does not exist; give a path under "
                "the workspace"
            ) from None
        candidate = raw if raw.is_absolute() else self.root / raw
        try:
            real = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
            raise WorkspaceError(f"path {path!r} cannot be resolved: {exc}") from None
        if real != self.root and not real.is_relative_to(self.root):
            raise WorkspaceError(
                f"path {path!r} is outside the workspace; only files under the workspace root "
                "can be used"
            )
        return real

    def relative(self, real: Path) -> str:
        """A resolved path as the model should see it: relative to the root, '/'-separated."""
        rel = real.relative_to(self.root).as_posix()
        return rel or "."

    def _inside(self, p: Path) -> bool:
        try:
            real = p.resolve(strict=False)
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
            return False
        return real == self.root or real.is_relative_to(self.root)

    def _denied(self, rel: str) -> str | None:
        return self.read_denied(rel) if self.read_denied is not None else None

    def _refuse_denied(self, real: Path, shown: str) -> None:
        if rule := self._denied(self.relative(real)):
            raise WorkspaceError(f"{shown}: reading it is denied by {rule}")

    def _walk(self, start: Path, shown: str, hidden: list[str] | None = None) -> Iterator[Path]:
        """Files under the directory `start` (resolved, inside the root), sorted, skipping
        SKIP_DIRS and links resolving outside. Every directory is listed from a descriptor
        opened from its parent's without following links (`start` from the root's): one
        swapped for a link mid-walk is skipped, so no name from outside is ever listed.
        A directory a read rule denies is not entered; its rule goes to `hidden`."""
        yield from self._walk_fd(self._open_dir(start, shown), start, hidden)

    def _walk_fd(self, fd: int, base: Path, hidden: list[str] | None) -> Iterator[Path]:
        try:
            with os.scandir(fd) as listing:
                entries = sorted(listing, key=lambda e: e.name)
            subdirs = []
            for entry in entries:
                with contextlib.suppress(OSError):  # gone since the listing
                    if entry.is_dir(follow_symlinks=False):
                        rule = self._denied(self.relative(base / entry.name))
                        if rule and hidden is not None:
                            hidden.append(rule)
                        elif entry.name not in SKIP_DIRS:
                            subdirs.append(entry.name)
                    elif not entry.is_symlink() or self._inside(base / entry.name):
                        yield base / entry.name
            for name in subdirs:
                try:
                    sub = os.open(name, _DIR_FLAGS | os.O_NONBLOCK, dir_fd=fd)
                except OSError:
                    continue  # gone, or swapped for a link or a file since the listing
                yield from self._walk_fd(sub, base / name, hidden)
        finally:
            os.close(fd)

    def _open_dir(self, real_dir: Path, shown: str, *, create: bool = False) -> int:
        """A descriptor of a directory already resolved inside the root, opened one component
        at a time from the root with O_NOFOLLOW: a component swapped for a symlink since the
        path was checked is refused instead of followed out of the workspace."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for part in real_dir.relative_to(self.root).parts:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    raise WorkspaceError(f"{shown}: no such file or directory") from None
                except OSError as exc:  # ELOOP / ENOTDIR: a symlink or a file took its place
                    raise WorkspaceError(
                        f"{shown}: {part!r} changed while in use (now a link or not a directory); "
                        "refused"
                    ) from exc
                os.close(fd)
                fd = nxt
            return fd
        except BaseException:
            os.close(fd)
            raise

    def _open_regular(self, real: Path, shown: str) -> int:
        """A read descriptor of the regular file `real` (resolved, inside the root), checked at
        open time: no symlink on the way, and no FIFO, socket or device (opened without
        blocking, then refused), so a swap after the path check cannot escape or hang."""
        if real == self.root:
            raise WorkspaceError(f"{shown}: is a directory; use list_dir")
        if not real.is_relative_to(self.root):
            raise WorkspaceError(f"{shown}: is outside the workspace")
        dirfd = self._open_dir(real.parent, shown)
        try:
            fd = os.open(real.name, _FILE_FLAGS, dir_fd=dirfd)
        except FileNotFoundError:
            raise WorkspaceError(f"{shown}: no such file") from None
        except IsADirectoryError:
            raise WorkspaceError(f"{shown}: is a directory; use list_dir") from None
        except OSError as exc:
            raise WorkspaceError(
                f"{shown}: cannot open ({exc.strerror}; a link swapped in is refused)"
            ) from exc
        finally:
            os.close(dirfd)
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            if stat.S_ISDIR(mode):
                raise WorkspaceError(f"{shown}: is a directory; use list_dir")
            raise WorkspaceError(f"{shown}: not a regular file (a FIFO, socket or device)")
        os.set_blocking(fd, True)
        return fd

    def _read_text(self, real: Path, shown: str, *, exact: bool = False) -> str:
        """The file as text. `exact` (edits): undecodable bytes kept as surrogate escapes, so
        writing the text back gives the same bytes; otherwise shown as U+FFFD."""
        with os.fdopen(self._open_regular(real, shown), "rb") as fh:
            return self._load(fh, shown, exact=exact)

    def _load(self, fh: IO[bytes], shown: str, *, exact: bool) -> str:
        size = os.fstat(fh.fileno()).st_size
        if size > self.max_read_bytes:
            raise WorkspaceError(
                f"{shown}: {size} bytes is more than the {self.max_read_bytes}-byte limit"
            )
        data = fh.read(self.max_read_bytes + 1)
        if len(data) > self.max_read_bytes:  # it grew since the size check
            raise WorkspaceError(f"{shown}: more than the {self.max_read_bytes}-byte limit")
        if b"\x00" in data[:8192]:
            raise WorkspaceError(f"{shown}: binary file, not shown")
        return data.decode("utf-8", errors="surrogateescape" if exact else "replace")

    # -- read-only tools ------------------------------------------------------------------------

    def read(self, path: str, offset: int = 1, limit: int = 2000) -> str:
        """Lines `offset`..`offset+limit-1` of a text file, each prefixed with its number.
        A file over `max_read_bytes` is streamed: only the lines asked for are kept."""
        if offset < 1:
            raise WorkspaceError("offset counts from 1")
        real = self.resolve(path)
        self._refuse_denied(real, path)
        # One descriptor, checked at open time, for the size test and the read alike.
        with os.fdopen(self._open_regular(real, path), "rb") as fh:
            if os.fstat(fh.fileno()).st_size > self.max_read_bytes:
                return self._read_large(fh, path, offset, limit)
            text = self._load(fh, path, exact=False)
        lines = text.splitlines()
        chosen = lines[offset - 1 : offset - 1 + max(limit, 0)]
        width = len(str(offset + len(chosen)))
        body = "\n".join(f"{n:>{width}}\t{line}" for n, line in enumerate(chosen, offset))
        more = len(lines) - (offset - 1 + len(chosen))
        if more > 0:
            body += f"\n[{more} more lines; read again with offset={offset + len(chosen)}]"
        if not lines:
            body = "(empty file)"
        return _cap(body, self.output_limit)[0]

    def _read_large(self, fh: IO[bytes], shown: str, offset: int, limit: int) -> str:
        """`read` of a file too big to load: lines streamed, those before `offset` skipped,
        `limit` kept (each cut at MAX_LINE characters), the rest not counted."""
        chosen: list[str] = []
        more = False
        if b"\x00" in fh.read(8192):
            raise WorkspaceError(f"{shown}: binary file, not shown")
        fh.seek(0)
        for n, raw in enumerate(_lines(fh), 1):
            if n < offset:
                continue
            if len(chosen) >= max(limit, 0):
                more = True
                break
            chosen.append(raw.decode("utf-8", "replace").rstrip("\r\n")[:MAX_LINE])
        size = os.fstat(fh.fileno()).st_size
        if not chosen:
            return f"{shown}: {size} bytes; no lines from offset {offset} (the file is shorter)"
        width = len(str(offset + len(chosen)))
        body = "\n".join(f"{n:>{width}}\t{line}" for n, line in enumerate(chosen, offset))
        if more:
            body += (
                f"\n[{size:,}-byte file: more lines follow; read again with "
                f"offset={offset + len(chosen)}]"
            )
        return _cap(body, self.output_limit)[0]

    def list_dir(self, path: str = ".") -> str:
        """The entries of a directory, sorted, directories marked with a trailing '/'."""
        real = self.resolve(path)
        if not real.is_dir():
            raise WorkspaceError(f"{path}: not a directory")
        # Listed through a descriptor opened from the root without following links: a
        # directory swapped for a link since the check is refused, not listed.
        fd = self._open_dir(real, path)
        try:
            with os.scandir(fd) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        finally:
            os.close(fd)
        rows: list[str] = []
        hidden: list[str] = []
        for entry in entries:
            if rule := self._denied(self.relative(real / entry.name)):
                hidden.append(rule)
                continue
            try:
                if entry.is_symlink() and not self._inside(real / entry.name):
                    rows.append(f"{entry.name} -> (outside the workspace)")
                elif entry.is_dir():
                    rows.append(entry.name + "/")
                else:
                    rows.append(entry.name)
            except OSError:
                continue  # gone since the listing
        shown = _cap("\n".join(rows) or "(empty directory)", self.output_limit)[0]
        return shown + _left_out(hidden, "entry", "entries")

    def glob(self, pattern: str, path: str = ".") -> str:
        """Workspace-relative paths of files matching a glob such as '**/*.py', sorted."""
        start = self.resolve(path)
        if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
            raise WorkspaceError(f"pattern {pattern!r} must be relative and stay in the workspace")
        found = []
        hidden: list[str] = []
        for p in self._walk(start, path, hidden) if start.is_dir() else ():
            rel = p.relative_to(start).as_posix()
            # fnmatch's '*' crosses '/', so '**/*.py' would miss top-level files; accept both.
            if fnmatch.fnmatchcase(rel, pattern) or (
                pattern.startswith("**/") and fnmatch.fnmatchcase(rel, pattern[3:])
            ):
                if rule := self._denied(self.relative(p)):
                    hidden.append(rule)
                else:
                    found.append(self.relative(p))
        note = _left_out(hidden, "path", "paths")
        if not found:
            return f"no files match {pattern!r}{note}"
        return _cap("\n".join(found), self.output_limit)[0] + note

    def grep(self, pattern: str, path: str = ".", glob: str | None = None) -> str:
        """Lines matching a regular expression, as 'file:line: text', in path order."""
        try:
            re.compile(pattern)
        except re.error as exc:
            raise WorkspaceError(f"bad regular expression {pattern!r}: {exc}") from exc
        real = self.resolve(path)  # a path outside is refused here, with the usual message
        hidden: list[str] = []
        files: list[str] | None = None
        if self.read_denied is not None:
            # The rules live in this process: the files to search are chosen here (denied
            # ones left out) and handed to the search, wherever it runs.
            if not real.is_dir():
                self._refuse_denied(real, path)
            else:
                files = []
                for f in self._walk(real, path, hidden):
                    rel = self.relative(f)
                    if not _glob_ok(f, rel, glob):
                        continue
                    if rule := self._denied(rel):
                        hidden.append(rule)
                    else:
                        files.append(rel)
        events = (
            self._grep_in_child(pattern, path, glob, files)
            if self.grep_process
            else self._grep_rows(pattern, path, glob, files)
        )
        hits: list[str] = []
        stopped = ""
        for kind, text in events:
            if kind == "hit":
                hits.append(text)
            else:
                stopped = text
        note = _left_out(hidden, "path", "paths")
        if stopped and hits:
            hits.append(f"[{stopped}; narrow the path or the pattern]")
        elif stopped:
            return f"no matches for {pattern!r} before the search {stopped}{note}"
        if not hits:
            return f"no matches for {pattern!r}{note}"
        return _cap("\n".join(hits), self.output_limit)[0] + note

    def _grep_rows(
        self, pattern: str, path: str, glob: str | None, files: list[str] | None = None
    ) -> Iterator[tuple[Literal["hit", "stop"], str]]:
        """grep's search in this process: ("hit", row) per match, then ("stop", why) if it
        stopped early (output cap, or the budget, checked every 1,024 lines)."""
        rx = re.compile(pattern)
        start = self.resolve(path)
        targets: Iterable[Path]
        if files is not None:  # chosen by the caller (read rules applied)
            targets = [self.root / rel for rel in files]
        else:
            targets = [start] if not start.is_dir() else self._walk(start, path)
        size = 0
        deadline = self.clock() + self.grep_seconds
        for f in targets:
            rel = f.relative_to(self.root).as_posix() if f != self.root else f.name
            if not _glob_ok(f, rel, glob):
                continue
            if not f.is_file():
                continue  # a FIFO or a device would block the read forever
            # Streamed line by line, each line read at most MAX_LINE_BYTES at a time: a file of
            # any size is searched in bounded memory (an 800 MB log no longer loads whole, a
            # 5.7 MB one is no longer skipped).
            try:
                fh = os.fdopen(self._open_regular(f.resolve(), rel), "rb")
            except (OSError, RuntimeError, WorkspaceError):
                continue  # gone, swapped for a link, or not a regular file any more
            with fh:
                if b"\x00" in fh.read(8192):
                    continue  # binary
                fh.seek(0)
                for n, raw in enumerate(_lines(fh), 1):
                    line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if rx.search(line):
                        row = f"{rel}:{n}: {line.strip()[:300]}"
                        yield "hit", row
                        size += len(row) + 1
                        if size > self.output_limit:
                            yield "stop", "output limit reached"
                            return
                    if n % 1024 == 0 and self.clock() > deadline:
                        yield "stop", f"stopped after {self.grep_seconds:g} s in {rel}:{n}"
                        return

    def _grep_in_child(
        self, pattern: str, path: str, glob: str | None, files: list[str] | None = None
    ) -> Iterator[tuple[Literal["hit", "stop"], str]]:
        """`_grep_rows` in a child Python, killed if it outlives the budget: `re` cannot be
        interrupted (and holds the GIL), so one catastrophic pattern such as `(a+)+$` on a
        long line would otherwise hold the tool, and the screen, for minutes. Hits stream back
        as JSON lines, so those found before a kill are kept."""
        request = {
            "root": str(self.root),
            "args": [pattern, path, glob, files],
            "output_limit": self.output_limit,
            "grep_seconds": self.grep_seconds,
        }
        package_parent = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
        proc = subprocess.Popen(
            [sys.executable, "-c", _GREP_CHILD, __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        # The child's own budget (checked between lines) ends a slow but sane search with the
        # file and line it reached; this later deadline is for a pattern stuck inside a line.
        deadline = time.monotonic() + self.grep_seconds + GREP_KILL_GRACE
        seen = 0
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.close()
            buf = b""
            with selectors.DefaultSelector() as sel:
                sel.register(proc.stdout, selectors.EVENT_READ)
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        proc.kill()
                        yield (
                            "stop",
                            (
                                f"stopped after {self.grep_seconds:g} s: the pattern is too slow "
                                "(nested repeats such as (a+)+ backtrack without end)"
                            ),
                        )
                        return
                    if not sel.select(left):
                        continue
                    chunk = os.read(proc.stdout.fileno(), 1 << 16)
                    if not chunk:
                        break
                    *lines, buf = (buf + chunk).split(b"\n")
                    for raw in lines:
                        kind, text = json.loads(raw)
                        if kind == "error":  # a refusal, worded for the model
                            raise WorkspaceError(text)
                        seen += 1
                        yield kind, text
            if proc.wait() != 0 and not seen:
                why = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
                raise WorkspaceError(f"grep failed: {why[-1] if why else proc.returncode}")
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()

    # -- writing tools --------------------------------------------------------------------------

    def _write_atomic(self, real: Path, content: str) -> None:
        # Bytes, not a text stream: no newline translation, and the surrogate escapes of an
        # edited file's undecodable bytes go back as those very bytes.
        data = content.encode("utf-8", "surrogateescape")
        shown = self.relative(real)
        # The directory is opened from the root without following links, and the file is
        # written and renamed relative to that descriptor: a directory swapped for a symlink
        # after the path check cannot send the bytes outside the workspace.
        dirfd = self._open_dir(real.parent, shown, create=True)
        try:
            try:
                old = os.stat(real.name, dir_fd=dirfd, follow_symlinks=False)
            except FileNotFoundError:
                old = None
            if old is not None and not stat.S_ISREG(old.st_mode):
                raise WorkspaceError(f"{shown}: not a regular file (a link, FIFO or device)")
            tmp = f".{real.name}.{secrets.token_hex(4)}.tmp"
            fd = os.open(tmp, _NEW_FILE_FLAGS, 0o600 if old else 0o666, dir_fd=dirfd)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                    if old is not None:
                        os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode))
                os.replace(tmp, real.name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dirfd)
                raise
        finally:
            os.close(dirfd)

    def plan_edit(
        self, path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> tuple[Path, str, str]:
        """Check an edit and compute it without writing: (real path, new text, diff)."""
        real = self.resolve(path)
        before = self._read_text(real, path, exact=True)
        _writable(old_string, "old_string")
        _writable(new_string, "new_string")
        if old_string == "":
            raise WorkspaceError("old_string is empty; use write_file to create a file")
        if old_string == new_string:
            raise WorkspaceError("old_string and new_string are the same; nothing to change")
        count = before.count(old_string)
        if count == 0:
            undecodable = (
                "; the file is not valid UTF-8 (read_file shows its stray bytes as U+FFFD), so "
                "choose an old_string without them"
                if _SURROGATE.search(before)
                else ""
            )
            raise WorkspaceError(
                f"{path}: old_string was not found; read the file and copy it exactly" + undecodable
            )
        if count > 1 and not replace_all:
            raise WorkspaceError(
                f"{path}: old_string occurs {count} times; add context to make it unique "
                "or set replace_all"
            )
        after = (
            before.replace(old_string, new_string)
            if replace_all
            else before.replace(old_string, new_string, 1)
        )
        rel = self.relative(real)
        # The diff of the bytes that will be written, stray bytes shown as escapes.
        return real, after, unified_diff(rel, _shown(before), _shown(after))

    async def edit(
        self, path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> str:
        """Replace an exact string in a file; returns the unified diff of the change."""
        real, after, diff = self.plan_edit(path, old_string, new_string, replace_all)
        rel = self.relative(real)
        plus, minus = diff_stats(diff)
        await self._ask(
            ApprovalRequest("write", "edit_file", f"edit {rel} (+{plus} -{minus})", diff, rel)
        )
        self._write_atomic(real, after)
        return _cap(f"edited {rel}\n{diff}", self.output_limit)[0]

    async def write(self, path: str, content: str) -> str:
        """Create or overwrite a file with `content`; returns a short summary and diff."""
        real = self.resolve(path)
        if real.is_dir():
            raise WorkspaceError(f"{path}: is a directory")
        _writable(content, "content")
        before = self._read_text(real, path, exact=True) if real.exists() else ""
        rel = self.relative(real)
        diff = unified_diff(rel, _shown(before), content)
        verb = "overwrite" if real.exists() else "create"
        plus, minus = diff_stats(diff)
        await self._ask(
            ApprovalRequest("write", "write_file", f"{verb} {rel} (+{plus} -{minus})", diff, rel)
        )
        self._write_atomic(real, content)
        shown, _ = _cap(diff, self.output_limit // 2)
        return f"wrote {len(content.encode())} bytes to {rel}\n{shown}"

    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run a shell command in the root (after approval) in the sandbox, with a timeout
        and output capped while it streams (head and tail kept)."""
        if not command.strip():
            raise WorkspaceError("an empty command")
        limit = min(timeout or self.run_timeout, self.run_timeout)
        from .sandbox import SandboxError

        problem = self.sandbox.problem()
        if problem:  # refused before the user is asked: approving would not help
            try:
                self.sandbox.check()
            except SandboxError as exc:
                raise WorkspaceError(f"run: {command}: refused; {exc}") from exc
        await self._ask(ApprovalRequest("run", "run_command", f"run: {command}", command))
        return await self.run_unasked(command, limit)

    async def run_unasked(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run `command` in the sandbox with `run`'s timeout and output cap, without asking:
        for a command the user typed (the chat's `!command`) or already approved."""
        limit = min(timeout or self.run_timeout, self.run_timeout)
        outcome = await self.sandbox.run(command, timeout=limit, limit=self.output_limit)
        return CommandResult(
            command,
            outcome.exit_code,
            outcome.output,
            outcome.timed_out,
            outcome.cut_bytes > 0,
            outcome.killed_for,
        )

    # -- tools ----------------------------------------------------------------------------------

    def read_only_tools(self) -> list[Tool]:
        """read_file, list_dir, glob, grep: safe for explorers and subagents."""
        from ..tools import make_tool

        ws = self

        def read_file(path: str, offset: int = 1, limit: int = 2000) -> str:
            """Read a UTF-8 text file in the workspace; lines are numbered.

            Args:
                path: file path relative to the workspace root
                offset: first line to show, counting from 1
                limit: how many lines to show at most
            """
            text = ws.read(path, offset, limit)
            # A subfolder's own CLAUDE.md/AGENTS.md, the first time a file under it is read:
            # in the result, where it costs no cached prefix (prefixlock.coding.instructions).
            nested = ws.nested.for_read(path)
            return f"{text}\n\n{nested}" if nested else text

        def list_dir(path: str = ".") -> str:
            """List a directory in the workspace; directories end with '/'.

            Args:
                path: directory relative to the workspace root
            """
            return ws.list_dir(path)

        def glob(pattern: str, path: str = ".") -> str:
            """Find files in the workspace whose path matches a glob pattern such as '**/*.py'.

            Args:
                pattern: glob pattern, relative to `path`
                path: directory to search from, relative to the workspace root
            """
            return ws.glob(pattern, path)

        def grep(pattern: str, path: str = ".", glob: str | None = None) -> str:
            """Search workspace files for lines matching a regular expression.

            Args:
                pattern: Python regular expression
                path: file or directory to search, relative to the workspace root
                glob: only search files whose name or path matches this glob
            """
            return ws.grep(pattern, path, glob)

        return [make_tool(f) for f in (read_file, list_dir, glob, grep)]

    def write_tools(self) -> list[Tool]:
        """edit_file, write_file, run_command: each asks before acting unless allowed."""
        from ..tools import make_tool

        ws = self

        async def edit_file(
            path: str, old_string: str, new_string: str, replace_all: bool = False
        ) -> str:
            """Replace an exact string in a workspace file and return the diff.

            Args:
                path: file path relative to the workspace root
                old_string: text to replace, copied exactly (unique unless replace_all)
                new_string: replacement text
                replace_all: replace every occurrence instead of exactly one
            """
            return await ws.edit(path, old_string, new_string, replace_all)

        async def write_file(path: str, content: str) -> str:
            """Create or overwrite a workspace file with the given content.

            Args:
                path: file path relative to the workspace root
                content: the whole new content of the file
            """
            return await ws.write(path, content)

        async def run_command(command: str, timeout: float = 60.0) -> str:
            """Run a shell command in the workspace root; returns its output and exit code.

            Args:
                command: shell command line
                timeout: seconds before the command is killed
            """
            result = await ws.run(command, timeout)
            if result.timed_out or result.killed_for:
                # A failure, not a result: the tool's error (is_error) for the model and the
                # screen, with what the command printed before it was killed.
                raise WorkspaceError(result.render())
            return result.render()

        return [make_tool(f) for f in (edit_file, write_file, run_command)]

    def tools(self) -> list[Tool]:
        """Every tool: the read-only ones plus edit_file, write_file and run_command."""
        return self.read_only_tools() + self.write_tools()


def _grep_child() -> None:
    """grep's child process: one JSON request on stdin, one JSON event per line on stdout."""
    request = json.loads(sys.stdin.readline())
    ws = Workspace(
        request["root"],
        output_limit=request["output_limit"],
        grep_seconds=request["grep_seconds"],
        grep_process=False,
    )
    try:
        for event in ws._grep_rows(*request["args"]):
            sys.stdout.write(json.dumps(event) + "\n")
            sys.stdout.flush()
    except WorkspaceError as exc:  # the path changed since the parent checked it
        sys.stdout.write(json.dumps(["error", str(exc)]) + "\n")
