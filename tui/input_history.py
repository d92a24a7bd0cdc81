"""The prompt's input history: messages sent earlier in this workspace, recalled with Up/Down.

One JSON string per line in a small file per workspace, kept beside the session store
(`<store folder>/history/<hash of the workspace path>.jsonl`), so the user's repository gets no
new file. A line that does not parse (a torn write, another program) is skipped, never fatal;
the file is rewritten to its newest `limit` entries when it grows past twice that.
"""

from __future__ import annotations

from pathlib import Path

LIMIT = 500


def history_path(store_path: Path | None, workspace: Path) -> Path | None:
    """Where the history of `workspace` lives, or None (no store: the history is in memory)."""
    from prefixlock.store.database import project_file

    return project_file(store_path, workspace, "history", ".jsonl")


class InputHistory:
    """Sent messages, oldest first, and a browsing position for Up/Down."""

    def __init__(self, path: Path | None = None, limit: int = LIMIT) -> None:
        self.path = path
        self.limit = limit
        self.entries: list[str] = self._load()
        self._pos: int | None = None  # index being shown; None: the draft
        self._draft = ""
        self.warning: str | None = None  # set when the file could not be written

    def _load(self) -> list[str]:
        if self.path is None:
            return []
        import json  # not before the prompt's first frame, which has no history yet

        try:
            raw = self.path.read_text("utf-8", errors="replace")
        except OSError:
            return []
        entries: list[str] = []
        for line in raw.splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, str) and value.strip():
                entries.append(value)
        return entries[-self.limit :]

    def add(self, text: str) -> None:
        """Remember a sent message (not a repeat of the last one) and stop browsing."""
        self._pos = None
        self._draft = ""
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        if self.path is None:
            return
        import json

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(text) + "\n")
            if len(self.entries) > 2 * self.limit:
                self.entries = self.entries[-self.limit :]
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text("".join(json.dumps(e) + "\n" for e in self.entries), "utf-8")
                tmp.replace(self.path)
        except OSError as exc:  # a read-only data dir: the history still works in memory
            self.warning = f"input history not saved to {self.path}: {exc.strerror or exc}"

    @property
    def browsing(self) -> bool:
        return self._pos is not None

    def previous(self, current: str) -> str | None:
        """The entry before the one shown (the newest when not browsing); None at the oldest.
        The text being edited is kept as the draft that `next` comes back to."""
        if not self.entries:
            return None
        if self._pos is None:
            self._draft = current
            self._pos = len(self.entries) - 1
        elif self._pos == 0:
            return None
        else:
            self._pos -= 1
        return self.entries[self._pos]

    def next(self) -> str | None:
        """The entry after the one shown, the draft after the newest; None when not browsing."""
        if self._pos is None:
            return None
        if self._pos + 1 < len(self.entries):
            self._pos += 1
            return self.entries[self._pos]
        self._pos = None
        return self._draft
