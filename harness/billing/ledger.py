"""The ledger: a row per request, and the session's answers: hit rate, cost, cost without the
cache, saved, the ceiling (tokens that could have been read), and re-billed tokens by cause.

Money is Decimal. A model missing from the price table is reported as unpriced: its rows carry
`cost=None`, and the session's `cost` is None while any row is unpriced (`priced_cost` sums the
rest), so an unknown model is never counted as $0.

The ceiling of a request is what the cache could have served given the previous request: the
common prefix of the two requests' cache units, cut where the provider can read
(prefixlock.cache.ceiling: at an earlier breakpoint write, or in whole blocks from the model's
minimum), and zero after a model change (the cache is per model), in the provider's token count
(scaled from the local tokenizer when the two differ). Re-billed tokens are the ceiling minus
what was read, with the cause the guard names (or "unexplained"); after a model change all
previously cached tokens are re-billed with cause "model".
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..cache.ceiling import readable
from ..cache.prefix import shared_units
from ..cache.rules import writes_at_breakpoints
from ..delegation import SubagentSection
from ..wire import WireRequest
from .prices import Price, PriceTable
from .usage import Usage


@dataclass(frozen=True)
class LedgerRow:
    """One request: what it used, what it cost, what it could have read."""

    seq: int
    time: float
    model: str
    api: str
    usage: Usage
    cost: Decimal | None  # None: unpriced model
    cost_without_cache: Decimal | None
    ceiling: int  # tokens that could have been read given the previous request
    rebilled: int  # ceiling tokens not read (or, after a model switch, tokens cached before)
    cause: str | None  # why `rebilled` happened, when it did
    predicted_read: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def priced(self) -> bool:
        """Is the request's model in the price table?"""
        return self.cost is not None

    @property
    def saved(self) -> Decimal | None:
        """Dollars the cache saved on this request (None when unpriced)."""
        if self.cost is None or self.cost_without_cache is None:
            return None
        return self.cost_without_cache - self.cost


def readable_tokens(prev: WireRequest, cur: WireRequest, price: Price | None) -> int:
    """Local tokens of `cur` the cache could serve after `prev` (same model assumed): the
    ceiling of the part the two share."""
    minimum = price.min_cacheable_tokens if price is not None else 0
    breakpoints = writes_at_breakpoints(cur.api, cur.model)
    return readable(prev.units, breakpoints, minimum, shared_units(prev.units, cur.units))


@dataclass
class FoldedRows:
    """Rows a bounded ledger let go (`Ledger.keep_rows`), summed: what every answer of the
    ledger needs of them."""

    count: int = 0
    usage: Usage = field(default_factory=Usage)
    ceiling: int = 0
    priced_cost: Decimal = Decimal(0)  # of the priced rows
    cost_without_cache: Decimal = Decimal(0)  # of the priced rows
    unpriced: set[str] = field(default_factory=set)  # models of the unpriced rows
    rebilled: dict[str, int] = field(default_factory=dict)
    estimated: int = 0  # rows the server reported no usage for

    def add(self, row: LedgerRow) -> None:
        self.count += 1
        self.usage = self.usage + row.usage
        self.ceiling += row.ceiling
        if row.cost is None:
            self.unpriced.add(row.model)
        else:
            self.priced_cost += row.cost
        if row.cost_without_cache is not None:
            self.cost_without_cache += row.cost_without_cache
        if row.rebilled and row.cause:
            self.rebilled[row.cause] = self.rebilled.get(row.cause, 0) + row.rebilled
        if "prefixlock_estimate" in row.usage.raw:
            self.estimated += 1


