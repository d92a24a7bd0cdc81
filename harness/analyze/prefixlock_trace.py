"""prefixlock's own records through the same model: the JSONL trace lines that the session
store exports and the emulator's recorded sessions use (session_id, seq, time, model, usage with
disjoint counters), and the store's requests themselves. Pure: the caller reads the rows."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .model import FileResult, Request
from .records import as_int, iter_records, parse_ts

SOURCE = "prefixlock"
_COUNTERS = ("uncached_input", "cache_read", "cache_write_5m", "cache_write_1h", "output")


def request_from(row: Mapping[str, Any], path: str, line: int) -> Request | None:
    """One trace line (or a store row in the same shape) as a request; None if its usage is
    not a set of counts."""
    usage = row.get("usage")
    if not isinstance(usage, Mapping):
        return None
    vals = [as_int(usage.get(k, 0)) for k in _COUNTERS]
    if any(v is None for v in vals) or not isinstance(row.get("model"), str):
        return None
    u, r, w5, w1, o = (int(v or 0) for v in vals)
    ts = parse_ts(row.get("time"))
    session = str(row.get("session_id", ""))
    return Request(
        SOURCE,
        session,
        "main",
        f"{session}:{row.get('seq', line)}",
        ts,
        ts,
        row["model"],
        uncached=u,
        read=r,
        write_5m=w5,
        write_1h=w1,
        output=o,
        file=path,
        line=line,
        turn=int(row.get("turn", 0) or 0),
    )


def parse(lines: Iterable[str], path: str = "") -> FileResult:
    """A prefixlock JSONL trace (`prefixlock sessions export ID --jsonl`)."""
    result = FileResult(path, SOURCE)
    seen: set[str] = set()
    for lineno, rec in iter_records(lines, result.notes):
        result.notes["usage_lines"] += 1
        req = request_from(rec, path, lineno)
        if req is None:
            result.notes["invalid_usage"] += 1
            continue
        if req.key in seen:
            result.notes["duplicate_lines"] += 1
            continue
        seen.add(req.key)
        if req.session not in {r.session for r in result.requests[-1:]}:
            req.first_in_file = True
        result.requests.append(req)
    return result
