"""`/undo`: put back the files a turn wrote, byte for byte.

Before each approved write or edit the file's bytes and mode are copied into a private folder
(once per file per turn; a file that did not exist is marked so, with the folders the write
will create). When the turn ends, each touched file's new content is hashed. `/undo` takes the
newest turn that touched files and restores every one of them (or removes it, and the folders
made for it) — unless the file changed again after that turn (the user edited it since), which
is left alone and named, so an undo never throws away work it did not make; `force` restores
it anyway. Undone turns can be undone further back, one turn per `/undo`.

In a git work tree, an approved command also takes a checkpoint (`git_checkpoint`: a tree of
the workspace's non-ignored files in a private object store) before the turn's first command;
when the turn ends, the files that differ from it are journaled too, so /undo also puts back
what a formatter or a script changed. Outside git, what a command changes is not journaled.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from prefixlock.atomicfile import replacing

from .git_checkpoint import GitCheckpoint


class UndoError(Exception):
    """Nothing to undo, or a restore that could not be done (the message says which)."""


@dataclass
class Saved:
    """One file as it was before the turn first wrote it."""

    rel: str
    existed: bool
    mode: int | None = None
    copy: Path | None = None  # the bytes, in the journal's folder
    made_dirs: tuple[str, ...] = ()  # folders the write creates (removed on undo when empty)
    after: str | None = None  # sha256 of the file when the turn ended ("" if it was gone)


@dataclass
class TurnRecord:
    label: str
    files: dict[str, Saved] = field(default_factory=dict)
    tree: str | None = None  # the git checkpoint before the turn's first command
    journaled_before_tree: frozenset[str] = frozenset()


@dataclass(frozen=True)
class UndoResult:
    label: str
    restored: tuple[str, ...]  # put back as they were
    removed: tuple[str, ...]  # made by the turn, now gone again
    skipped: tuple[str, ...]  # changed since the turn: left alone (see `force`)

    def text(self) -> str:
        parts = [f"undid the turn {self.label!r}:"]
        if self.restored:
            parts.append("restored " + ", ".join(self.restored))
        if self.removed:
            parts.append("removed " + ", ".join(self.removed))
        if self.skipped:
            parts.append(
                "left alone (changed since that turn; /undo force restores them): "
                + ", ".join(self.skipped)
            )
        return " ".join(parts) if len(parts) > 1 else f"the turn {self.label!r} changed nothing"


class UndoJournal:
    """The workspace's per-turn file snapshots."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.turns: list[TurnRecord] = []
        self._current: TurnRecord | None = None
        self._store: Path | None = None  # made on the first snapshot
        self._git: GitCheckpoint | bool | None = True  # True: not looked for yet
        # `end` and `before_command` run git in a worker thread (a big tree takes seconds to
        # hash, and the UI must not freeze meanwhile); the lock keeps an /undo typed during
        # that from seeing a turn half recorded.
        self._lock = threading.Lock()

    def begin(self, label: str) -> None:
        if self._current is not None:  # a turn left open (cancelled while calls waited)
            self.end()
        self._current = TurnRecord(" ".join(label.split())[:60])

    def end(self) -> None:
        """The turn is over: hash what it left, keep it if it wrote anything. Safe to call
        from a worker thread (it may run git)."""
        with self._lock:
            self._end()

    def _end(self) -> None:
        turn, self._current = self._current, None
        if turn is not None and turn.tree is not None:
            self._commands_changed(turn)
        if turn is None or not turn.files:
            return
        for saved in turn.files.values():
            saved.after = _digest(self.root / saved.rel)
        self.turns.append(turn)

    def before_write(self, rel: str) -> None:
        """Called once a write to `rel` (workspace-relative) is approved, before it happens."""
        turn = self._current
        if turn is None:  # a write outside a turn (a subagent started by hand): its own record
            self.begin("(outside a turn)")
            turn = self._current
            assert turn is not None
        if rel in turn.files:
            return
        path = self.root / rel
        if path.is_file() and not path.is_symlink():
            store = self._folder()
            fd, name = tempfile.mkstemp(dir=store)
            os.close(fd)
            shutil.copyfile(path, name)  # bytes as they are: no decoding, no newline change
            turn.files[rel] = Saved(rel, True, path.stat().st_mode & 0o7777, Path(name))
            return
        made: list[str] = []
        parent = path.parent
        while parent != self.root and not parent.exists():
            made.append(parent.relative_to(self.root).as_posix())
            parent = parent.parent
        turn.files[rel] = Saved(rel, False, made_dirs=tuple(made))

    def before_command(self) -> None:
        """Called once a command is approved, before it runs: a git checkpoint (once a turn).
        Safe to call from a worker thread."""
        with self._lock:
            self._before_command()

    def _before_command(self) -> None:
        turn = self._current
        if turn is None or turn.tree is not None:
            return
        git = self._checkpointer()
        if git is None:
            return
        try:
            tree = git.snapshot()
        except (OSError, subprocess.SubprocessError):
            return  # no checkpoint: edits are still journaled one by one
        turn.tree = tree
        turn.journaled_before_tree = frozenset(turn.files)

    def _commands_changed(self, turn: TurnRecord) -> None:
        git = self._checkpointer()
        if git is None or turn.tree is None:
            return
        try:
            after = git.snapshot()
            changes = git.changes(turn.tree, after) if after is not None else []
            for change in changes:
                if change.rel in turn.journaled_before_tree:
                    continue  # its earlier snapshot (from before the command) holds
                if change.before is None:
                    turn.files[change.rel] = Saved(change.rel, False)
                    continue
                fd, name = tempfile.mkstemp(dir=self._folder())
                os.close(fd)
                git.blob_to(change.before, Path(name))
                turn.files[change.rel] = Saved(change.rel, True, change.mode, Path(name))
        except (OSError, subprocess.SubprocessError):
            return

    def _checkpointer(self) -> GitCheckpoint | None:
        if self._git is True:
            self._git = GitCheckpoint.find(self.root, self._folder() / "git")
        return self._git if isinstance(self._git, GitCheckpoint) else None

    def undo(self, *, force: bool = False) -> UndoResult:
        with self._lock:
            return self._undo(force=force)

    def _undo(self, *, force: bool) -> UndoResult:
        if self._current is not None and self._current.files:
            raise UndoError("a turn is running; wait for it to end")
        if not self.turns:
            raise UndoError("nothing to undo: no turn of this session wrote a file")
        turn = self.turns.pop()
        restored: list[str] = []
        removed: list[str] = []
        skipped: list[str] = []
        for saved in turn.files.values():
            path = self.root / saved.rel
            if not force and saved.after is not None and _digest(path) != saved.after:
                skipped.append(saved.rel)
                continue
            if saved.existed and saved.copy is not None:
                _restore(saved.copy, path, saved.mode)
                restored.append(saved.rel)
            else:
                if path.is_file() or path.is_symlink():
                    path.unlink()
                    removed.append(saved.rel)
                for folder in saved.made_dirs:  # innermost first
                    with contextlib.suppress(OSError):  # not empty: something else is there
                        (self.root / folder).rmdir()
        return UndoResult(turn.label, tuple(restored), tuple(removed), tuple(skipped))

    def close(self) -> None:
        if self._store is not None:
            shutil.rmtree(self._store, ignore_errors=True)
            self._store = None

    def _folder(self) -> Path:
        if self._store is None:
            self._store = Path(tempfile.mkdtemp(prefix="prefixlock-undo-"))
        return self._store


def _digest(path: Path) -> str:
    """sha256 of a regular file's bytes; "" when it is not there (or not a plain file)."""
    if not path.is_file() or path.is_symlink():
        return ""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _restore(copy: Path, path: Path, mode: int | None) -> None:
    """Put `copy`'s bytes at `path` atomically, with the mode it had (a symlink now at `path`
    is replaced, not followed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with copy.open("rb") as src, replacing(path, mode=mode) as dst:
        shutil.copyfileobj(src, dst)
