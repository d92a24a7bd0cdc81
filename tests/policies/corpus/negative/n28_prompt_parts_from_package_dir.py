"""Prompt parts loaded from the package's own directory, in sorted order: stable bytes."""

from pathlib import Path

PARTS_DIR = Path(__file__).parent / "prompt_parts"


def build_system_prompt() -> str:
    parts = []
    for path in sorted(PARTS_DIR.glob("*.md")):
        parts.append(path.read_text(encoding="utf-8"))
    return "\n\n".join(parts)