class Ledger:
    """Rows of one session (or several: ledgers add up) and the answers over them.

    `keep_rows` (None, the default: all) bounds the rows kept: past it the oldest are folded
    into sums by kind (`folded`), so a long-running session's ledger stays flat in memory while
    its answers (usage, cost, saved, ceiling, re-billed, the count) still cover every request.
    `rows` and iteration give the kept rows; `len()` counts all."""

    def __init__(self, prices: PriceTable | None = None) -> None:
        self.prices: PriceTable = prices or PriceTable.default()
        self._rows: list[LedgerRow] = []
        self._keep_rows: int | None = None
        # The rows let go, summed by their meta "kind" ("" for a turn's request).
        self.folded: dict[str, FoldedRows] = {}
        self._last: WireRequest | None = None
        # Subagent runs charged to this session (prefixlock.delegation), kept apart from its own
        # rows so that they never blur the session's hit rate.
        self.subagents: SubagentSection = SubagentSection()

    def record(
        self,
        request: WireRequest,
        usage: Usage,
        *,
        time: float = 0.0,
        cause: str | None = None,
        predicted_read: int | None = None,
        previous: WireRequest | None = None,
        meta: dict[str, Any] | None = None,
    ) -> LedgerRow:
        """Add the row of `request` (its provider-reported `usage`). `previous` defaults to the
        request recorded before it."""
        prev = previous if previous is not None else self._last
        price = self.prices.lookup(request.model)
        cost = price.cost(usage) if price is not None else None
        without = price.cost_without_cache(usage) if price is not None else None
        ceiling, rebilled, why = 0, 0, None
        if prev is not None:
            if prev.model != request.model or prev.api != request.api:
                old = readable_tokens(prev, request, self.prices.lookup(prev.model))
                rebilled = self._scale(old, request, usage)
                why = "model" if rebilled else None
            else:
                ceiling = self._scale(readable_tokens(prev, request, price), request, usage)
                ceiling = max(ceiling, usage.cache_read)
                rebilled = max(ceiling - usage.cache_read, 0)
                why = (cause or "unexplained") if rebilled else None
        row = LedgerRow(
            seq=len(self),
            time=time,
            model=request.model,
            api=request.api,
            usage=usage,
            cost=cost,
            cost_without_cache=without,
            ceiling=ceiling,
            rebilled=rebilled,
            cause=why,
            predicted_read=predicted_read,
            meta=dict(meta or {}),
        )
        self._rows.append(row)
        self._last = request
        self._fold()
        return row

    @property
    def keep_rows(self) -> int | None:
        """How many of the newest rows are kept whole (None: all); the older are folded."""
        return self._keep_rows

    @keep_rows.setter
    def keep_rows(self, keep: int | None) -> None:
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            raise ValueError(f"keep_rows must be None or a whole number >= 1, not {keep!r}")
        self._keep_rows = keep
        self._fold()

    def _fold(self) -> None:
        keep = self._keep_rows
        if keep is None or len(self._rows) <= keep:
            return
        gone = len(self._rows) - keep
        for row in self._rows[:gone]:
            self.folded.setdefault(str(row.meta.get("kind", "")), FoldedRows()).add(row)
        del self._rows[:gone]

    def _past(self) -> FoldedRows:
        """Every folded row in one sum."""
        total = FoldedRows()
        for part in self.folded.values():
            total.count += part.count
            total.usage = total.usage + part.usage
            total.ceiling += part.ceiling
            total.priced_cost += part.priced_cost
            total.cost_without_cache += part.cost_without_cache
            total.unpriced |= part.unpriced
            for cause, n in part.rebilled.items():
                total.rebilled[cause] = total.rebilled.get(cause, 0) + n
            total.estimated += part.estimated
        return total

    def restore(self, rows: Iterable[LedgerRow], last: WireRequest | None = None) -> None:
        """Take back rows recorded by an earlier process (a resumed session's stored requests):
        they are renumbered after the rows already here, and `last` becomes the request the
        next `record` is compared with."""
        for row in rows:
            self._rows.append(dataclasses.replace(row, seq=len(self)))
            self._fold()
        if last is not None:
            self._last = last

    @staticmethod
    def _scale(local: int, request: WireRequest, usage: Usage) -> int:
        """Local tokenizer tokens in the provider's count (they agree on the emulator)."""
        total_local = request.input_tokens
        reported = usage.input_total
        if local <= 0 or total_local <= 0 or reported <= 0 or reported == total_local:
            return min(local, reported) if reported else local
        return min(reported, round(local * reported / total_local))

    # ---- answers -------------------------------------------------------------------------

    @property
    def rows(self) -> tuple[LedgerRow, ...]:
        """One row per request, in order (the newest `keep_rows` when bounded)."""
        return tuple(self._rows)

    def __len__(self) -> int:
        """Requests recorded, folded ones included."""
        return sum(part.count for part in self.folded.values()) + len(self._rows)

    def __iter__(self) -> Iterator[LedgerRow]:
        return iter(tuple(self._rows))

    @property
    def usage(self) -> Usage:
        """The session's tokens, summed over its requests."""
        past = self._past().usage if self.folded else Usage()
        return sum((r.usage for r in self._rows), past)

    @property
    def hit_rate(self) -> float:
        """Tokens read from the cache / all input tokens."""
        return self.usage.hit_rate

    @property
    def ceiling(self) -> int:
        """Tokens that could have been read, summed over requests."""
        past = self._past().ceiling if self.folded else 0
        return past + sum(r.ceiling for r in self._rows)

    @property
    def ceiling_hit_rate(self) -> float:
        """The best hit rate these requests allowed (ceiling / all input)."""
        total = self.usage.input_total
        return self.ceiling / total if total else 0.0

    @property
    def unpriced_models(self) -> tuple[str, ...]:
        """Models of requests the price table does not know (their cost is unknown, never $0)."""
        past = self._past().unpriced if self.folded else set()
        return tuple(sorted(past | {r.model for r in self._rows if r.cost is None}))

    @property
    def priced_cost(self) -> Decimal:
        """Dollars of the priced rows only (see `unpriced_models` for the rest)."""
        past = self._past().priced_cost if self.folded else Decimal(0)
        return sum((r.cost for r in self._rows if r.cost is not None), past)

    @property
    def cost(self) -> Decimal | None:
        """Dollars of the session; None while any request is unpriced (never a silent $0)."""
        if self.unpriced_models:
            return None
        return self.priced_cost

    @property
    def total_cost(self) -> Decimal | None:
        """The session's cost plus its subagents' (None while anything is unpriced)."""
        own, subs = self.cost, self.subagents.cost
        return None if own is None or subs is None else own + subs

    @property
    def cost_without_cache(self) -> Decimal | None:
        """Dollars the same requests would cost with nothing read from the cache (None while any
        is unpriced)."""
        if self.unpriced_models:
            return None
        past = self._past().cost_without_cache if self.folded else Decimal(0)
        return sum(
            (r.cost_without_cache for r in self._rows if r.cost_without_cache is not None), past
        )

    @property
    def saved(self) -> Decimal | None:
        """Dollars the cache saved: `cost_without_cache - cost` (None while any request is
        unpriced)."""
        cost, without = self.cost, self.cost_without_cache
        if cost is None or without is None:
            return None
        return without - cost

    @property
    def rebilled(self) -> dict[str, int]:
        """Re-billed tokens by cause."""
        out: dict[str, int] = defaultdict(int, self._past().rebilled if self.folded else {})
        for r in self._rows:
            if r.rebilled and r.cause:
                out[r.cause] += r.rebilled
        return dict(out)

    def summary(self) -> str:
        """One line: tokens read / written / uncached, hit rate, cost, saved."""
        u = self.usage
        cost = self.cost
        if cost is None:
            money = "cost unpriced (" + ", ".join(self.unpriced_models) + ")"
        else:
            saved = (self.saved or Decimal(0)).quantize(Decimal("0.0001"))
            sign = "-" if saved < 0 else ""  # cache writes not read yet cost more: "-$0.0012"
            money = f"cost ${cost:.4f}, saved {sign}${abs(saved):.4f}"
        n = len(self)
        requests = f"{n} request{'' if n == 1 else 's'}"
        # Rows the server reported no usage for were counted locally (prefixlock.providers).
        guessed = self._past().estimated if self.folded else 0
        guessed += sum(1 for r in self._rows if "prefixlock_estimate" in r.usage.raw)
        note = f" ({guessed} of them estimated: the server reported no usage)" if guessed else ""
        return (
            f"{requests}{note}: read {u.cache_read:,}, written {u.cache_write:,}, "
            f"uncached {u.uncached_input:,} tokens; hit rate {u.hit_rate:.1%}; {money}"
        )
