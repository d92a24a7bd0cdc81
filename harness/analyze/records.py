"""JSON lines to records, forgiving the ways session logs break: a malformed line is skipped
and counted, a record split by raw newlines is rejoined (up to 200 lines, JSON's strict mode off
as the writer left control characters in), and a trailing partial line (a live write in
progress) is ignored quietly. Pure: it reads an iterable of text lines."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec

REJOIN_LINES = 200
_loads = json.loads
_decoder = json.JSONDecoder(strict=False)
# Epoch seconds a timestamp may hold: 1970 up to the end of year 9999 (datetime's range).
TS_MAX = 253402300800.0
MAX_TOKENS = 10**15
T = TypeVar("T")
_FAST_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def iter_typed(
    lines: Iterable[bytes | str],
    notes: Counter[str],
    decode: Callable[[bytes], T],
    coerce: Callable[[dict[str, Any]], T | None],
) -> Iterator[tuple[int, T]]:
    """(line number, record) for each JSON object line, decoded by `decode` (a msgspec decoder
    of only the fields a reader needs: the rest of a line is skipped, not built). A line it
    cannot take (malformed, split by raw newlines, a field of an unexpected type) goes the
    forgiving way of `iter_records`, and `coerce` turns the object found into a record (None:
    nothing usable)."""
    pending: list[str] = []
    pending_at = 0
    last_complete = True
    n = 0
    for n, raw in enumerate(lines, 1):
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogatepass")
        if not pending:
            try:
                rec = decode(raw)
            except _FAST_ERRORS:
                pass
            else:
                yield n, rec
                continue
        # Only a line that took the long way can be left pending at the end.
        last_complete = raw.endswith(b"\n")
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            continue
        obj: dict[str, Any] | None
        if pending:
            obj = _try("\n".join([*pending, text]), strict=False)
            if obj is not None:
                notes["rejoined_records"] += 1
                pending, at = [], pending_at
            else:
                obj, at = _try(text), n
                if obj is not None:
                    notes["corrupt_lines"] += 1
                    pending = []
                elif len(pending) < REJOIN_LINES:
                    pending.append(text)
                    continue
                else:
                    notes["corrupt_lines"] += 1
                    pending = []
                    obj = _try(text)
        else:
            obj, at = _try(text), n
        if obj is None:
            pending, pending_at = [text], n
            continue
        got = coerce(obj)
        if got is None:
            notes["corrupt_lines"] += 1
            continue
        yield at, got
    _count_end(notes, n, pending, pending_at, last_complete)


def recode(decode: Callable[[bytes], T], obj: dict[str, Any]) -> T | None:
    """`obj` (from the forgiving path) as `decode` would have read it, or None when it cannot
    be (a lone surrogate, a field of the wrong kind)."""
    try:
        return decode(msgspec.json.encode(obj))
    except (*_FAST_ERRORS, UnicodeError, TypeError, OverflowError):
        return None


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
    _count_end(notes, n, pending, pending_at, last_complete)


def _count_end(
    notes: Counter[str], n: int, pending: list[str], pending_at: int, last_complete: bool
) -> None:
    """Count the lines read, and what was left unparsed at the end: one unfinished last line
    is a write in progress; anything else was corrupt."""
    notes["lines"] += n
    if pending:
        if len(pending) == 1 and not last_complete and pending_at == n:
            notes["partial_trailing"] += 1
        else:
            notes["corrupt_lines"] += 1


def _try(text: str, strict: bool = True) -> dict[str, Any] | None:
    try:
        obj = _loads(text) if strict else _decoder.decode(text)
    except (ValueError, RecursionError):  # malformed, a huge number, nesting too deep
        return None
    return obj if isinstance(obj, dict) else None


def parse_ts(value: Any) -> float | None:
    """Epoch seconds from an ISO-8601 string ('Z' or an offset), epoch seconds or ms."""
    if type(value) is str and value:
        # The common case first: an ISO string (one per request line).
        try:
            dt = _fromiso(value)
        except ValueError:
            return None
        return _epoch(dt)
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        ts = float(value) / 1000.0 if value > 1e11 else float(value)
        return ts if 0.0 <= ts < TS_MAX else None
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = _fromiso(value)
    except ValueError:
        return None
    return _epoch(dt)


_fromiso = datetime.fromisoformat


def _epoch(dt: datetime) -> float | None:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        ts = dt.timestamp()
    except (OverflowError, ValueError):  # year 1 with a positive offset, and the like
        return None
    return ts if 0.0 <= ts < TS_MAX else None


def as_int(value: Any) -> int | None:
    """A token count, or None for null, text, a negative or a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    # Also NaN and infinity; no request holds a quadrillion tokens (a count that big is
    # corruption, and past Decimal's precision when priced).
    if not 0 <= value < MAX_TOKENS:
        return None
    return int(value)
