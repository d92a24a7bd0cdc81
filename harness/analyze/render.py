"""The report as text: a rich table (sessions, or turns/requests/agents/models/days, then the
costliest breaks and a headline), JSON (the report data, schema_version 1) and CSV (one row per
request, for spreadsheets). No prompt or output text appears unless --show-text added it."""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import os
from collections.abc import Collection, Iterable
from typing import IO, TYPE_CHECKING, Any

import msgspec

from .report import CAUSES, REQUEST_FIELDS, SCHEMA_VERSION, Encoded, Rows, by_loss, headline
from .report import usd_text as _usd

if TYPE_CHECKING:
    from rich.table import Table

    from .analysis import Analysis

CSV_FIELDS = REQUEST_FIELDS  # one row per request, its record's fields


def _encode(obj: Any) -> str:
    try:
        return msgspec.json.encode(obj).decode("utf-8")
    except (UnicodeError, TypeError, OverflowError):  # a lone surrogate from a file name
        return json.dumps(obj, default=_plain)


def _plain(obj: Any) -> Any:
    return msgspec.structs.asdict(obj) if isinstance(obj, msgspec.Struct) else list(obj)


_BATCH = 1000
INDENTED = 2000  # reports of this many requests or fewer are indented, for people to read


def write_json(report: dict[str, Any], out: IO[str]) -> None:
    """The report as one JSON document, written as it is made: the per-request and per-break
    records one at a time, never the whole text in memory."""
    if len(report["requests"]) <= INDENTED:
        out.write(json.dumps(report, indent=1, ensure_ascii=False, default=list) + "\n")
        return
    raw = _bytes_of(out)
    written = 0
    out.write("{")
    for i, (key, value) in enumerate(report.items()):
        out.write(("," if i else "") + json.dumps(key) + ":")
        if isinstance(value, Encoded) and raw is not None:
            out.flush()
            for piece in value.array():
                raw.write(piece)
                written += len(piece)
                if written >= WRITEBACK_BYTES:
                    _write_back(raw)
                    written = 0
        elif isinstance(value, Encoded):
            out.write("[")
            _copy(value.chunks(), out)
            out.write("]")
        elif isinstance(value, Rows):
            out.write("[")
            # A thousand records an encoding: one call and one write each, not a thousand.
            for j in range(0, len(value), _BATCH):
                text = _encode(value.records(j, j + _BATCH))
                out.write(("," if j else "") + text[1:-1])
            out.write("]")
        else:
            out.write(_encode(value))
    out.write("}\n")


_COPY_BYTES = 1 << 20


WRITEBACK_BYTES = 16 << 20


