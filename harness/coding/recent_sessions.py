"""Which stored sessions were opened in which workspace, for `--continue` (the newest one of
this folder, as Claude Code's `claude --continue`) and the chat's session picker.

Kept beside the session store, never in the repository (`<store folder>/workspaces/<hash of the
workspace path>.jsonl`, one `{"id", "time"}` line per session started), so the store's schema
stays the SDK's. A line that does not parse is skipped; `stored` leaves out the ids the store
no longer has (what `prefixlock run --continue` and `prefixlock chat --continue/--resume` read).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..store.database import project_file

if TYPE_CHECKING:
    from ..store.records import SessionRecord

KIND = "workspaces"
KEEP = 200  # ids kept per workspace (older ones are dropped when the file is rewritten)


def index_path(store_path: Path | None, workspace: Path) -> Path | None:
    return project_file(store_path, workspace, KIND, ".jsonl")


def record(store_path: Path | None, workspace: Path, session_id: str, time: float) -> None:
    """Note that `session_id` was started in `workspace` (best effort: a read-only data
    folder only costs `--continue` this session)."""
    path = index_path(store_path, workspace)
    if path is None:
        return
    line = json.dumps({"id": session_id, "time": time}) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line)
        if path.stat().st_size > KEEP * 200:  # roughly KEEP lines: keep the newest
            ids = _read(path)[:KEEP]
            tmp = path.with_suffix(".tmp")
            tmp.write_text(
                "".join(json.dumps({"id": i, "time": t}) + "\n" for i, t in reversed(ids)),
                "utf-8",
            )
            os.replace(tmp, path)
    except OSError:
        pass


def recent(store_path: Path | None, workspace: Path) -> list[str]:
    """The ids of the sessions started in `workspace`, newest first, each once."""
    path = index_path(store_path, workspace)
    if path is None:
        return []
    return [i for i, _ in _read(path)]


def stored(store_path: Path, workspace: Path) -> tuple[list[SessionRecord], list[str]]:
    """Every session the store holds (most recently updated first), and the ids of those
    started in `workspace`, newest first. No store file yet: nothing (the store is not
    created by looking)."""
    from ..store.database import SessionStore

    if not store_path.exists():
        return [], []
    with SessionStore(str(store_path)) as opened:
        records = opened.sessions()
    known = {r.id for r in records}
    return records, [i for i in recent(store_path, workspace) if i in known]


def _read(path: Path) -> list[tuple[str, float]]:
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return []
    # (time, line number): of two entries at the same time, the later line is the newer.
    newest: dict[str, tuple[float, int]] = {}
    for n, line in enumerate(text.splitlines()):
        try:
            row = json.loads(line)
            sid, time = str(row["id"]), float(row["time"])
        except (ValueError, KeyError, TypeError):
            continue
        newest[sid] = max((time, n), newest.get(sid, (time, n)))
    ranked = sorted(newest.items(), key=lambda kv: kv[1], reverse=True)
    return [(sid, key[0]) for sid, key in ranked]
