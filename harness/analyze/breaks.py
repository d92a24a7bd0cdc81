"""Cache breaks: which requests re-billed a prefix the previous request left readable, why,
how sure, and what it cost (docs/session-logs.md#cache-breaks). Pure.

Per (session, thread), in time order. The previous request leaves `expected` tokens readable:
on Anthropic everything up to its last breakpoint (its read + write; Claude Code puts the
breakpoint at the end), on OpenAI and Gemini its input in whole 128-token steps from the
model's minimum (OpenAI's 1,024; Gemini's 2,048 or 4,096, from its price's cache rules). A
request is a break when it reads less than half of that and at least 2,048 tokens fewer
(`sensitive`: less than 95% and 2,000 fewer, pydantic-ai's miss flag). The first request of a
thread is a cold start when it mostly writes: inherent, never "lost". The cause is the first of
model switch, compaction, TTL expiry after an idle gap, history rewrite (rewind or resume), a
compaction inferred from the whole context shrinking by half or more (low confidence: its
events are absent), inferred prefix change, unknown that the log supports; every matching
signal is kept as evidence. Dollars lost = the request's cost minus its cost had the expected
tokens been read (taken from its writes first, then its uncached input): that counterfactual is
also the request's ceiling cost.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

import msgspec

from ..billing.prices import MILLION, Price
from ..billing.usage import Usage
from ..cache import anthropic, openai
from ..cache.units import OPENAI_DEFAULT_TTL
from .model import Request
from .pricing import Pricer, normalize

# The TTLs `--ttl` may name, shortest first: Anthropic's two and OpenAI's breakpoint default.
_OPENAI_DEFAULT = (OPENAI_DEFAULT_TTL, openai.TTL_SECONDS[OPENAI_DEFAULT_TTL])
TTL_SECONDS = {
    label: int(seconds)
    for label, seconds in sorted(
        [*anthropic.TTL_SECONDS.items(), _OPENAI_DEFAULT], key=lambda item: item[1]
    )
}
TTL_CHOICES = ("auto", *TTL_SECONDS)
AVOIDABLE = {"model_switch", "ttl_expiry", "history_rewrite", "prefix_change"}
# A context at least COMPACT_MIN tokens that falls to COMPACT_RATIO of its size or less, with
# no event to say why, is read as a compaction (low confidence).
COMPACT_MIN, COMPACT_RATIO = 20_000, 0.5


@dataclass(frozen=True)
class Options:
    ttl: str = "auto"  # auto | 5m | 30m | 1h
    ratio: float = 0.5  # a break reads less than ratio x expected ...
    min_drop: int = 2048  # ... and at least this many tokens fewer

    @classmethod
    def sensitive(cls, ttl: str = "auto") -> Options:
        return cls(ttl, 0.95, 2000)


@dataclass(frozen=True)
class Signal:
    cause: str
    confidence: str  # high | medium | low
    evidence: str


PARTS = ("cache_read", "cache_write", "uncached_input", "output")  # the order of Row.parts


class Row(msgspec.Struct, gc=False):
    """A request with what the analysis found about it (a struct, as `Request` is: one is made
    per request)."""

    req: Request
    usd: Decimal | None
    ceiling_usd: Decimal | None
    expected: int = 0
    gap: float | None = None
    ttl: int = 0
    signals: list[Signal] | tuple[()] = ()
    cause: str | None = None  # set on a break
    confidence: str = ""
    evidence: str = ""
    rebilled: int = 0
    lost: Decimal | None = None
    inherent: bool = False
    # The price and the token counts it applies to, kept rather than the dollars by part
    # (four Decimals a request: the largest share of a big report's memory).
    price: Price | None = None
    unsplit_1h: bool = False  # a write of unsaid TTL is priced as 1h (else 5m)

    @property
    def is_break(self) -> bool:
        return self.cause is not None

    @property
    def parts(self) -> tuple[Decimal, ...]:
        """Dollars by what was billed, in the order of PARTS (empty: unpriced)."""
        p, r = self.price, self.req
        if p is None:
            return ()
        w5, w1 = r.write_5m, r.write_1h
        if self.unsplit_1h:
            w1 += r.write_unsplit
        else:
            w5 += r.write_unsplit
        return (
            r.read * p.cache_read / MILLION,
            w5 * p.write_5m / MILLION + w1 * p.write_1h / MILLION,
            r.uncached * p.input / MILLION,
            r.output * p.output / MILLION,
        )


def reusable(prev: Request, provider: str, minimum: int | None = None) -> int:
    """Tokens `prev` leaves readable for the next request of its thread. `minimum`: the
    model's shortest cached prompt where its price says one (Gemini's 2,048 or 4,096), else
    OpenAI's 1,024."""
    if provider == "anthropic":
        return prev.read + prev.write
    t = prev.input_total
    floor = openai.MIN_TOKENS if minimum is None or provider == "openai" else minimum
    return openai.cached_tokens(t // openai.BLOCK_TOKENS, t, floor)


def _fmt(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f}h"
    if seconds >= 60:
        return f"{seconds / 60:.0f}m"
    return f"{seconds:.0f}s"


def analyze(requests: Iterable[Request], pricer: Pricer, opts: Options | None = None) -> list[Row]:
    """Every request as a Row, in (session, thread, time) order."""
    rows: list[Row] = []
    for group in by_thread(requests, pricer, opts):
        rows.extend(group)
    return rows


def by_thread(
    requests: Iterable[Request], pricer: Pricer, opts: Options | None = None
) -> list[list[Row]]:
    """The Rows of each (source, session, thread), in that order, each in time order."""
    opts = opts or Options()
    # Threads first, then each thread's requests in time order: a thread comes mostly in
    # order already, and sorting a few hundred thousand requests at once by a six-part key
    # costs more than the analysis.
    threads: dict[tuple[str, str, str], list[Request]] = {}
    for r in requests:
        k = (r.source, r.session, r.thread)
        group = threads.get(k)
        if group is None:
            threads[k] = [r]
        else:
            group.append(r)
    out: list[list[Row]] = []
    for k in sorted(threads):
        group = threads[k]
        if len(group) > 1:
            group.sort(key=_in_thread)
        out.append(_thread(group, pricer, opts))
    return out


def _in_thread(r: Request) -> tuple[float, str, int]:
    return (r.first_ts or 0.0, r.file, r.line)


def _thread(reqs: list[Request], pricer: Pricer, opts: Options) -> list[Row]:
    out: list[Row] = []
    prev: Request | None = None
    write_kind: str | None = None  # TTL of the newest write in this thread
    floor: int | None = None  # smallest read after the cold start: the system+tools part
    unsplit_1h = pricer.unsplit_ttl == "1h"
    # A thread keeps its model and its write TTL for long runs: their price, provider and
    # TTL are looked up when they change, not once a request.
    model: str | None = None
    listed: Price | None = None
    provider = ""
    minimum: int | None = None
    ttl_kind: str | None = None
    ttl_provider: str | None = None
    ttl = 0
    ratio, min_drop = opts.ratio, opts.min_drop
    for r in reqs:
        # Pricer.usage's split spelled out, the Usage made only for a counterfactual: this
        # runs once per request.
        w5, w1 = r.write_5m, r.write_1h
        if r.write_unsplit:
            if unsplit_1h:
                w1 += r.write_unsplit
            else:
                w5 += r.write_unsplit
        read = r.read
        total_in = r.uncached + read + w5 + w1
        if r.raw_model != model:
            model = r.raw_model
            listed, provider = pricer.price(model), pricer.provider(model)
            minimum = None if listed is None else listed.min_cacheable_tokens
        price = listed
        usd: Decimal | None = None
        if price is not None:
            if price.tiers:  # a long context's prices, by the request's whole input
                price = price.at(total_in)
            usd = (
                r.uncached * price.input
                + read * price.cache_read
                + w5 * price.write_5m
                + w1 * price.write_1h
                + r.output * price.output
            ) / MILLION
        if ttl_provider != provider or ttl_kind != write_kind:
            ttl_kind, ttl_provider = write_kind, provider
            ttl = _ttl(opts, write_kind, provider)
        if prev is None:
            row = Row(r, usd, usd, 0, None, ttl, price=price, unsplit_1h=unsplit_1h)
            _cold_start(row)
        else:
            gap = None
            if r.first_ts is not None and prev.last_ts is not None:
                gap = max(r.first_ts - prev.last_ts, 0.0)
            # Most requests show no signal: the checks of `_signals` made here first, and
            # then the shared empty tuple, not an empty list a row.
            signals: list[Signal] | tuple[()] = ()
            if (
                r.raw_model != prev.raw_model
                or r.compaction
                or r.rewrite
                or (gap is not None and gap > ttl)
                or (r.first_in_file and prev.file != r.file)
            ):
                signals = _signals(r, prev, gap, ttl, write_kind, opts) or ()
            if provider == "anthropic":  # `reusable` spelled out for the commonest case
                expected = prev.read + prev.write_5m + prev.write_1h + prev.write_unsplit
            else:
                expected = reusable(prev, provider, minimum)
            if expected > total_in:
                expected = total_in
            rebilled = expected - read if expected > read else 0
            ceiling_usd = usd
            if rebilled and usd is not None:
                ceiling = _counterfactual(Usage(r.uncached, read, w5, w1, r.output), rebilled)
                ceiling_usd = pricer.cost(r, ceiling)
            row = Row(
                r,
                usd,
                ceiling_usd,
                expected,
                gap,
                ttl,
                signals,
                rebilled=rebilled,
                price=price,
                unsplit_1h=unsplit_1h,
            )
            if (
                r.has_cache
                and prev.has_cache
                and read < ratio * expected
                and expected - read >= min_drop
            ):
                _attribute(row, floor, prev.input_total)
            if read > 0:
                floor = read if floor is None or read < floor else floor
        if r.write_1h:
            write_kind = "1h"
        elif r.write_5m:
            write_kind = "5m" if provider == "anthropic" else provider
        elif r.write_unsplit:
            write_kind = "unsplit"
        out.append(row)
        prev = r
    return out


def _ttl(opts: Options, write_kind: str | None, provider: str) -> int:
    if opts.ttl != "auto":
        return TTL_SECONDS[opts.ttl]
    if write_kind == "1h":
        return int(anthropic.ttl_seconds("1h"))
    if provider == "openai":
        return openai.IN_MEMORY_SECONDS
    return int(anthropic.ttl_seconds(None))


def _signals(
    r: Request, prev: Request, gap: float | None, ttl: int, write_kind: str | None, opts: Options
) -> list[Signal]:
    found: list[Signal] = []
    a, b = normalize(prev.raw_model), normalize(r.raw_model)
    if a != b:
        found.append(Signal("model_switch", "high", f"model {a} -> {b} (the cache is per model)"))
    if r.compaction:
        found.append(Signal("compaction", "high", r.compaction))
    if gap is not None and gap > ttl:
        split = write_kind in anthropic.TTL_LABELS or opts.ttl != "auto"
        sure = split and gap >= 1.2 * ttl
        said = (
            f"prev write ephemeral_{write_kind}"
            if write_kind in anthropic.TTL_LABELS
            else (f"--ttl {opts.ttl}" if opts.ttl != "auto" else "write TTL not in the log")
        )
        found.append(
            Signal(
                "ttl_expiry",
                "high" if sure else "medium",
                f"gap={_fmt(gap)} > ttl={_fmt(ttl)} ({said})",
            )
        )
    if r.rewrite:
        found.append(Signal("history_rewrite", "medium", r.rewrite))
    elif r.first_in_file and prev.file != r.file:
        found.append(
            Signal("history_rewrite", "medium", f"resume: first request of a new file ({r.file})")
        )
    return found


def _cold_start(row: Row) -> None:
    r = row.req
    if r.has_cache and r.write > 0 and r.write > r.read:
        sub = r.thread != "main"
        row.cause = "subagent_cold_start" if sub else "session_cold_start"
        row.confidence = "high"
        who = "subagent" if sub else "main"
        row.evidence = f"first request of the {who} thread: wrote {r.write}, read {r.read}"
        row.inherent = True
        row.lost = Decimal(0)


def _attribute(row: Row, floor: int | None, before: int) -> None:
    r = row.req
    if row.signals:
        first = row.signals[0]
        row.cause, row.confidence = first.cause, first.confidence
        row.evidence = "; ".join(s.evidence for s in row.signals)
    elif before >= COMPACT_MIN and r.input_total <= COMPACT_RATIO * before:
        # The whole context shrank, not only the cached part: a history replaced by its
        # summary. A log stripped of its compaction events still shows this.
        row.cause, row.confidence = "compaction", "low"
        row.evidence = (
            f"context fell {1 - r.input_total / before:.0%} ({before:,} -> {r.input_total:,} "
            "tokens) with no compaction event in the log: a compaction inferred from the drop"
        )
    elif r.read > 0 and floor is not None and r.read <= floor * 1.1:
        row.cause, row.confidence = "prefix_change", "low"
        row.evidence = (
            f"read fell to {r.read}, the session's floor ({floor}): tools/system changed (inferred)"
        )
    elif r.read > 0:
        row.cause, row.confidence = "prefix_change", "low"
        row.evidence = (
            f"read fell to {r.read} of {row.expected}: history changed mid-way (inferred)"
        )
    else:
        row.cause, row.confidence = "unknown", "low"
        row.evidence = f"read 0 of {row.expected} expected, gap within TTL, no signal in the log"
    row.inherent = row.cause in ("compaction", "unknown")
    if row.usd is not None and row.ceiling_usd is not None:
        row.lost = row.usd - row.ceiling_usd


def _counterfactual(u: Usage, tokens: int) -> Usage:
    """`u` with `tokens` more read, taken from its writes (5m, then 1h), then its uncached."""
    w5 = min(u.cache_write_5m, tokens)
    rest = tokens - w5
    w1 = min(u.cache_write_1h, rest)
    rest -= w1
    unc = min(u.uncached_input, rest)
    return Usage(
        u.uncached_input - unc,
        u.cache_read + w5 + w1 + unc,
        u.cache_write_5m - w5,
        u.cache_write_1h - w1,
        u.output,
    )
