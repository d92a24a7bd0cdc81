"""Writing a test's files: a settings file, a command file, an instruction file."""

from __future__ import annotations

from pathlib import Path


def write(path: Path, text: str) -> Path:
    """`text` at `path`, its folders made; the path back, for the assertion that names it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
