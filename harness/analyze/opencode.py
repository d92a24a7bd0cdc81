"""OpenCode messages (the `message` table of `opencode.db`, or the legacy
`storage/message/<session>/<id>.json` files) to requests. Pure: the caller reads the rows.

An assistant message carries `tokens: {input, output, reasoning, cache: {read, write}}` with
`input` excluding cache reads and writes; its `step-finish` parts, when given, split it into one
request per model call. `agent: "compaction"` or `summary: true` marks a compaction; a session
whose `parentID` is set is a subagent of that session.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .model import Event, FileResult, Request
from .records import as_int

SOURCE = "opencode"


def _tokens(t: Any) -> tuple[int, int, int, int] | None:
    if not isinstance(t, dict):
        return None
    cache: dict[str, Any] = t["cache"] if isinstance(t.get("cache"), dict) else {}
    vals = [
        as_int(t.get("input", 0)),
        as_int(cache.get("read", 0)),
        as_int(cache.get("write", 0)),
        as_int(t.get("output", 0)),
        as_int(t.get("reasoning", 0)),
    ]
    if any(v is None for v in vals):
        return None
    i, r, w, o, reasoning = (int(v or 0) for v in vals)
    return i, r, w, o + reasoning


def parse_messages(
    messages: Iterable[Mapping[str, Any]],
    path: str = "",
    parts: Mapping[str, list[Mapping[str, Any]]] | None = None,
    parents: Mapping[str, str] | None = None,
) -> FileResult:
    """`messages`: the message objects; `parts`: message id -> its parts (optional);
    `parents`: session id -> parent session id for subagent sessions (optional)."""
    result = FileResult(path, SOURCE)
    parents = parents or {}
    ordered = sorted(
        (m for m in messages if isinstance(m, Mapping)),
        key=lambda m: (str(m.get("sessionID", "")), _created(m) or 0.0),
    )
    turns: dict[str, int] = {}
    pending: dict[str, str] = {}
    for n, m in enumerate(ordered, 1):
        own = str(m.get("sessionID", ""))
        session = parents.get(own, own)
        thread = f"agent:{own[:12]}" if own in parents else "main"
        if m.get("role") == "user":
            turns[session] = turns.get(session, 0) + (thread == "main")
            if thread == "main":
                result.prompts[session] = result.prompts.get(session, 0) + 1
            continue
        if m.get("role") != "assistant":
            continue
        compacting = m.get("agent") == "compaction" or m.get("summary") is True
        model = str(m["modelID"]) if isinstance(m.get("modelID"), str) else "unknown"
        provider = m.get("providerID")
        steps = [
            p
            for p in (parts or {}).get(str(m.get("id")), [])
            if isinstance(p, Mapping) and p.get("type") == "step-finish"
        ]
        units = [p.get("tokens") for p in steps] if steps else [m.get("tokens")]
        for k, t in enumerate(units):
            result.notes["usage_lines"] += 1
            counts = _tokens(t)
            if counts is None:
                result.notes["invalid_usage"] += 1
                continue
            i, r, w, o = counts
            ts = _created(m)
            done = m.get("time", {}).get("completed") if isinstance(m.get("time"), dict) else None
            cost = m.get("cost")
            req = Request(
                SOURCE,
                session,
                thread,
                f"{m.get('id', n)}:{k}",
                ts,
                _secs(done) if done is not None else ts,
                f"{provider}/{model}" if isinstance(provider, str) and provider else model,
                uncached=i,
                read=r,
                write_5m=w,
                output=o,
                file=path,
                line=n,
                turn=turns.get(session, 0),
                logged_cost=float(cost) if isinstance(cost, (int, float)) and k == 0 else None,
            )
            if own in pending and k == 0:
                req.compaction = pending.pop(own)
            result.requests.append(req)
        if compacting:  # the summary call is billed; the request after it starts the new prefix
            ev = f"agent={m.get('agent')!s} summary={m.get('summary')!s}"
            pending[own] = ev
            result.events.append(Event(session, thread, "compaction", _created(m), ev))
    return result


def _secs(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) / 1000.0 if v > 1e11 else float(v)


def _created(m: Mapping[str, Any]) -> float | None:
    t = m.get("time")
    return _secs(t.get("created")) if isinstance(t, dict) else None