def _write_back(raw: IO[bytes]) -> None:
    # A gigabyte of logs makes a report of a few hundred megabytes: the disk is set writing
    # them while the rest is copied (Linux writes a file's dirty pages out when asked to drop
    # them, and drops only those already written), so that the fsync that makes the file
    # whole (atomicfile) waits for the last few megabytes, not all of them.
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        raw.flush()
        os.posix_fadvise(raw.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def _bytes_of(out: IO[str]) -> IO[bytes] | None:
    """The binary file under `out` where its text is UTF-8 (records encoded where they were
    made are written to it as they are)."""
    raw: IO[bytes] | None = getattr(out, "buffer", None)
    if raw is not None and codecs.lookup(getattr(out, "encoding", "") or "ascii").name != "utf-8":
        return None
    return raw


def _copy(chunks: Iterable[bytes | memoryview], out: IO[str]) -> None:
    # Records encoded where they were made (UTF-8): joined a megabyte at a time, not one write
    # each, and written as bytes where the text would be UTF-8 again.
    raw = _bytes_of(out)
    if raw is not None:
        out.flush()
    held: list[bytes | memoryview] = []
    size, sep = 0, b""
    for b in chunks:
        held.append(b)
        size += len(b)
        if size >= _COPY_BYTES:
            _put(sep + b",".join(held), out, raw)
            held, size, sep = [], 0, b","
    if held:
        _put(sep + b",".join(held), out, raw)


def _put(data: bytes, out: IO[str], raw: IO[bytes] | None) -> None:
    if raw is None:
        out.write(data.decode("utf-8"))
    else:
        raw.write(data)


def to_json(report: dict[str, Any]) -> str:
    buf = io.StringIO()
    write_json(report, buf)
    return buf.getvalue()


JSONL_KINDS = ("sessions", "turns", "agents", "requests", "breaks", "events")


def write_jsonl(report: dict[str, Any], out: IO[str]) -> None:
    """One JSON object a line: a header (schema_version, totals, notes), then one line per
    session, turn, agent, request, break and event, each with its `record` kind."""
    head = {
        "record": "report",
        "schema_version": report["schema_version"],
        "price_basis": report["price_basis"],
        "files": report["files"],
        "totals": report["totals"],
        "notes": report["notes"],
    }
    out.write(_encode(head) + "\n")
    for kind in JSONL_KINDS:
        record = kind[:-1]
        for row in report[kind]:
            out.write(_encode({"record": record, **row}) + "\n")


def to_jsonl(report: dict[str, Any]) -> str:
    buf = io.StringIO()
    write_jsonl(report, buf)
    return buf.getvalue()


def write_csv(report: dict[str, Any], out: IO[str]) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("schema_version", *CSV_FIELDS))
    for r in report["requests"]:
        w.writerow((SCHEMA_VERSION, *("" if r[k] is None else r[k] for k in CSV_FIELDS)))


def to_csv(report: dict[str, Any]) -> str:
    buf = io.StringIO()
    write_csv(report, buf)
    return buf.getvalue()


def attach_prompts(report: dict[str, Any], result: Analysis) -> None:
    """--show-text: each turn row gets its human prompt's first words."""
    texts = result.collected.texts
    turns = list(report["turns"])  # made once here, to carry the text
    for t in turns:
        text = texts.get((t["source"], t["session"], t["turn"]))
        if text is not None:
            t["prompt"] = text
    report["turns"] = turns


def _pct(x: float | None) -> str:
    return "N/A" if x is None else f"{x:.1%}"


def _hit(d: dict[str, Any]) -> str:
    if d["hit_rate"] is None:
        return "N/A"
    return f"{_pct(d['hit_rate'])} / {_pct(d['hit_rate_latest'])}"


def _breaks(d: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(d["breaks"].items())) or "-"


def _tok(d: dict[str, Any]) -> str:
    t = d["tokens"]
    w = t["cache_write_5m"] + t["cache_write_1h"] + t["cache_write_unsplit"]
    return f"{t['cache_read']:,} / {w:,} / {t['uncached_input']:,}"


# The figures of a group of requests (a session, a turn, an agent, a model, a day): `_figures`.
TOKENS = "read / write / uncached"
FIGURES = ("reqs", TOKENS, "hit%", "$", "$ lost")


def _figures(d: dict[str, Any]) -> list[str]:
    return [
        str(d["requests"]),
        _tok(d),
        _hit(d),
        _usd(d["usd"], d["unpriced"]),
        _usd(d["lost_usd"]),
    ]


SESSION_ROWS = 30  # the session table's rows; the rest are in the headline's totals


def _table(title: str, columns: Iterable[str], right: Collection[str] = ()) -> Table:
    from rich.table import Table

    tab = Table(title=title)
    for col in columns:
        tab.add_column(col, justify="right" if col in right else "left")
    return tab


