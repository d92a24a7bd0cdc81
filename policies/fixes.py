"""Apply fixes to files: text edits merged per file, written atomically.

Overlapping edits are skipped (the next run picks them up). `apply_edits` is pure; `apply_fixes`
reads and writes the files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .engine import atomic_write
from .findings import Edit, Finding


def _offset(line_starts: list[int], line: int, col: int) -> int:
    return line_starts[line - 1] + col


def apply_edits(text: str, edits: Sequence[Edit]) -> tuple[str, int]:
    """The text with the non-overlapping edits applied, and how many were applied."""
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    spans = []
    for e in edits:
        if e.line - 1 >= len(starts) or e.end_line - 1 >= len(starts):
            continue
        spans.append(
            (_offset(starts, e.line, e.col), _offset(starts, e.end_line, e.end_col), e.text)
        )
    # Apply from the end so earlier offsets stay valid; insertions at the same point keep order.
    spans = sorted(set(spans), key=lambda s: (s[0], s[1]))
    chosen: list[tuple[int, int, str]] = []
    last_end = -1
    for s in spans:
        if s[0] < last_end or (
            chosen and s[0] == chosen[-1][0] and s[1] > s[0] and chosen[-1][1] > chosen[-1][0]
        ):
            continue
        chosen.append(s)
        last_end = max(last_end, s[1])
    out = text
    for start, end, new in reversed(chosen):
        out = out[:start] + new + out[end:]
    return out, len(chosen)


def apply_fixes(findings: Sequence[Finding], unsafe: bool = False) -> tuple[int, list[str]]:
    """Apply the fixes of `findings` (safe ones, and unsafe ones when asked).

    Returns how many findings were fixed and the files changed.
    """
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        if f.fix is None or (not f.fix.safe and not unsafe):
            continue
        by_file.setdefault(f.path, []).append(f)
    fixed = 0
    changed: list[str] = []
    for path, items in sorted(by_file.items()):
        try:
            original = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        whole = next((f.fix.whole_file for f in items if f.fix and f.fix.whole_file), None)
        if whole is not None:
            new = whole
            fixed += sum(1 for f in items if f.fix and f.fix.whole_file)
        else:
            edits: list[Edit] = []
            seen: set[int] = set()
            for f in items:
                assert f.fix is not None
                if id(f.fix) in seen:
                    fixed += 1
                    continue
                seen.add(id(f.fix))
                edits.extend(f.fix.edits)
                fixed += 1
            new, _ = apply_edits(original, _dedupe(edits))
        if new != original:
            atomic_write(path, new)
            changed.append(path)
    return fixed, changed


def _dedupe(edits: list[Edit]) -> list[Edit]:
    out: list[Edit] = []
    seen: set[Edit] = set()
    for e in edits:
        if e not in seen:
            seen.add(e)
            out.append(e)
    return out
