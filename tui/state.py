"""What the cache panel shows, computed from the session's events: no widgets, no I/O.

`CacheState.apply(event)` folds each event of `prefixlock.events` into running figures; the panel
widget only formats `CacheState.view(now)`. Keeping this apart from Textual makes the numbers
testable against the session's ledger without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from prefixlock.billing.usage import Usage

if TYPE_CHECKING:  # types only: this module stays free of the store's I/O, and the panel draws
    # its first frame before the SDK's events are imported
    from prefixlock.billing.ledger import Ledger
    from prefixlock.events import Event, UsageReport
    from prefixlock.store.records import UsageRow

ZERO = Decimal(0)
#: Per-turn figures kept: more than the panel's sparkline shows (`view(last=30)`); the session's
#: totals are folded as they come, so a long session's figures do not grow with it.
TURNS_KEPT = 64


@dataclass
class TurnFigures:
    """One user turn (all of its model requests together)."""

    turn: int
    usage: Usage = field(default_factory=Usage)
    cost: Decimal = ZERO
    requests: int = 0

    @property
    def hit_rate(self) -> float:
        return self.usage.hit_rate


@dataclass(frozen=True)
class MissInfo:
    cause: str
    tokens: int
    dollars: Decimal | None
    detail: str = ""

    def describe(self) -> str:
        cost = f", ${self.dollars:.4f}" if self.dollars is not None else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.cause} ({self.tokens:,} tok re-billed{cost}){detail}"


@dataclass(frozen=True)
class PanelView:
    """Everything the panel prints, already computed."""

    model: str
    hit_rate: float  # session, main agent
    sparkline: tuple[float, ...]  # per-turn hit rates, oldest first
    last_read: int
    last_written: int
    last_uncached: int
    warm_seconds: float | None  # None: nothing cached yet; 0: cold
    cost_main: Decimal
    cost_sub: Decimal
    saved: Decimal
    last_miss: str | None
    keepalive: bool
    requests: int
    # The last request was shorter than its model's minimum cacheable prompt, and nothing was
    # read or written: the countdown would be another model's (or no) cache.
    below_minimum: bool = False
    context_tokens: int = 0  # the newest request's input plus its output: the next one's floor
    context_window: int | None = None  # the model's (None: not in the price table)


def context_share(v: PanelView) -> float | None:
    """How full the model's context window is, 0..1 (None: the window is not known)."""
    if not v.context_window:
        return None
    return v.context_tokens / v.context_window


