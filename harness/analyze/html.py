"""The report as one self-contained HTML page (inline CSS, SVG and a few lines of script; nothing
fetched): a summary of where the money went, the sessions ranked by dollars lost, then a
timeline for each of the TOP_SESSIONS that lost most: one stacked bar per request (cache read /
write / uncached input) along a time axis, the idle gap before it drawn as a band shaded red
where it outlasted the cache TTL, and each cache break marked in its cause's colour. The other
sessions are one row each in a table a search box filters (closed until asked for, so that the
browser lays it out only then), so the page stays small (a few MB) and quick to open for
thousands of sessions. Pure: returns the text. No prompt or output text appears (the report
holds none unless --show-text)."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from html import escape
from typing import Any

from ..cache.defaults import UNPRICED_TTL_SECONDS
from .report import Encoded, Rows, by_loss, headline

COLORS = {
    "read": "#2e9d5b", "write": "#e8912d", "uncached": "#5b7bd5",
    "model_switch": "#8e44ad", "compaction": "#16a2b8", "ttl_expiry": "#d63031",
    "history_rewrite": "#b8860b", "subagent_cold_start": "#7f8c8d", "session_cold_start": "#95a5a6",
    "prefix_change": "#e84393", "unknown": "#2d3436",
}  # fmt: skip
BAR, GAP_MAX, HEIGHT, TOP = 14, 40, 160, 28
LEFT, WIDTH, AXIS = 48, 1100, 30  # the y labels' margin, the plot's width, the time axis' height
TOP_SESSIONS = 25  # sessions drawn as timelines; the rest are table rows

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:12px;height:12px;
vertical-align:middle;margin-right:4px;border-radius:2px}
.timeline{border:1px solid #eee;margin:6px 0 18px;max-width:1200px}
.timeline svg{display:block;width:100%;height:auto}
.note{color:#666;font-size:12px}
#rest{font-size:12px}#rest td{padding:1px 6px}
input#find{font:inherit;padding:3px 6px;width:24em}
"""
# Filters the table of the other sessions as one types, opening it (no network, no library).
SCRIPT = """
const box=document.getElementById('find'),rows=document.querySelectorAll('#rest tr.s');
box.addEventListener('input',()=>{const q=box.value.toLowerCase();
document.getElementById('more').open=true;
for(const r of rows){r.hidden=q!==''&&!r.textContent.toLowerCase().includes(q);}});
"""


def _usd(v: str | None) -> str:
    return "unpriced" if v is None else f"${float(v):,.4f}"


def legend() -> str:
    """The timelines' legend: what each bar colour and gap shade means."""
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


def _short(n: float) -> str:
    """A count in at most five characters (the y labels' margin fits them)."""
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e4:
        return f"{n / 1e3:.0f}K"
    return f"{n:,.0f}"


def _clock(iso: str | None, day: bool) -> str:
    if not iso:
        return ""
    return f"{iso[5:10]} {iso[11:16]}" if day else iso[11:16]


def timeline(reqs: list[dict[str, Any]]) -> str:
    """The session's requests left to right in time order, scaled to fit the page's width."""
    peak = max((r["cache_read"] + _write(r) + r["uncached_input"] for r in reqs), default=1) or 1
    # Widths first (bars, and gaps that grow with the idle time relative to the TTL), then
    # one scale so that the whole session fits: no sideways scrolling.
    gaps = []
    for r in reqs:
        gap, ttl = r["gap_s"], r["ttl_s"] or UNPRICED_TTL_SECONDS
        gaps.append(max(2, min(GAP_MAX, int(6 * gap / ttl) + 2)) if gap else 0)
    natural = sum(gaps) + len(gaps) * (BAR + 2) + sum(1 for g in gaps if g)
    k = min(1.0, WIDTH / max(natural, 1))
    bar = BAR * k
    x: float = LEFT + 4
    parts: list[str] = []
    ticks: list[str] = []
    last_tick = -1e9
    for r, gw in zip(reqs, gaps, strict=True):
        if gw:
            gap, ttl = r["gap_s"], r["ttl_s"] or UNPRICED_TTL_SECONDS
            over = gap > ttl
            fill = "#fbe3e3" if over else "#eef2f5"
            label = f"idle {gap:.0f}s, TTL {ttl}s" + (" (expired)" if over else "")
            w = gw * k
            parts.append(
                f'<rect class="gap{" over" if over else ""}" x="{x:.1f}" y="{TOP}" '
                f'width="{max(w, 1):.1f}" height="{HEIGHT}" fill="{fill}">'
                f"<title>{escape(label)}</title></rect>"
            )
            x += w + k
        if x - last_tick >= 90:  # a time label every 90 px or more
            day = last_tick < 0 or (r["gap_s"] or 0) > 6 * 3600
            ticks.append(
                f'<line x1="{x:.1f}" y1="{TOP + HEIGHT}" x2="{x:.1f}" y2="{TOP + HEIGHT + 4}" '
                f'stroke="#999"/><text x="{x:.1f}" y="{TOP + HEIGHT + 16}" font-size="10" '
                f'fill="#555">{escape(_clock(r["first"], day))}</text>'
            )
            last_tick = x
        y: float = TOP + HEIGHT
        tip = (
            f"{r['first'] or ''} {r['thread']} {r['model']}: read {r['cache_read']:,}, "
            f"write {_write(r):,}, uncached {r['uncached_input']:,}, out {r['output']:,}, "
            f"{_usd(r['usd'])}" + (f"; break: {r['break']}" if r["break"] else "")
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
                f'<rect class="{kind}" x="{x:.1f}" y="{y:.1f}" width="{max(bar, 1):.1f}" '
                f'height="{h:.1f}" fill="{COLORS[kind]}"><title>{escape(tip)}</title></rect>'
            )
        if r["break"]:
            c = COLORS.get(r["break"], "#000")
            cx = x + bar / 2
            parts.append(
                f'<path class="break {escape(r["break"])}" '
                f'd="M{cx - 6:.1f},{TOP - 16} L{cx + 6:.1f},{TOP - 16} '
                f'L{cx:.1f},{TOP - 4} Z" fill="{c}"><title>{escape(r["break"])}</title></path>'
            )
        x += bar + 2 * k
    width = max(x + 20, LEFT + WIDTH + 24)
    base = TOP + HEIGHT
    axis = (
        f'<line x1="{LEFT}" y1="{base}" x2="{width - 10:.0f}" y2="{base}" stroke="#999"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#999"/>'
        f'<text x="{LEFT - 4}" y="{TOP + 10}" font-size="10" text-anchor="end">'
        f"{_short(peak)}</text>"
        f'<text x="{LEFT - 4}" y="{base}" font-size="10" text-anchor="end">0</text>'
        f'<text x="{LEFT - 4}" y="{TOP + HEIGHT / 2 + 4}" font-size="10" text-anchor="end">'
        f"{_short(peak / 2)}</text>"
        f'<text x="4" y="{TOP - 8}" font-size="10" fill="#555">tokens in</text>'
    )
    height = base + AXIS
    return (
        f'<div class="timeline"><svg xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width:.0f} {height}" width="{width:.0f}" height="{height}" role="img">'
        f"{axis}{''.join(ticks)}{''.join(parts)}</svg></div>"
    )


