"""`/dashboard`: the proxy's web page for a team: totals, the dollars lost by each cause of a
cache break, spend per key, user and agent, every session's hit rate, dollars and breaks, and
the timelines `prefixlock analyze --html` draws (one stacked bar per request: cache read, write
and uncached input, idle gaps past the TTL shaded, each break marked) for the sessions that
re-billed most.

Pure: rows in, one self-contained HTML page out (no script, no outside resource; it reloads
itself every 10 s). Every value is escaped.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from html import escape
from typing import Any

from ..analyze.html import legend, timeline

_STYLE = """
body{font:14px system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;min-width:600px}
th,td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}
.bar{display:inline-block;height:10px;background:#2a7;vertical-align:middle}
.tiles{display:flex;gap:16px}.tile{border:1px solid #ccc;padding:10px 16px;border-radius:6px}
.tile b{display:block;font-size:20px}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:12px;
height:12px;vertical-align:middle;margin-right:4px;border-radius:2px}
.timeline{border:1px solid #eee;margin:6px 0 18px;max-width:1200px}
.timeline svg{display:block;width:100%;height:auto}.note{color:#666;font-size:12px}
"""


def _money(value: Any) -> str:
    return f"${Decimal(str(value)):.4f}"


def _rate(value: float) -> str:
    width = max(0, min(100, round(value * 100)))
    return f'<span class="bar" style="width:{width}px"></span> {value:.1%}'


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], name: str) -> str:
    if not rows:
        return f'<p id="{name}-empty">none yet</p>'
    out = [f'<table id="{name}"><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    return "\n".join(out) + "</table>"


def render(
    sessions: Sequence[Mapping[str, Any]],
    team: Sequence[Mapping[str, Any]],
    lost: Mapping[str, Decimal],
    upstream: str,
    timelines: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> str:
    """The page. `sessions`: `proxy --stats --json` rows; `team`: `TeamLedger.rows()`;
    `lost`: dollars per break cause over all requests; `timelines`: {session id: its requests
    as `observe.timeline_row`s, oldest first}, drawn in that order."""
    requests = sum(int(s["requests"]) for s in sessions)
    cost = sum((Decimal(str(s["cost"])) for s in sessions), Decimal(0))
    saved = sum((Decimal(str(s["saved"])) for s in sessions), Decimal(0))
    weights = [(float(s["hit_rate"]), int(s["requests"])) for s in sessions]
    hit = sum(r * n for r, n in weights) / requests if requests else 0.0
    tiles = [
        ("sessions", str(len(sessions))),
        ("requests", f"{requests:,}"),
        ("hit rate (by request)", f"{hit:.1%}"),
        ("spent", _money(cost)),
        ("saved by the cache", _money(saved)),
        ("lost to breaks", _money(sum(lost.values(), Decimal(0)))),
    ]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<meta http-equiv='refresh' content='10'><title>prefixlock proxy</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>prefixlock proxy &rarr; {escape(upstream)}</h1>",
        '<div class="tiles">'
        + "".join(
            f'<div class="tile" id="tile-{i}">{escape(k)}<b>{escape(v)}</b></div>'
            for i, (k, v) in enumerate(tiles)
        )
        + "</div>",
        "<h2>Dollars lost by cause</h2>",
        _table(
            ["cause", "dollars"],
            [[escape(c), _money(d)] for c, d in sorted(lost.items(), key=lambda kv: -kv[1])],
            "lost",
        ),
        "<h2>Spend by key, user and agent</h2>",
        _table(
            ["key (hash)", "user", "agent", "requests", "hit rate", "spent", "saved"],
            [
                [
                    escape(t["key"]),
                    escape(t["user"] or "-"),
                    escape(t["agent"] or "-"),
                    f"{t['requests']:,}",
                    _rate(float(t["hit_rate"])),
                    _money(t["cost"]),
                    _money(t["saved"]),
                ]
                for t in team
            ],
            "team",
        ),
        "<h2>Sessions</h2>",
        _table(
            ["session", "model", "api", "requests", "hit rate", "spent", "saved", "breaks"],
            [
                [
                    escape(str(s["session_id"])),
                    escape(str(s["model"])),
                    escape(str(s["api"])),
                    f"{int(s['requests']):,}",
                    _rate(float(s["hit_rate"])),
                    _money(s["cost"]),
                    _money(s["saved"]),
                    escape(
                        ", ".join(f"{c} ({t:,} tok)" for c, t in sorted(s["breaks"].items())) or "-"
                    ),
                ]
                for s in sessions
            ],
            "sessions",
        ),
    ]
    if timelines:
        parts += ["<h2>Timelines</h2>", legend()]
        for sid, rows in timelines.items():
            parts.append(
                f'<h3 class="session">{escape(sid)} <span class="note">({len(rows):,} '
                "requests)</span></h3>"
            )
            parts.append(timeline([dict(r) for r in rows]))
    parts.append("</body></html>")
    return "\n".join(parts)
