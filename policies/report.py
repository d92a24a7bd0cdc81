"""The trace report: every cache break in a trace, where its first divergent byte is, why, and
what it re-billed.

For each session, consecutive requests are cut into cache units with `prefixlock.cache.units` (the
same definition the guard and the emulator use). The first unit whose chained hash differs is
the break; the byte offset is counted in the stream of unit bytes in hashing order. What the
previous request left readable (its ceiling, `prefixlock.cache.ceiling`: up to its last
breakpoint, or its prompt in whole 128-token blocks) minus what still matches is re-billed:
those tokens are paid at the write (or plain input) price instead of the read price. A
divergence only in what the previous request left uncached (volatile text after its last
breakpoint, or its newest message under automatic caching: the PL505 rule,
`tracecheck.reusable_floor`) is no break. A gap past the TTL re-bills everything without a byte
changing. Pure apart from reading the trace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from prefixlock.billing.prices import Price, PriceTable
from prefixlock.billing.usage import Usage, parse_usage
from prefixlock.cache.anthropic import shortest_ttl
from prefixlock.cache.ceiling import cacheable, readable
from prefixlock.cache.defaults import model_min_tokens, model_ttl
from prefixlock.cache.openai import whole_blocks
from prefixlock.cache.rules import writes_at_breakpoints
from prefixlock.cache.units import (
    Unit,
    anthropic_message_settings,
    anthropic_units,
    as_blocks,
    message_unit_data,
    openai_settings,
    openai_units,
    without_breakpoints,
    without_cache_control,
)
from prefixlock.canonical import canonical_bytes

from .tracecheck import (
    Bad,
    Record,
    compare,
    read_records,
    reusable_floor,
    snippet,
    tools_change,
    view_of,
    volatile_hint,
)


def unit_bytes(api: str, body: Mapping[str, Any]) -> list[tuple[str, str, bytes]]:
    """(section, label, bytes) of each hashed piece, in the order the cache hashes them.

    Mirrors `prefixlock.cache.units`: settings are folded into the chain (a zero-token piece).
    """
    out: list[tuple[str, str, bytes]] = []
    if api == "anthropic":
        for t in body.get("tools") or []:
            label = f"tool {t.get('name', '?')}"
            out.append(("tools", label, canonical_bytes(without_cache_control(t))))
        system = body.get("system")
        for i, b in enumerate(as_blocks(system) if system is not None else []):
            out.append(("system", f"system block {i}", canonical_bytes(without_cache_control(b))))
        out.append(("settings", "tool_choice/thinking", anthropic_message_settings(body)))
        for mi, m in enumerate(body.get("messages") or []):
            role = str(m.get("role", ""))
            for bi, b in enumerate(as_blocks(m.get("content"))):
                out.append(
                    (
                        "messages",
                        f"message {mi} ({role}) block {bi}",
                        message_unit_data(role, canonical_bytes(without_cache_control(b))),
                    )
                )
        return out
    out.append(("settings", "settings", openai_settings(body)))
    if body.get("instructions") is not None:
        out.append(
            ("system", "instructions", canonical_bytes({"instructions": body["instructions"]}))
        )
    for t in body.get("tools") or []:
        out.append(("tools", "tool", canonical_bytes(t)))
    items = body.get("messages")
    if items is None:
        raw = body.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
    for i, m in enumerate(items or []):
        who = m.get("role") if isinstance(m, Mapping) else None
        section = "system" if who in ("system", "developer") else "messages"
        out.append((section, f"message {i} ({who})", canonical_bytes(without_breakpoints(m))))
    return out


def units_of(api: str, body: Mapping[str, Any]) -> list[Unit]:
    return anthropic_units(body) if api == "anthropic" else openai_units(body)


def readable_tokens(api: str, units: list[Unit], price: Price | None) -> int:
    """Tokens of this request that the next one could read from the cache (prefixlock.cache.
    ceiling).

    For an Anthropic request without any breakpoint this is what a breakpoint on its last
    block would have cached: the loss is then booked to the missing breakpoint. gpt-5.6 and
    later also write only at breakpoints (their units carry them: prefixlock.cache.units).
    """
    if not units:
        return 0
    minimum = model_min_tokens(price)
    breakpoints = writes_at_breakpoints(api, price.model if price is not None else "")
    if breakpoints and not any(u.breakpoint is not None for u in units):
        return cacheable(units[-1].end, minimum)
    return readable(units, breakpoints, minimum)


@dataclass
class Break:
    session: str
    seq: int
    line: int
    cause: str
    detail: str
    byte: int | None
    where: str
    rebilled_tokens: int
    dollars: Decimal | None
    reported_cache_read: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "seq": self.seq,
            "line": self.line,
            "cause": self.cause,
            "detail": self.detail,
            "first_divergent_byte": self.byte,
            "where": self.where,
            "rebilled_tokens": self.rebilled_tokens,
            "rebilled_dollars": None if self.dollars is None else str(self.dollars),
            "reported_cache_read": self.reported_cache_read,
        }


@dataclass
class SessionReport:
    session: str
    requests: int = 0
    breaks: list[Break] = field(default_factory=list)
    model: str = ""

    @property
    def rebilled_tokens(self) -> int:
        return sum(b.rebilled_tokens for b in self.breaks)

    @property
    def dollars(self) -> Decimal:
        return sum((b.dollars or Decimal(0) for b in self.breaks), Decimal(0))


@dataclass
class TraceReport:
    path: str
    sessions: list[SessionReport]
    bad_lines: list[tuple[int, str]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "sessions": [
                {
                    "session": s.session,
                    "model": s.model,
                    "requests": s.requests,
                    "rebilled_tokens": s.rebilled_tokens,
                    "rebilled_dollars": str(s.dollars),
                    "breaks": [b.to_dict() for b in s.breaks],
                }
                for s in self.sessions
            ],
            "bad_lines": [{"line": n, "message": m} for n, m in self.bad_lines],
            "total_rebilled_tokens": sum(s.rebilled_tokens for s in self.sessions),
            "total_rebilled_dollars": str(sum((s.dollars for s in self.sessions), Decimal(0))),
        }


@dataclass
class _Prev:
    rec: Record
    pieces: list[tuple[str, str, bytes]]
    units: list[Unit]


def _dollars(price: Price | None, tokens: int, units: list[Unit], api: str) -> Decimal | None:
    if price is None:
        return None
    if api == "anthropic":
        marks = [u.breakpoint for u in units if u.breakpoint is not None]
        kind = "write_1h" if marks and marks[-1] == "1h" else ("write_5m" if marks else "uncached")
    else:
        kind = "write_5m" if price.cache_write_5m is not None else "uncached"
    return (price.input_cost(tokens, kind) - price.input_cost(tokens, "read")).quantize(
        Decimal("0.000001")
    )


def _ttl(prev: _Prev, price: Price | None) -> int:
    if prev.rec.api == "anthropic":
        return int(shortest_ttl(u.breakpoint for u in prev.units if u.breakpoint is not None))
    return model_ttl(price)


def reported_usage(rec: Record) -> Usage | None:
    """What the provider reported for this request: the normalized counters, or the raw
    usage parsed with the wire API's formula (real usage always wins over local counts)."""
    if rec.usage and any(k in rec.usage for k in ("uncached_input", "cache_read")):
        return Usage.from_dict(rec.usage)
    if rec.raw_usage:
        try:
            return parse_usage(rec.api, rec.raw_usage)
        except ValueError:
            return None
    return None


