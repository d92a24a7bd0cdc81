"""The report as one self-contained HTML page (inline CSS and SVG, no script, no network): a
summary of where the money went, then a timeline per session: one stacked bar per request
(cache read / write / uncached input), the idle gap before it drawn as a band shaded red where
it outlasted the cache TTL, and each cache break marked in its cause's colour. Pure: returns
the text. No prompt or output text appears (the report holds none unless --show-text)."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from html import escape
from typing import Any

from ..cache.defaults import UNPRICED_TTL_SECONDS
from .report import headline

COLORS = {
    "read": "#2e9d5b", "write": "#e8912d", "uncached": "#5b7bd5",
    "model_switch": "#8e44ad", "compaction": "#16a2b8", "ttl_expiry": "#d63031",
    "history_rewrite": "#b8860b", "subagent_cold_start": "#7f8c8d", "session_cold_start": "#95a5a6",
    "prefix_change": "#e84393", "unknown": "#2d3436",
}  # fmt: skip
BAR, GAP_MAX, HEIGHT, TOP = 14, 40, 160, 28

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:12px;height:12px;
vertical-align:middle;margin-right:4px;border-radius:2px}
.timeline{overflow-x:auto;border:1px solid #eee;margin:6px 0 18px}
.note{color:#666;font-size:12px}
"""


def _usd(v: str | None) -> str:
    return "unpriced" if v is None else f"${float(v):,.4f}"


def _legend() -> str:
    items = [("read", "cache read"), ("write", "cache write"), ("uncached", "uncached input")]
    items += [(c, c.replace("_", " ")) for c in COLORS if c not in ("read", "write", "uncached")]
    spans = "".join(
        f'<span><i class="sw" style="background:{COLORS[k]}"></i>{escape(t)}</span>'
        for k, t in items
    )
    return (
        f'<p class="legend">{spans}<span><i class="sw" style="background:#fbe3e3"></i>'
        'idle gap past the TTL</span><span><i class="sw" style="background:#eef2f5"></i>'
        "idle gap within the TTL</span></p>"
    )


def _timeline(reqs: list[dict[str, Any]]) -> str:
    peak = max((r["cache_read"] + _write(r) + r["uncached_input"] for r in reqs), default=1) or 1
    x: float = 40
    parts: list[str] = []
    for r in reqs:
        gap, ttl = r["gap_s"], r["ttl_s"] or UNPRICED_TTL_SECONDS
        if gap is not None and gap > 0:
            # Width grows with the gap relative to the TTL, so a long idle stands out.
            w = max(2, min(GAP_MAX, int(6 * gap / ttl) + 2))
            over = gap > ttl
            fill = "#fbe3e3" if over else "#eef2f5"
            label = f"idle {gap:.0f}s, TTL {ttl}s" + (" (expired)" if over else "")
            parts.append(
                f'<rect class="gap{" over" if over else ""}" x="{x}" y="{TOP}" width="{w}" '
                f'height="{HEIGHT}" fill="{fill}"><title>{escape(label)}</title></rect>'
            )
            x += w + 1
        y: float = TOP + HEIGHT
        tip = (
            f"{r['first'] or ''} {r['thread']} {r['model']}: read {r['cache_read']:,}, "
            f"write {_write(r):,}, uncached {r['uncached_input']:,}, out {r['output']:,}, "
            f"{_usd(r['usd'])}"
        )
        for kind, n in (
            ("read", r["cache_read"]),
            ("write", _write(r)),
            ("uncached", r["uncached_input"]),
        ):
            h = n / peak * HEIGHT
            if h <= 0:
                continue
            y -= h
            parts.append(
                f'<rect class="{kind}" x="{x}" y="{y:.1f}" width="{BAR}" height="{h:.1f}" '
                f'fill="{COLORS[kind]}"><title>{escape(tip)}</title></rect>'
            )
        if r["break"]:
            c = COLORS.get(r["break"], "#000")
            cx = x + BAR / 2
            parts.append(
                f'<path class="break {escape(r["break"])}" '
                f'd="M{cx - 6},{TOP - 16} L{cx + 6},{TOP - 16} '
                f'L{cx},{TOP - 4} Z" fill="{c}"><title>{escape(r["break"])}</title></path>'
            )
        x += BAR + 2
    width = x + 20
    axis = (
        f'<line x1="36" y1="{TOP + HEIGHT}" x2="{width}" y2="{TOP + HEIGHT}" stroke="#999"/>'
        f'<text x="2" y="{TOP + 10}" font-size="10">{peak:,}</text>'
        f'<text x="2" y="{TOP + HEIGHT}" font-size="10">0</text>'
    )
    return (
        f'<div class="timeline"><svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{TOP + HEIGHT + 12}" role="img">{axis}{"".join(parts)}</svg></div>'
    )


