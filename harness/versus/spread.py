"""prefixlock's margin over many seed pairs: median, 10th percentile and worst, per event row
and in total.

One seed pair (two sessions) is one draw of the events; a margin measured on one draw says
little about the next. `spread(result, groups)` takes a result over many pairs and gives, for
each pair, how many times cheaper prefixlock was than the cheapest peer row (in total, on each
event row, and against the cheaper of the bare SDK loop at its default and its longer TTL), and
over the pairs the median, the 10th percentile (nearest rank) and the worst of each. `--json`
also gives each pair's rows in dollars (`by_pair`: prefixlock's and how much of it went on
output-free requests such as keep-alive reads, the cheapest peer row's and which peer that
was, and every peer row's), so a pair that paid more on a row can be read turn by turn with
`--seeds A-B --trace-dir DIR`.

The cheapest peer row of a pair may be a different peer on each pair, so the spread also holds
the same summaries against each peer row alone (`by_peer`: every peer at its default TTL and
at its longer one), per event row and in total: "no dearer than a fixed-1h client on every
seed" is read there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .report import OURS, VersusResult
from .scenario import COMPACT, EVENTS

# The bare SDK loop of each provider at its docs' default and at its longer TTL.
SDK_LOOPS = {
    "anthropic": ("anthropic-sdk", "anthropic-sdk-1h"),
    "openai": ("openai-sdk", "openai-sdk-24h"),
}
# "Never more than 1% dearer": a pair whose margin is under this counts as a loss.
LOSS_BELOW = Decimal("0.99")


@dataclass(frozen=True)
class Summary:
    """Margins over the pairs (x cheaper: above 1, prefixlock paid less)."""

    values: tuple[Decimal, ...]

    @property
    def median(self) -> Decimal:
        v = sorted(self.values)
        n = len(v)
        return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

    @property
    def p10(self) -> Decimal:
        v = sorted(self.values)
        return v[max(math.ceil(0.1 * len(v)) - 1, 0)]

    @property
    def worst(self) -> Decimal:
        return min(self.values)

    @property
    def losses(self) -> int:
        """Pairs on which prefixlock paid more than 1% over the baseline."""
        return sum(1 for x in self.values if x < LOSS_BELOW)

    def to_dict(self) -> dict[str, Any]:
        q = Decimal("0.001")
        return {
            "pairs": len(self.values),
            "median": str(self.median.quantize(q)),
            "p10": str(self.p10.quantize(q)),
            "worst": str(self.worst.quantize(q)),
            "pairs_over_1pct_dearer": self.losses,
        }


@dataclass(frozen=True)
class RowDollars:
    """One row of one pair: prefixlock's dollars and the cheapest peer row's (None: no peer
    row counts there, e.g. no peer compacts)."""

    ours: Decimal
    best: Decimal | None
    peer: str | None
    each: dict[str, Decimal] = field(default_factory=dict)  # every peer row counted here
    keepalive: Decimal = Decimal(0)  # of `ours`: its output-free requests (pings, seals)

    def to_dict(self) -> dict[str, Any]:
        q = Decimal("0.000001")
        # The same margin the summaries use: a row prefixlock paid nothing on while a peer did
        # is "Infinity", not a missing figure.
        margin = None if self.best is None else times_cheaper(self.best, self.ours)
        return {
            "prefixlock": str(self.ours.quantize(q)),
            "cheapest_peer": None if self.best is None else str(self.best.quantize(q)),
            "peer": self.peer,
            "times_cheaper": None
            if margin is None
            else str(margin if margin.is_infinite() else margin.quantize(Decimal("0.001"))),
            "peers": {c: str(v.quantize(q)) for c, v in self.each.items()},
            "prefixlock_keepalive": str(self.keepalive.quantize(q)),
        }


@dataclass(frozen=True)
class PairRows:
    """One seed pair's rows and total, in dollars."""

    scenarios: tuple[str, ...]
    rows: dict[str, RowDollars]  # event -> dollars; "total" too

    def to_dict(self) -> dict[str, Any]:
        return {"scenarios": list(self.scenarios)} | {e: r.to_dict() for e, r in self.rows.items()}


@dataclass(frozen=True)
class Spread:
    pairs: int
    total: Summary | None  # against the cheapest peer row, in total
    sdk_loop: Summary | None  # against the cheaper of the SDK loop's two rows, in total
    by_event: dict[str, Summary]  # against the cheapest peer row on that row
    ours_total: Summary  # prefixlock's dollars per pair
    by_pair: tuple[PairRows, ...] = ()
    # event row (and "total") -> peer row -> margins against that peer alone
    by_peer: dict[str, dict[str, Summary]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "vs_cheapest_peer": None if self.total is None else self.total.to_dict(),
            "vs_sdk_loop": None if self.sdk_loop is None else self.sdk_loop.to_dict(),
            "by_event": {e: s.to_dict() for e, s in self.by_event.items()},
            "by_peer": {
                e: {c: s.to_dict() for c, s in peers.items()} for e, peers in self.by_peer.items()
            },
            "by_pair": [p.to_dict() for p in self.by_pair],
            "prefixlock_dollars": {
                "median": str(self.ours_total.median.quantize(Decimal("0.0001"))),
                "worst": str(max(self.ours_total.values).quantize(Decimal("0.0001"))),
            },
        }


