"""Gemini CLI chats (`~/.gemini/tmp/<project hash>/chats/session-*.json`, or the newer JSONL
with records keyed by id, where a later record replaces an earlier one) to requests.

One `type:"gemini"` message is one model reply. `tokens.input` includes `tokens.cached`
(Gemini's promptTokenCount includes cached content), unless `total` says otherwise (ccusage's
check: the overlap is subtracted when total = input + output + thoughts + tool). Gemini's
implicit cache has no write fee, so there are no writes. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .model import FileResult, Request
from .records import as_int, iter_records, parse_ts

SOURCE = "gemini"


def parse_document(doc: Mapping[str, Any], path: str = "") -> FileResult:
    """A whole-session JSON document: {sessionId, messages: [...]}."""
    result = FileResult(path, SOURCE)
    session = str(doc.get("sessionId") or path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    messages = doc.get("messages")
    if not isinstance(messages, list):
        result.notes["unknown_format"] += 1
        return result
    _add(result, session, [(i, m) for i, m in enumerate(messages, 1) if isinstance(m, dict)])
    return result


def parse_lines(lines: Iterable[str], path: str = "") -> FileResult:
    """The JSONL variant: one record a line, the last record of an id wins."""
    result = FileResult(path, SOURCE)
    session = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    for lineno, rec in iter_records(lines, result.notes):
        if isinstance(rec.get("sessionId"), str):
            session = rec["sessionId"]
        key = str(rec.get("id", lineno))
        if key in latest:
            result.notes["duplicate_lines"] += 1
        latest[key] = (lineno, rec)
    _add(result, session, sorted(latest.values(), key=lambda x: x[0]))
    return result


def _add(result: FileResult, session: str, messages: list[tuple[int, dict[str, Any]]]) -> None:
    turn = 0
    for lineno, m in messages:
        if m.get("type") == "user":
            turn += 1
            result.prompts[session] = result.prompts.get(session, 0) + 1
            continue
        if m.get("type") != "gemini" or "tokens" not in m:
            continue
        result.notes["usage_lines"] += 1
        t = m.get("tokens")
        vals = (
            [as_int(t.get(k, 0)) for k in ("input", "cached", "output", "thoughts", "tool")]
            if isinstance(t, dict)
            else [None]
        )
        if any(v is None for v in vals):
            result.notes["invalid_usage"] += 1
            continue
        inp, cached, out, thoughts, tool = (int(v or 0) for v in vals)
        total = as_int(t.get("total")) if isinstance(t, dict) else None
        excludes = total is not None and total == inp + cached + out + thoughts + tool
        uncached = inp if excludes else max(inp - cached, 0)
        ts = parse_ts(m.get("timestamp"))
        model = str(m["model"]) if isinstance(m.get("model"), str) else "gemini-unknown"
        result.requests.append(
            Request(
                SOURCE,
                session,
                "main",
                f"{session}:{m.get('id', lineno)}",
                ts,
                ts,
                model,
                uncached=uncached + tool,
                read=cached,
                output=out + thoughts,
                file=result.path,
                line=lineno,
                turn=turn,
            )
        )
    if result.requests:
        result.requests[0].first_in_file = True