def _reported_read(rec: Record) -> int | None:
    u = reported_usage(rec)
    return None if u is None else u.cache_read


def _no_marks(p: _Prev) -> bool:
    return p.rec.api == "anthropic" and not any(u.breakpoint for u in p.units)


def _past_floor(prev: _Prev, idx: int) -> bool:
    """Does a divergence at piece `idx` touch only what `prev` left uncached (volatile text after
    its last breakpoint, or the newest message under automatic caching)? The same rule as
    PL505 (tracecheck.reusable_floor), in that function's positions: Anthropic units, whose
    positions skip the folded-in settings piece, or OpenAI input items, which follow the
    settings, instructions and tool units."""
    v = view_of(prev.rec)
    floor = reusable_floor(v)
    if floor is None:
        return False
    if prev.rec.api == "anthropic":
        pos = sum(1 for s, _, _ in prev.pieces[:idx] if s != "settings")
    else:
        pos = idx - (len(prev.pieces) - len(v.items))
    return pos >= floor


def diagnose_all(
    prev: _Prev,
    rec: Record,
    pieces: list[tuple[str, str, bytes]],
    units: list[Unit],
    price: Price | None,
    new_price: Price | None = None,
) -> list[Break]:
    """Every cache break between two consecutive requests: the first divergence (with the
    other parts that changed too), and the missing breakpoint that kept the rest unread."""
    out: list[Break] = []
    main = diagnose(prev, rec, pieces, units, price, new_price)
    readable = readable_tokens(prev.rec.api, prev.units, price)
    if main is not None:
        others = [
            d.message.split(":")[0].split(" (")[0] for d in compare(view_of(prev.rec), view_of(rec))
        ]
        others = [o for o in others if not o.startswith(main.cause.split()[0])]
        if others:
            main.detail += "; also " + "; ".join(dict.fromkeys(others))
        out.append(main)
    if _no_marks(prev) and readable:
        kept = readable - (main.rebilled_tokens if main is not None else 0)
        if main is not None and main.cause == "model changed":
            kept = 0
        if kept > 0:
            out.append(
                Break(
                    rec.session,
                    rec.seq,
                    rec.line,
                    "no breakpoint",
                    "the previous request set no cache_control, so nothing was "
                    "written to read back",
                    None,
                    "whole request",
                    kept,
                    _dollars(price, kept, units, rec.api),
                    _reported_read(rec),
                )
            )
    return out