def _write(r: dict[str, Any]) -> int:
    return int(r["cache_write_5m"] + r["cache_write_1h"] + r["cache_write_unsplit"])


def _when(r: dict[str, Any]) -> str:
    return str(r["first"] or "")


def _session_row(s: dict[str, Any], extra: bool = False) -> str:
    hit = "N/A" if s["hit_rate"] is None else f"{s['hit_rate']:.1%}"
    row = (
        f'<tr class="s"><td class="l">{escape(s["session"])}</td>'
        f'<td class="l">{escape(s["source"])}</td><td>{escape((s["first"] or "")[:16])}</td>'
        f"<td>{s['requests']:,}</td><td>{hit}</td><td>{_usd(s['usd'])}</td>"
        f'<td>{_usd(s["lost_usd"])}</td><td class="l">{escape(s["top_break"] or "-")}</td>'
    )
    if extra:
        what = " ".join([s.get("project") or "", *s["models"]])
        row += f'<td class="l">{escape(what[:120])}</td>'
    return row + "</tr>"


def _rest_row(rest: list[dict[str, Any]]) -> str:
    usd = sum(float(s["usd"] or 0) for s in rest)
    lost = sum(float(s["lost_usd"] or 0) for s in rest)
    n = sum(s["requests"] for s in rest)
    return (
        f'<tr><td class="l" colspan="3">the other {len(rest):,} sessions (table below)</td>'
        f"<td>{n:,}</td><td></td><td>${usd:,.4f}</td><td>${lost:,.4f}</td><td></td></tr>"
    )


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
    ranked = by_loss(report["sessions"])
    top, rest = ranked[:TOP_SESSIONS], ranked[TOP_SESSIONS:]
    out.append(
        f"<h2>Sessions, by dollars lost to cache breaks</h2><p>{len(ranked):,} sessions; "
        f"the {len(top)} that lost most have timelines below"
        + (f", the other {len(rest):,} are in the table after them" if rest else "")
        + '.</p><table id="sessions"><tr><th class="l">session</th><th class="l">source</th>'
        "<th>first</th><th>requests</th><th>hit%</th><th>$</th><th>$ lost</th>"
        '<th class="l">top break</th></tr>'
    )
    out.extend(_session_row(s) for s in top)
    if rest:
        out.append(_rest_row(rest))
    out.append("</table><h2>Timelines</h2>" + legend())
    wanted = {(s["source"], s["session"]) for s in top}
    by_session: dict[tuple[str, str], list[dict[str, Any]]] = {}
    requests = report["requests"]
    chosen = (
        requests.where(wanted)
        if isinstance(requests, (Rows, Encoded))
        else [r for r in requests if (r["source"], r["session"]) in wanted]
    )
    for r in chosen:
        by_session.setdefault((r["source"], r["session"]), []).append(r)
    for s in top:
        reqs = sorted(by_session.get((s["source"], s["session"]), []), key=_when)
        out.append(
            f'<h3 class="session">{escape(s["session"])} <span class="note">'
            f"({escape(s['source'])}, {len(reqs)} requests, {_usd(s['usd'])}, "
            f"{_usd(s['lost_usd'])} lost)</span></h3>"
        )
        out.append(timeline(reqs))
    if rest:
        out.append(
            f"<h2>The other {len(rest):,} sessions</h2>"
            '<p><input id="find" type="search" placeholder="filter by session, source, '
            'project, model" aria-label="filter sessions"></p>'
            # Closed until asked for: the browser lays out thousands of rows only then.
            f'<details id="more"><summary>all {len(rest):,}</summary><table id="rest">'
            '<tr><th class="l">session</th><th class="l">source</th><th>first</th>'
            '<th>requests</th><th>hit%</th><th>$</th><th>$ lost</th><th class="l">top break'
            '</th><th class="l">project, models</th></tr>'
        )
        out.extend(_session_row(s, extra=True) for s in rest)
        out.append(f"</table></details><script>{SCRIPT}</script>")
    notes = "; ".join(f"{v['count']} {v['what']}" for v in report["notes"].values())
    out.append(
        f'<p class="note">{escape(report["price_basis"])}. schema_version '
        f"{report['schema_version']}. {escape(notes)}</p></body></html>\n"
    )
    return "\n".join(out)
