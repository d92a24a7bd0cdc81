"""The project's instruction files (AGENTS.md, CLAUDE.md, CONVENTIONS.md at the workspace root),
read once at session start into a block of the frozen prefix, for the chat and `prefixlock run`
alike.

Each file is opened without following a symlink out of the workspace and without blocking on a
FIFO: an `AGENTS.md -> ~/.ssh/id_ed25519` link must not send a key to the provider.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Read into the frozen prefix at session start, in this order.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", "CONVENTIONS.md")
INSTRUCTION_LIMIT = 64_000  # bytes per file: a huge one is cut (and says so), not sent whole
HEADING = "# Project instructions from "  # + the file's name: one section per file


def _read_inside(root: Path, name: str) -> bytes | None:
    """Up to INSTRUCTION_LIMIT + 1 bytes of root/name if it is a regular file that resolves
    inside `root`; None otherwise (absent, a folder, a FIFO, a link leading out)."""
    path = root / name
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(root.resolve()):
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


def project_instructions(root: Path) -> str:
    """The workspace's instruction files, each under a heading naming it; "" when there are
    none. Read once, at session start: an edit mid-session does not change the cached prefix
    behind the user's back."""
    parts: list[str] = []
    for name in INSTRUCTION_FILES:
        data = _read_inside(root, name)
        if data is None:
            continue
        text = data[:INSTRUCTION_LIMIT].decode("utf-8", "replace").strip()
        if len(data) > INSTRUCTION_LIMIT:
            text += f"\n[{name} cut at {INSTRUCTION_LIMIT:,} bytes]"
        if text:
            parts.append(f"{HEADING}{name}\n\n{text}")
    return "\n\n".join(parts)


def changed_instruction_files(old: str, new: str) -> list[str]:
    """The files whose section differs between two `project_instructions` texts (the text as
    a whole when no section tells)."""

    def sections(text: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for part in text.split(HEADING)[1:]:
            name, _, body = part.partition("\n")
            found[name.strip()] = body
        return found

    before, after = sections(old), sections(new)
    return [n for n in INSTRUCTION_FILES if before.get(n) != after.get(n)] or ["instructions"]
