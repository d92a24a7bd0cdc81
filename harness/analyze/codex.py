"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) to requests.

Codex logs cumulative `total_token_usage` snapshots (`event_msg/token_count`) and re-emits an
unchanged snapshot on UI and rate-limit refreshes; a request is a snapshot whose totals
advanced, its counters the delta. `last_token_usage` is used only when totals are missing or go
backwards. A forked or subagent rollout (two `session_meta`, or a `thread_spawn`) first replays
its parent's snapshots (ccusage#1349): they set the baseline, and each row carries its totals
(`fingerprint`) and whether it came in the fork's opening burst, for `collect.merge` to drop
the replay (by content when the parent's rollout was read). A fork is a session named after its
own thread. `input_tokens` includes `cached_input_tokens`; reasoning is inside
`output_tokens`. Headless `codex exec --json` lines (`turn.completed`) are one request each.
Pure: the caller hands in the lines.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from .model import Event, FileResult, Request
from .records import as_int, iter_typed, parse_ts, recode

SOURCE = "codex"
FALLBACK_MODEL = "gpt-5"
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "cache_write_input_tokens")


class Payload(msgspec.Struct):
    """The fields of a rollout line's payload a report reads (tool calls and message text
    are skipped, not built)."""

    type: Any = None
    id: Any = None
    cwd: Any = None
    source: Any = None
    model: Any = None
    info: Any = None


class Line(msgspec.Struct):
    timestamp: Any = None
    type: Any = None
    payload: Payload | None = None
    usage: Any = None


_LINE = msgspec.json.Decoder(Line)
_decode_line = _LINE.decode


def _coerce(obj: dict[str, Any]) -> Line | None:
    if "payload" in obj and not isinstance(obj["payload"], dict):
        obj = {**obj, "payload": None}
    return recode(_LINE.decode, obj)


_EMPTY = Payload()


def _counts(u: Any) -> tuple[int, int, int, int] | None:
    if not isinstance(u, dict):
        return None
    vals = [as_int(u.get(f, 0)) for f in _FIELDS]
    if any(v is None for v in vals):
        return None
    a, b, c, d = (int(v or 0) for v in vals)
    return a, b, c, d


def parse(lines: Iterable[bytes | str], path: str = "") -> FileResult:
    """The requests, events and notes of one Codex rollout (or `codex exec --json` output)."""
    result = FileResult(path, SOURCE)
    notes = result.notes
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".jsonl")
    session, metas, fork = stem, 0, False
    parent: str | None = None
    model: str | None = None
    prev: tuple[int, int, int, int] | None = None
    spawned = False
    burst = True  # still in a fork's opening burst of rows
    last_row: float | None = None
    turn = 0
    compaction: str | None = None
    for lineno, rec in iter_typed(lines, notes, _decode_line, _coerce):
        rtype = rec.type
        payload = rec.payload or _EMPTY
        ptype = payload.type
        if rtype == "response_item":
            continue
        ts = parse_ts(rec.timestamp)
        if rtype == "session_meta":
            metas += 1
            sid = payload.id
            if isinstance(sid, str) and sid:
                if metas == 1:
                    session = sid
                else:
                    parent = sid  # a fork's second session_meta is its parent's
            if isinstance(payload.cwd, str):
                result.projects.setdefault(session, payload.cwd)
            spawned = spawned or "thread_spawn" in str(payload.source or "")
            fork = fork or metas >= 2 or spawned
            continue
        if rtype == "turn_context":
            if isinstance(payload.model, str):
                model = payload.model
            continue
        if rtype == "compacted" or (rtype == "event_msg" and ptype == "context_compacted"):
            compaction = f"{rtype if rtype == 'compacted' else 'context_compacted'} marker"
            result.events.append(
                Event(session, _thread(fork, session), "compaction", ts, compaction)
            )
            continue
        if rtype == "event_msg" and ptype == "user_message":
            turn += 1
            result.prompts[session] = result.prompts.get(session, 0) + 1
            continue
        if rtype == "event_msg" and ptype == "thread_spawn":
            fork = spawned = True
            continue
        if rtype == "turn.completed":  # headless `codex exec --json`
            counts = _counts(rec.usage)
            if counts is None:
                notes["invalid_usage"] += 1
                continue
            notes["usage_lines"] += 1
            req = _request(session, fork, path, lineno, ts, model, counts, turn)
            result.requests.append(req)
            notes["fallback_model"] += req.fallback_model
            continue
        if rtype != "event_msg" or ptype != "token_count":
            continue
        info = payload.info
        if not isinstance(info, dict):
            continue  # rate-limit-only refresh
        notes["usage_lines"] += 1
        total = _counts(info.get("total_token_usage")) if "total_token_usage" in info else None
        last = _counts(info.get("last_token_usage")) if "last_token_usage" in info else None
        if total is None and last is None:
            notes["invalid_usage"] += 1
            continue
        # A fork's opening rows, each within BURST_S of the one before, are its replay when
        # the parent's log is not at hand (collect.merge matches them by content when it is).
        burst = (
            burst and fork and (last_row is None or (ts is not None and ts - last_row <= BURST_S))
        )
        last_row = ts if ts is not None else last_row
        if total is not None and total == prev:
            notes["reemits"] += 1
            continue
        if total is not None and (
            prev is None or all(t >= p for t, p in zip(total, prev, strict=True))
        ):
            base = prev or (0, 0, 0, 0)
            delta = tuple(t - p for t, p in zip(total, base, strict=True))
        elif last is not None:
            if total is not None:
                notes["backwards_totals"] += 1
            delta = last
        else:
            notes["backwards_totals"] += 1
            prev = total
            continue
        prev = total if total is not None else prev
        row_model = info.get("model") if isinstance(info.get("model"), str) else model
        a, b, c, d = delta
        req = _request(session, fork, path, lineno, ts, row_model, (a, b, c, d), turn)
        req.fingerprint = (*(total or ()), -1, *(last or ()))
        req.burst = burst
        if compaction is not None:
            req.compaction, compaction = compaction, None
        result.requests.append(req)
        notes["fallback_model"] += req.fallback_model
    # A fork is a session of its own, named after its own thread; a spawned subagent's
    # requests are that session's agent thread.
    result.session, result.parent = session, parent
    thread = f"agent:{session[:8]}" if spawned else "main"
    for r in result.requests:
        r.thread = thread
    for e in result.events:
        e.thread = thread
    for r in result.requests:
        r.project = result.projects.get(r.session, "")
    if result.requests:
        result.requests[0].first_in_file = True
    return result


def _thread(fork: bool, session: str) -> str:
    return f"agent:{session[:8]}" if fork else "main"


BURST_S = 1.0


def _request(
    session: str,
    fork: bool,
    path: str,
    lineno: int,
    ts: float | None,
    model: str | None,
    counts: tuple[int, int, int, int],
    turn: int,
) -> Request:
    inp, cached, out, written = counts
    return Request(
        SOURCE,
        session,
        _thread(fork, session),
        f"{path}:{lineno}",
        ts,
        ts,
        model or FALLBACK_MODEL,
        uncached=max(inp - cached - written, 0),
        read=cached,
        write_5m=written,
        output=out,
        file=path,
        line=lineno,
        turn=turn,
        fallback_model=model is None,
    )