def _write(r: dict[str, Any]) -> int:
    return int(r["cache_write_5m"] + r["cache_write_1h"] + r["cache_write_unsplit"])


def page(report: dict[str, Any], title: str = "prefixlock analyze: cache report") -> str:
    t = report["totals"]
    out = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1><p>{escape(headline(report))}</p>",
        '<h2>Where the money went</h2><table id="money">',
        '<tr><th class="l">billed as</th><th>$</th></tr>',
    ]
    for k, v in sorted(t["usd_by_part"].items(), key=lambda kv: -float(kv[1] or 0)):
        out.append(f'<tr><td class="l">{escape(k.replace("_", " "))}</td><td>{_usd(v)}</td></tr>')
    out.append(f'<tr><th class="l">total</th><th>{_usd(t["usd"])}</th></tr></table>')
    out.append(
        '<table id="lost"><tr><th class="l">lost to cache breaks, by cause</th>'
        "<th>$</th><th>breaks</th></tr>"
    )
    for cause, n in sorted(t["breaks"].items()):
        out.append(
            f'<tr><td class="l"><i class="sw" style="background:{COLORS.get(cause, "#000")}"></i>'
            f"{escape(cause)}</td><td>{_usd(t['lost_by_cause'].get(cause, '0'))}</td>"
            f"<td>{n}</td></tr>"
        )
    out.append(
        '<tr><th class="l">ceiling (every reusable token read)</th>'
        f"<th>{_usd(t['ceiling_usd'])}</th><th></th></tr></table>"
    )
    out.append(
        '<h2>Sessions</h2><table id="sessions"><tr><th class="l">session</th>'
        '<th class="l">source</th>'
        "<th>requests</th><th>hit%</th><th>$</th><th>$ lost</th></tr>"
    )
    for s in report["sessions"]:
        hit = "N/A" if s["hit_rate"] is None else f"{s['hit_rate']:.1%}"
        out.append(
            f'<tr><td class="l">{escape(s["session"])}</td><td class="l">{escape(s["source"])}</td>'
            f"<td>{s['requests']}</td><td>{hit}</td><td>{_usd(s['usd'])}</td>"
            f"<td>{_usd(s['lost_usd'])}</td></tr>"
        )
    out.append("</table><h2>Timelines</h2>" + _legend())
    by_session: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in report["requests"]:
        by_session.setdefault((r["source"], r["session"]), []).append(r)
    for (src, sid), reqs in by_session.items():
        reqs = sorted(reqs, key=lambda r: r["first"] or "")
        out.append(
            f'<h3 class="session">{escape(sid)} <span class="note">({escape(src)}, '
            f"{len(reqs)} requests)</span></h3>"
        )
        out.append(_timeline(reqs))
    notes = "; ".join(f"{v['count']} {v['what']}" for v in report["notes"].values())
    out.append(
        f'<p class="note">{escape(report["price_basis"])}. schema_version '
        f"{report['schema_version']}. {escape(notes)}</p></body></html>\n"
    )
    return "\n".join(out)