def part(result: VersusResult, names: Sequence[str]) -> VersusResult:
    """The result restricted to the scenarios named `names` (one seed pair)."""
    keep = set(names)
    return VersusResult(
        tuple(s for s in result.scenarios if s.name in keep),
        [r for r in result.runs if r.scenario in keep],
        result.peer_config,
        result.missing,
    )


def row_dollars(result: VersusResult, event: str, client: str = OURS) -> RowDollars:
    """`client`'s dollars on `event`'s row and the cheapest peer row's (the compaction row
    against the peers that compact)."""
    peers = [c for c in result.peers() if event != COMPACT or result.compacts(c)]
    ours = result.by_event(client)[event]
    kept = result.keepalive(client)[event]
    if not peers:
        return RowDollars(ours, None, None, keepalive=kept)
    each = {c: result.by_event(c)[event] for c in peers}
    best = min(peers, key=each.__getitem__)
    return RowDollars(ours, each[best], best, each, kept)


def times_cheaper(peer: Decimal, ours: Decimal) -> Decimal | None:
    """How many times cheaper `ours` was than `peer` (None: neither paid anything)."""
    if not ours:
        return None if not peer else Decimal("Infinity")
    return peer / ours


def spread(result: VersusResult, groups: Sequence[Sequence[str]], client: str = OURS) -> Spread:
    """Margins of `client` over the seed pairs `groups` (each a list of scenario names)."""
    totals: list[Decimal] = []
    sdk: list[Decimal] = []
    ours: list[Decimal] = []
    rows: dict[str, list[Decimal]] = {e: [] for e in EVENTS}
    provider = result.scenarios[0].provider if result.scenarios else "anthropic"
    loops = [c for c in SDK_LOOPS.get(provider, ()) if c in result.clients]
    pairs: list[PairRows] = []
    each: dict[str, dict[str, list[Decimal]]] = {}
    for names in groups:
        one = part(result, names)
        ours.append(one.total(client))
        best = one.best_peer()
        dollars = {e: row_dollars(one, e, client) for e in EVENTS}
        dollars["total"] = RowDollars(
            one.total(client),
            None if best is None else one.total(best),
            best,
            {c: one.total(c) for c in one.peers()},
            sum(one.keepalive(client).values(), Decimal(0)),
        )
        for row, d in dollars.items():
            for c, paid in d.each.items():
                m = times_cheaper(paid, d.ours)
                if m is not None:
                    each.setdefault(row, {}).setdefault(c, []).append(m)
        pairs.append(PairRows(tuple(names), dollars))
        m = one.margin(client)
        if m is not None:
            totals.append(m)
        if loops and one.total(client):
            sdk.append(min(one.total(c) for c in loops) / one.total(client))
        for e in EVENTS:
            d = dollars[e]  # the row's dollars above, not read again
            r = None if d.best is None else times_cheaper(d.best, d.ours)
            if r is not None:
                rows[e].append(r)
    return Spread(
        len(groups),
        Summary(tuple(totals)) if totals else None,
        Summary(tuple(sdk)) if sdk else None,
        {e: Summary(tuple(v)) for e, v in rows.items() if v},
        Summary(tuple(ours)),
        tuple(pairs),
        {
            row: {c: Summary(tuple(v)) for c, v in peers.items()}
            for row in [*EVENTS, "total"]
            if (peers := each.get(row))
        },
    )


def _margin_table(title: str, *leading: str) -> Any:
    """A rich table of margins: the `leading` label columns, then against whom and the spread."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False, pad_edge=False)
    for name in (*leading, "against"):
        table.add_column(name, justify="left")
    for name in ("pairs", "median", "p10", "worst", ">1% dearer"):
        table.add_column(name, justify="right")
    return table


def render_spread(s: Spread, console: Any) -> None:
    """The margins as a table under the per-event one."""
    table = _margin_table(f"How many times cheaper prefixlock was, over {s.pairs} seed pairs")

    def add(label: str, m: Summary | None, style: str = "") -> None:
        if m is None:
            return
        cells = [f"{x:.2f}x" if x.is_finite() else "free" for x in (m.median, m.p10, m.worst)]
        table.add_row(label, str(len(m.values)), *cells, str(m.losses), style=style)

    for e in EVENTS:
        add(f"{e} row", s.by_event.get(e))
    add("total: cheapest peer", s.total, "bold")
    add("total: SDK loop (best TTL)", s.sdk_loop, "bold")
    console.print(table)
    if s.by_peer:
        render_by_peer(s, console)


def render_by_peer(s: Spread, console: Any) -> None:
    """The margins against each peer row alone, per event row and in total."""
    table = _margin_table(
        f"How many times cheaper than each peer row, over {s.pairs} seed pairs", "row"
    )
    for row, peers in s.by_peer.items():
        style = "bold" if row == "total" else ""
        for n, (peer, m) in enumerate(peers.items()):
            # Three places: a 1% loss shows.
            cells = [f"{x:.3f}x" if x.is_finite() else "free" for x in (m.median, m.p10, m.worst)]
            label = row if n == 0 else ""
            table.add_row(label, peer, str(len(m.values)), *cells, str(m.losses), style=style)
        table.add_section()
    console.print(table)
