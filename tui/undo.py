"""`/undo`: put back the files a turn wrote, byte for byte.

Before each approved write or edit the file's bytes and mode are copied into a private folder
(once per file per turn; a file that did not exist is marked so, with the folders the write
will create). When the turn ends, each touched file's new content is hashed. `/undo` takes the
newest turn that touched files and restores every one of them (or removes it, and the folders
made for it) — unless the file changed again after that turn (the user edited it since), which
is left alone and named, so an undo never throws away work it did not make; `force` restores
it anyway. Undone turns can be undone further back, one turn per `/undo`.

Only what goes through the workspace's edit and write tools is journaled; what a command
changes (a formatter, a build) is not.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


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

    def begin(self, label: str) -> None:
        self._current = TurnRecord(" ".join(label.split())[:60])

    def end(self) -> None:
        """The turn is over: hash what it left, keep it if it wrote anything."""
        turn, self._current = self._current, None
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

    def undo(self, *, force: bool = False) -> UndoResult:
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
    """Put `copy`'s bytes at `path` atomically (a symlink now at `path` is replaced, not
    followed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".undo")
    os.close(fd)
    try:
        shutil.copyfile(copy, tmp)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