def diagnose(
    prev: _Prev,
    rec: Record,
    pieces: list[tuple[str, str, bytes]],
    units: list[Unit],
    price: Price | None,
    new_price: Price | None = None,
) -> Break | None:
    """The first cache break between two consecutive requests, if any.

    `price` is the previous request's model (its minimum and TTL decide what was cached);
    the tokens a model change re-bills are paid on the new model, so they are priced with
    `new_price` (the request's own model, as the cache guard prices them)."""
    readable = readable_tokens(prev.rec.api, prev.units, price)
    sess, seq = rec.session, rec.seq
    reported = _reported_read(rec)
    if prev.rec.model != rec.model:
        return Break(
            sess,
            seq,
            rec.line,
            "model changed",
            f"{prev.rec.model} -> {rec.model}; the cache is per model",
            0,
            "model",
            readable,
            _dollars(new_price or price, readable, units, rec.api),
            reported,
        )
    # First differing piece, and the byte offset in the stream of pieces.
    offset = 0
    idx = None
    for i, (a, b) in enumerate(zip(prev.pieces, pieces, strict=False)):
        if a[2] != b[2]:
            idx = i
            break
        offset += len(a[2])
    if idx is None and len(pieces) < len(prev.pieces):
        idx = len(pieces)
    if idx is not None and prev.pieces[idx][0] == "messages" and _past_floor(prev, idx):
        idx = None  # only what followed the last breakpoint changed: nothing cached was lost
    gap = None
    if prev.rec.time is not None and rec.time is not None:
        gap = rec.time - prev.rec.time
    if idx is None:
        if gap is not None and gap > _ttl(prev, price) and readable:
            return Break(
                sess,
                seq,
                rec.line,
                "ttl expired",
                f"{gap:.0f} s idle, past the {_ttl(prev, price)} s TTL",
                None,
                "whole prefix",
                readable,
                _dollars(price, readable, units, rec.api),
                reported,
            )
        if (
            rec.api != "anthropic"
            and prev.rec.cache_key is not None
            and prev.rec.cache_key != rec.cache_key
            and readable
        ):
            return Break(
                sess,
                seq,
                rec.line,
                "cache key changed",
                f"{prev.rec.cache_key!r} -> {rec.cache_key!r}: routed to another machine",
                None,
                "prompt_cache_key",
                readable,
                _dollars(price, readable, units, rec.api),
                reported,
            )
        return None
    section, label, old = prev.pieces[idx]
    new = pieces[idx][2] if idx < len(pieces) else b""
    within = next(
        (k for k in range(min(len(old), len(new))) if old[k] != new[k]), min(len(old), len(new))
    )
    byte = offset + within
    # Tokens still matching: the units before the divergent piece (settings have no unit).
    unit_pos = sum(
        1 for s, _, _ in prev.pieces[:idx] if not (s == "settings" and rec.api == "anthropic")
    )
    common = prev.units[unit_pos - 1].end if unit_pos > 0 and unit_pos - 1 < len(prev.units) else 0
    if rec.api != "anthropic":
        common = whole_blocks(common)
    rebilled = max(0, readable - common)
    new_text = new.decode("utf-8", "replace")
    cause = {
        "tools": "tools changed",
        "system": "system prompt changed",
        "settings": "settings changed",
        "messages": "history rewritten",
    }.get(section, section + " changed")
    if section == "tools":
        pt = [p for p in prev.pieces if p[0] == "tools"]
        ct = [p for p in pieces if p[0] == "tools"]
        detail = tools_change([json.loads(p[2]) for p in pt], [json.loads(p[2]) for p in ct])
    elif section == "settings":
        detail = f"{label} differ"
    else:
        at = max(0, within)
        text_at = new_text
        detail = f"'{snippet(text_at, min(at, len(text_at)))}'" + volatile_hint(
            text_at[max(0, at - 12) : at + 24]
        )
    if gap is not None and gap > _ttl(prev, price) and readable:
        detail += f"; also {gap:.0f} s idle, past the TTL"
        rebilled = readable
    if rebilled == 0 and reported is None:
        return Break(
            sess,
            seq,
            rec.line,
            cause,
            detail + " (nothing cached was lost)",
            byte,
            label,
            0,
            Decimal(0) if price else None,
            reported,
        )
    return Break(
        sess,
        seq,
        rec.line,
        cause,
        detail,
        byte,
        label,
        rebilled,
        _dollars(price, rebilled, units, rec.api),
        reported,
    )


