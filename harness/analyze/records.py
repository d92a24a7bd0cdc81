"""JSON lines to records, forgiving the ways session logs break: a malformed line is skipped
and counted, a record split by raw newlines is rejoined (up to 200 lines, JSON's strict mode off
as the writer left control characters in), and a trailing partial line (a live write in
progress) is ignored quietly. Pure: it reads an iterable of text lines."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC
from typing import Any

REJOIN_LINES = 200
_loads = json.loads
_decoder = json.JSONDecoder(strict=False)


def iter_records(
    lines: Iterable[str],
    notes: Counter[str],
    keep: Callable[[str], bool] | None = None,
    fast: Callable[[str], dict[str, Any] | None] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each JSON object line. `keep(line)`, when given, lets a
    reader skip lines it needs nothing from before they are parsed, and `fast(line)` hand back
    the few fields it needs of a line without parsing it (the cost of a big log is json.loads
    on tool output)."""
    pending: list[str] = []
    pending_at = 0
    last_complete = True
    n = 0
    for n, line in enumerate(lines, 1):
        last_complete = line.endswith("\n")
        text = line.strip()
        if not text:
            continue
        if pending:
            joined = "\n".join([*pending, text])
            obj = _try(joined, strict=False)
            if obj is not None:
                notes["rejoined_records"] += 1
                pending = []
                yield pending_at, obj
                continue
            alone = _try(text)
            if alone is not None:
                notes["corrupt_lines"] += 1
                pending = []
                yield n, alone
                continue
            if len(pending) < REJOIN_LINES:
                pending.append(text)
                continue
            notes["corrupt_lines"] += 1
            pending = []
        # A whole-looking line the reader needs nothing from is skipped unparsed; anything
        # else is parsed, so a broken line is still counted.
        if keep is not None and text.endswith("}") and not keep(text):
            continue
        if fast is not None and text.endswith("}"):
            light = fast(text)
            if light is not None:
                yield n, light
                continue
        obj = _try(text)
        if obj is None:
            pending, pending_at = [text], n
            continue
        yield n, obj
    notes["lines"] += n
    if pending:
        # One unfinished last line is a write in progress; anything else was corrupt.
        if len(pending) == 1 and not last_complete and pending_at == n:
            notes["partial_trailing"] += 1
        else:
            notes["corrupt_lines"] += 1


def _try(text: str, strict: bool = True) -> dict[str, Any] | None:
    try:
        obj = _loads(text) if strict else _decoder.decode(text)
    except ValueError:  # JSONDecodeError, or a number too large to convert
        return None
    return obj if isinstance(obj, dict) else None


def parse_ts(value: Any) -> float | None:
    """Epoch seconds from an ISO-8601 string ('Z' or an offset), epoch seconds or ms."""
    from datetime import datetime

    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) / 1000.0 if value > 1e11 else float(value)
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def as_int(value: Any) -> int | None:
    """A token count, or None for null, text, a negative or a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if value >= 0 else None