class CacheState:
    """Running figures of one session, fed event by event.

    `ttl` is how long an entry stays warm after its last write or read (the TTL is refreshed on
    every hit); the caller passes the model's TTL and the clock time of each request.
    """

    def __init__(
        self,
        model: str,
        ttl: float | None = None,
        min_tokens: Callable[[str], int] | None = None,
    ) -> None:
        if ttl is None:  # the default lifetime of a model with no price entry
            from prefixlock.cache.defaults import UNPRICED_TTL_SECONDS

            ttl = UNPRICED_TTL_SECONDS
        self.model: str = model
        self.ttl: float = float(ttl)
        # A model's minimum cacheable prompt, in tokens (None: not known here).
        self.min_tokens = min_tokens
        self.below_minimum: bool = False
        self.keepalive = False
        self.turns: list[TurnFigures] = []
        self.total: Usage = Usage()
        self.cost_main: Decimal = ZERO
        self.cost_without_cache_main: Decimal = ZERO
        self.cost_sub: Decimal = ZERO
        self.cost_sub_without_cache: Decimal = ZERO
        self.sub_usage: Usage = Usage()
        self.keepalive_cost: Decimal = ZERO
        self.requests: int = 0
        self.last_miss: MissInfo | None = None
        self.last_request_at: float | None = None
        self.unpriced: bool = False
        self.context_tokens: int = 0

    # -- folding events -------------------------------------------------------------------------

    def apply(self, event: Event, now: float | None = None) -> None:
        """Fold one event; `now` is the clock time it arrived (for the warm countdown)."""
        from prefixlock.events import (
            CacheBreak,
            KeepAlivePing,
            PrefixChanged,
            SubagentFinish,
            UsageReport,
        )

        if isinstance(event, UsageReport):
            self._usage(event, now)
        elif isinstance(event, CacheBreak):
            self.last_miss = MissInfo(
                event.cause, event.tokens_rebilled, event.dollars, event.detail
            )
        elif isinstance(event, SubagentFinish) and event.depth <= 1:
            # A run's cost already holds its own subagents'; the inner events of a run arrive
            # wrapped in SubagentEvent, which this fold ignores, so nothing counts twice.
            self.sub_usage = self.sub_usage + event.usage
            if event.cost is not None:
                self.cost_sub += event.cost
        elif isinstance(event, KeepAlivePing):
            if event.cost is not None:
                self.keepalive_cost += event.cost
            if now is not None and event.read_tokens:
                self.last_request_at = now
        elif isinstance(event, PrefixChanged):
            self.model = event.model

    def _usage(self, ev: UsageReport, now: float | None) -> None:
        self.model = ev.model
        self.requests += 1
        self.total = self.total + ev.usage
        self.context_tokens = ev.usage.input_total + ev.usage.output
        if ev.cost is None:
            self.unpriced = True
        else:
            self.cost_main += ev.cost
        if ev.cost_without_cache is not None:
            self.cost_without_cache_main += ev.cost_without_cache
        if not self.turns or self.turns[-1].turn != ev.turn:
            self.turns.append(TurnFigures(ev.turn))
            del self.turns[:-TURNS_KEPT]
        t = self.turns[-1]
        t.usage = t.usage + ev.usage
        t.cost += ev.cost or ZERO
        t.requests += 1
        cached = bool(ev.usage.cache_read or ev.usage.cache_write)
        if now is not None and cached:
            self.last_request_at = now
        floor = self.min_tokens(ev.model) if self.min_tokens is not None else 0
        self.below_minimum = not cached and 0 < ev.usage.input_total < floor

    def restore(self, rows: Iterable[UsageRow]) -> None:
        """Fold a resumed session's stored requests (oldest first), so its per-turn figures,
        countdown and last miss carry on; pings count as pings, as they did live."""
        from prefixlock.events import KeepAlivePing, UsageReport

        for r in rows:
            if r.kind == "ping":
                self.apply(KeepAlivePing(r.usage.cache_read, r.cost), r.time)
            else:
                report = UsageReport(
                    r.turn, r.seq, r.model, r.usage, r.cost, r.cost_without_cache, r.predicted_read
                )
                self.apply(report, r.time)
            if r.cause and r.rebilled:
                self.last_miss = MissInfo(r.cause, r.rebilled, None)

    def note_subagent_cost(self, cost: Decimal, cost_without_cache: Decimal) -> None:
        """Add a subagent's cost when it comes from a ledger rather than an event."""
        self.cost_sub += cost
        self.cost_sub_without_cache += cost_without_cache

    # -- figures --------------------------------------------------------------------------------

    @property
    def hit_rate(self) -> float:
        return self.total.hit_rate

    @property
    def saved(self) -> Decimal:
        """Dollars the cache saved the main agent against sending everything uncached."""
        return self.cost_without_cache_main - self.cost_main

    def warm_seconds(self, now: float) -> float | None:
        if self.last_request_at is None:
            return None
        # Never more than a TTL: a request stamped ahead of this clock (another machine's,
        # a clock set back) does not keep the cache warm for days.
        return min(self.ttl, max(0.0, self.last_request_at + self.ttl - now))

    def view(self, now: float, last: int = 30, ledger: Ledger | None = None) -> PanelView:
        """The panel's figures at `now`. With the session's `ledger`, the whole-session totals
        (hit rate, dollars, saved, requests) are the ledger's own, so the panel and the ledger
        cannot disagree (keep-alive pings and a resumed session's stored requests included);
        the folded events still give the per-turn figures, the countdown and the last miss."""
        t = self.turns[-1] if self.turns else TurnFigures(0)
        hit_rate, cost_main = self.hit_rate, self.cost_main + self.keepalive_cost
        saved, requests, cost_sub = self.saved, self.requests, self.cost_sub
        if ledger is not None:
            hit_rate, saved_rows = served_by_cache(ledger)
            cost_main, requests = ledger.priced_cost, len(ledger)
            saved = saved_rows if saved_rows is not None else saved
            subs = ledger.subagents
            if len(subs) and subs.cost is not None:
                cost_sub = subs.cost
        return PanelView(
            model=self.model,
            hit_rate=hit_rate,
            sparkline=tuple(x.hit_rate for x in self.turns[-last:]),
            last_read=t.usage.cache_read,
            last_written=t.usage.cache_write,
            last_uncached=t.usage.uncached_input,
            warm_seconds=self.warm_seconds(now),
            cost_main=cost_main,
            cost_sub=cost_sub,
            saved=saved,
            last_miss=self.last_miss.describe() if self.last_miss else None,
            keepalive=self.keepalive,
            requests=requests,
            below_minimum=self.below_minimum,
            context_tokens=self.context_tokens,
        )


def served_by_cache(ledger: Ledger) -> tuple[float, Decimal | None]:
    """(hit rate, dollars saved) of the session's own requests. A keep-alive ping reads the
    cache only to keep it warm: it is neither a hit nor a saving, and what it cost comes off
    the savings (None while any request is unpriced)."""
    read = total = 0
    saved: Decimal | None = Decimal(0)
    for kind, part in ledger.folded.items():  # a bounded ledger's older rows, summed by kind
        if kind == "ping":
            saved = None if saved is None or part.unpriced else saved - part.priced_cost
            continue
        read += part.usage.cache_read
        total += part.usage.input_total
        if saved is not None:
            saved = None if part.unpriced else saved + part.cost_without_cache - part.priced_cost
    for row in ledger:
        if row.meta.get("kind") == "ping":
            if saved is not None and row.cost is not None:
                saved -= row.cost
            elif row.cost is None:
                saved = None
            continue
        read += row.usage.cache_read
        total += row.usage.input_total
        row_saved = row.saved
        saved = None if saved is None or row_saved is None else saved + row_saved
    return (read / total if total else 0.0), saved


def format_countdown(seconds: float | None) -> str:
    """'4:37 warm', 'cold', or 'no cache yet'; whole seconds so snapshots do not drift."""
    if seconds is None:
        return "no cache yet"
    if seconds <= 0:
        return "cold"
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m warm"
    return f"{s // 60}:{s % 60:02d} warm"


def format_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}K"
    if n >= 1000:
        return f"{n / 1000:.1f}K"
    return str(n)


def format_dollars(d: Decimal) -> str:
    """'$0.0134', '$12.40', '-$0.0014' (four decimals below a dollar, where turns live)."""
    sign = "-" if d < 0 else ""
    d = abs(d)
    return f"{sign}${d:.4f}" if d < 1 else f"{sign}${d:.2f}"


_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: tuple[float, ...] | list[float], width: int = 20) -> str:
    """Hit rates 0..1 as block characters, newest on the right, at most `width` of them."""
    vals = list(values)[-width:]
    return "".join(_BARS[min(len(_BARS) - 1, int(v * (len(_BARS) - 1) + 0.5))] for v in vals)