def build_report(
    path: str,
    prices: PriceTable | None,
    records: Iterable[Record | Bad] | None = None,
    provider: str | None = None,
) -> TraceReport:
    """The report of one trace; `provider` decides the wire format of ambiguous raw bodies."""
    sessions: dict[str, SessionReport] = {}
    prev: dict[str, _Prev] = {}
    bad: list[tuple[int, str]] = []
    for item in records if records is not None else read_records(path, provider=provider):
        if isinstance(item, Bad):
            bad.append((item.line, item.message))
            continue
        rec = item
        rep = sessions.setdefault(rec.session, SessionReport(rec.session))
        rep.requests += 1
        rep.model = rep.model or rec.model
        pieces = unit_bytes(rec.api, rec.body)
        units = units_of(rec.api, rec.body)
        p = prev.get(rec.session)
        if p is not None:
            price = prices.lookup(p.rec.model) if prices else None
            new_price = prices.lookup(rec.model) if prices else None
            rep.breaks.extend(diagnose_all(p, rec, pieces, units, price, new_price))
        prev[rec.session] = _Prev(rec, pieces, units)
    return TraceReport(path, list(sessions.values()), bad)


def by_cause(reports: Iterable[TraceReport]) -> list[tuple[str, int, int, Decimal]]:
    """(cause, breaks, tokens re-billed, dollars) over all sessions, costliest first."""
    acc: dict[str, list[Any]] = {}
    for r in reports:
        for s in r.sessions:
            for b in s.breaks:
                row = acc.setdefault(b.cause, [0, 0, Decimal(0)])
                row[0] += 1
                row[1] += b.rebilled_tokens
                row[2] += b.dollars or Decimal(0)
    rows = [(c, int(n), int(t), Decimal(d)) for c, (n, t, d) in acc.items()]
    return sorted(rows, key=lambda r: (-r[3], -r[2], r[0]))


def render_summary(reports: list[TraceReport]) -> str:
    """The summary by cause that leads the text report: what to fix first."""
    rows = by_cause(reports)
    requests = sum(s.requests for r in reports for s in r.sessions)
    sessions = sum(len(r.sessions) for r in reports)
    out = [
        f"summary: {requests} request(s) in {sessions} session(s), "
        f"{sum(n for _, n, _, _ in rows)} cache break(s)"
    ]
    for cause, n, tokens, dollars in rows:
        out.append(f"  {cause}: {n} break(s), {tokens:,} tokens re-billed, ${dollars:.4f}")
    if not rows:
        out.append("  no cache breaks")
    return "\n".join(out) + "\n"


# Consecutive breaks of one session with the same cause and place are one line past this many.
_RUN = 3


def _break_line(b: Break) -> str:
    money = "unpriced" if b.dollars is None else f"${b.dollars:.4f}"
    at = "-" if b.byte is None else f"byte {b.byte:,}"
    return (
        f"  request {b.seq} (line {b.line}): {b.cause} at {at} in {b.where}: "
        f"{b.detail}; re-billed {b.rebilled_tokens:,} tokens, {money}"
        + (
            ""
            if b.reported_cache_read is None
            else f" (reported cache read {b.reported_cache_read:,})"
        )
    )


def _runs(breaks: list[Break]) -> list[list[Break]]:
    runs: list[list[Break]] = []
    for b in breaks:
        if runs and runs[-1][-1].cause == b.cause and runs[-1][-1].where == b.where:
            runs[-1].append(b)
        else:
            runs.append([b])
    return runs


def render_text(report: TraceReport) -> str:
    out = [f"trace {report.path}: {len(report.sessions)} session(s)"]
    total_t = 0
    total_d = Decimal(0)
    for s in report.sessions:
        out.append(
            f"session {s.session} ({s.model}, {s.requests} requests): "
            f"{len(s.breaks)} cache break(s), {s.rebilled_tokens:,} tokens re-billed, "
            f"${s.dollars:.4f}"
        )
        for run in _runs(s.breaks):
            if len(run) < _RUN:
                out.extend(_break_line(b) for b in run)
                continue
            out.append(_break_line(run[0]))
            rest = run[1:]
            tokens = sum(b.rebilled_tokens for b in rest)
            dollars = sum((b.dollars or Decimal(0) for b in rest), Decimal(0))
            out.append(
                f"  ... and {len(rest)} more {run[0].cause} break(s) in "
                f"{run[0].where}, requests {rest[0].seq}-{rest[-1].seq} (lines "
                f"{rest[0].line}-{rest[-1].line}): {tokens:,} tokens re-billed, "
                f"${dollars:.4f}"
            )
        total_t += s.rebilled_tokens
        total_d += s.dollars
    for n, m in report.bad_lines:
        out.append(f"{report.path}:{n}: {m}")
    out.append(f"total: {total_t:,} tokens re-billed, ${total_d:.4f}")
    return "\n".join(out) + "\n"