def to_table(
    report: dict[str, Any],
    by: str = "session",
    top: int = 10,
    session: str | None = None,
    color: bool = False,
) -> str:
    from rich.console import Console

    buf = io.StringIO()
    console = Console(
        file=buf, width=160, force_terminal=color, color_system="auto" if color else None
    )
    if session is not None and by == "session":
        by = "turn"
    if by == "session":
        ranked = by_loss(report["sessions"])
        shown = ranked[:SESSION_ROWS]
        title = "Sessions (hit% cumulative / latest request)"
        if len(ranked) > len(shown):
            title = (
                f"The {len(shown)} of {len(ranked):,} sessions that lost most to cache breaks "
                "(hit% cumulative / latest request; --format json lists every one)"
            )
        tab = _table(
            title,
            ("session", "source", "agents", *FIGURES, "breaks by cause", "top break"),
            right=("reqs", "$", "$ lost"),
        )
        for s in shown:
            tab.add_row(
                s["session"][:12],
                s["source"],
                str(len(s["threads"])),
                *_figures(s),
                _breaks(s),
                s["top_break"] or "-",
            )
    elif by == "turn":
        tab = _table("Turns", ("session", "turn", "time", "model", *FIGURES[:-1], "lost", "why"))
        for t in report["turns"]:
            why = _breaks(t)
            if "prompt" in t:
                why += f"  “{t['prompt']}”"
            tab.add_row(
                t["session"][:12],
                str(t["turn"]),
                (t["first"] or "")[11:19],
                ",".join(t["models"])[:28],
                *_figures(t),
                why,
            )
    elif by == "request":
        tab = _table(
            "Requests",
            ("session", "thread", "time", "gap", "model", TOKENS, "out", "hit%", "$", "break"),
        )
        for r in report["requests"]:
            w = r["cache_write_5m"] + r["cache_write_1h"] + r["cache_write_unsplit"]
            tab.add_row(
                r["session"][:12],
                r["thread"],
                (r["first"] or "")[11:19],
                "" if r["gap_s"] is None else f"{r['gap_s']:.0f}s",
                r["model"][:28],
                f"{r['cache_read']:,} / {w:,} / {r['uncached_input']:,}",
                f"{r['output']:,}",
                _pct(r["hit_rate"]),
                _usd(r["usd"]) if r["usd"] else "unpriced",
                r["break"] or "",
            )
    else:
        groups: list[tuple[str, dict[str, Any]]]
        if by == "agent":
            groups = [(k, v) for k, v in report["by_agent"].items()]
            groups += [(f"{a['session'][:12]} {a['thread']}", a) for a in report["agents"]]
        elif by == "model":
            groups = list(report["models"].items())
        else:
            groups = list(report["days"].items())
        tab = _table(f"By {by}", (by, *FIGURES, "breaks"))
        for name, d in groups:
            tab.add_row(name, *_figures(d), _breaks(d))
    console.print(tab)
    costly = sorted(
        (
            b
            for b in report["breaks"]
            if not b["inherent"] or b["cause"] in ("compaction", "unknown")
        ),
        key=lambda b: -float(b["usd_lost"] or 0),
    )[:top]
    if costly:
        bt = _table(
            "Costliest cache breaks (list price estimate)",
            ("at", "session", "thread", "cause", "confidence", "re-billed", "$ lost", "evidence"),
        )
        for b in costly:
            bt.add_row(
                (b["at"] or "")[:19],
                b["session"][:12],
                b["thread"],
                b["cause"],
                b["confidence"],
                f"{b['tokens_rebilled']:,}",
                _usd(b["usd_lost"]) if b["usd_lost"] else "unpriced",
                b["evidence"][:70],
            )
        console.print(bt)
    notes = report["notes"]
    skipped = [
        f"{v['count']} {v['what']}" for k, v in notes.items() if k not in ("lines", "usage_lines")
    ]
    if skipped:
        console.print("notes: " + "; ".join(skipped), highlight=False)
    console.print(headline(report), highlight=False)
    return buf.getvalue()


__all__ = [
    "CAUSES",
    "CSV_FIELDS",
    "headline",
    "to_csv",
    "to_json",
    "to_jsonl",
    "to_table",
    "write_csv",
    "write_json",
    "write_jsonl",
]
