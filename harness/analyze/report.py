"""The cache report: analysed requests summed per session, turn, agent, model and day, with the
breaks, events and notes, as plain data with a versioned schema (what the JSON output is).
Every dollar figure is a list-price estimate; an unpriced model's tokens are counted apart
and its rows say "unpriced", never $0. A source without cache counters has hit rate None (N/A),
never 0%. Pure."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import msgspec

from ..billing.prices import MILLION
from .breaks import AVOIDABLE, PARTS, Row
from .collect import Collected
from .model import NOTE_TEXT, Request

if TYPE_CHECKING:
    from .threads import Blob, ThreadPart

SCHEMA_VERSION = 1
CAUSES = (
    "model_switch", "compaction", "ttl_expiry", "history_rewrite", "subagent_cold_start",
    "session_cold_start", "prefix_change", "unknown",
)  # fmt: skip


_MICRO = Decimal("0.000001")
_ZERO = "0.000000"


def _money(x: Decimal | None) -> str | None:
    return None if x is None else str(x.quantize(_MICRO))


@lru_cache(maxsize=4096)
def _date(day: int) -> str:
    return datetime.fromtimestamp(day * 86400, UTC).date().isoformat()


# The clock's parts as ready text: joining them is half the cost of formatting the numbers.
_HOUR_MINUTE = tuple(f"{m // 60:02d}:{m % 60:02d}:" for m in range(24 * 60))
_SECOND = tuple(f"{s:02d}." for s in range(60))
_MILLI = tuple(f"{ms:03d}Z" for ms in range(1000))


def iso(ts: float | None) -> str | None:
    """`datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")` with a Z, the
    same text spelled out by hand: this runs twice per request written."""
    if ts is None:
        return None
    frac, whole = math.modf(ts)
    sec, us = int(whole), round(frac * 1e6)  # fromtimestamp's rounding to the microsecond
    if us >= 1_000_000:
        sec, us = sec + 1, us - 1_000_000
    elif us < 0:
        sec, us = sec - 1, us + 1_000_000
    day, rest = divmod(sec, 86400)
    return f"{_date(day)}T{_HOUR_MINUTE[rest // 60]}{_SECOND[rest % 60]}{_MILLI[us // 1000]}"


TOTALS_FIELDS = (
    "requests", "tokens", "hit_rate", "hit_rate_latest", "write_amplification",
    "cold_start_share", "usd", "ceiling_usd", "lost_usd", "usd_by_part", "lost_by_cause",
    "unpriced", "breaks", "first", "last", "models",
)  # fmt: skip


class Totals(msgspec.Struct, gc=False):
    """Sums over a group of requests."""

    requests: int = 0
    uncached: int = 0
    read: int = 0
    write_5m: int = 0
    write_1h: int = 0
    write_unsplit: int = 0
    output: int = 0
    cache_known: bool = False
    usd: Decimal = Decimal(0)
    ceiling_usd: Decimal = Decimal(0)
    lost_usd: Decimal = Decimal(0)
    unpriced_tokens: int = 0
    # Tuples, not sets: a group holds one model or a few, and a report a few hundred
    # thousand groups (a set is 216 bytes even when empty).
    unpriced_models: tuple[str, ...] = ()
    cold_writes: int = 0
    breaks: dict[str, int] = msgspec.field(default_factory=dict)  # a plain dict: one per group
    lost_by_cause: dict[str, Decimal] = msgspec.field(default_factory=dict)
    first_ts: float | None = None
    last_ts: float | None = None
    last_hit: float | None = None
    last_hit_ts: float = float("-inf")
    models: tuple[str, ...] = ()
    top_break: tuple[Decimal, str] | None = None
    parts: list[Decimal] | None = None  # dollars in the order of PARTS; None: nothing priced
    # Tokens by price while requests are added: [price, read, write 5m, write 1h, uncached,
    # output] by the price's id; made dollars once, by `priced` (a group holds one price or
    # two, and the sum of the tokens times a price is the sum of the dollars, to the digit).
    tokens_by_price: dict[int, list[Any]] | None = None

    def add(self, row: Row) -> None:
        r = row.req
        self.requests += 1
        read = r.read
        total_in = r.uncached + read + r.write_5m + r.write_1h + r.write_unsplit
        self.uncached += r.uncached
        self.read += read
        self.write_5m += r.write_5m
        self.write_1h += r.write_1h
        self.write_unsplit += r.write_unsplit
        self.output += r.output
        model = r.raw_model
        if model not in self.models:
            self.models += (model,)
        if row.usd is None:
            self.unpriced_tokens += total_in + r.output
            if model not in self.unpriced_models:
                self.unpriced_models += (model,)
        else:
            w5, w1 = r.write_5m, r.write_1h
            if row.unsplit_1h:
                w1 += r.write_unsplit
            else:
                w5 += r.write_unsplit
            price = row.price
            k = id(price) * 2 + row.unsplit_1h
            by = self.tokens_by_price
            if by is None:
                self.tokens_by_price = {k: [price, read, w5, w1, r.uncached, r.output]}
            else:
                got = by.get(k)
                if got is None:
                    by[k] = [price, read, w5, w1, r.uncached, r.output]
                else:
                    got[1] += read
                    got[2] += w5
                    got[3] += w1
                    got[4] += r.uncached
                    got[5] += r.output
            self.usd += row.usd
            self.ceiling_usd += row.ceiling_usd if row.ceiling_usd is not None else row.usd
        ts = r.first_ts
        if ts is not None and (self.first_ts is None or ts < self.first_ts):
            self.first_ts = ts
        ts = r.last_ts
        if ts is not None and (self.last_ts is None or ts > self.last_ts):
            self.last_ts = ts
        if r.has_cache:
            self.cache_known = True
            at = r.last_ts if r.last_ts is not None else (r.first_ts or 0.0)
            if total_in and at >= self.last_hit_ts:
                self.last_hit, self.last_hit_ts = read / total_in, at
        if row.cause is not None:
            self.breaks[row.cause] = self.breaks.get(row.cause, 0) + 1
            if row.cause.endswith("cold_start"):
                self.cold_writes += r.write
            if row.lost:
                self.lost_usd += row.lost
                self.lost_by_cause[row.cause] = (
                    self.lost_by_cause.get(row.cause, Decimal(0)) + row.lost
                )
                if self.top_break is None or row.lost > self.top_break[0]:
                    self.top_break = (row.lost, row.cause)

    def priced(self) -> None:
        """The tokens added by price made dollars by part (once all requests are added)."""
        by = self.tokens_by_price
        if by is None:
            return
        self.tokens_by_price = None
        parts = self.parts or [Decimal(0)] * 4
        for p, read, w5, w1, unc, out in by.values():
            parts[0] += read * p.cache_read / MILLION
            parts[1] += w5 * p.write_5m / MILLION + w1 * p.write_1h / MILLION
            parts[2] += unc * p.input / MILLION
            parts[3] += out * p.output / MILLION
        self.parts = parts

    def merge(self, o: Totals) -> None:
        """Add another group's sums (the report sums each request once, into the finest cell,
        and merges cells into every grouping)."""
        # Spelled out, not a loop over names: this runs once per cell per grouping.
        self.requests += o.requests
        self.uncached += o.uncached
        self.read += o.read
        self.write_5m += o.write_5m
        self.write_1h += o.write_1h
        self.write_unsplit += o.write_unsplit
        self.output += o.output
        self.usd += o.usd
        self.ceiling_usd += o.ceiling_usd
        self.lost_usd += o.lost_usd
        self.unpriced_tokens += o.unpriced_tokens
        self.cold_writes += o.cold_writes
        self.cache_known = self.cache_known or o.cache_known
        if o.unpriced_models:
            for m in o.unpriced_models:
                if m not in self.unpriced_models:
                    self.unpriced_models += (m,)
        if o.models != self.models:
            for m in o.models:
                if m not in self.models:
                    self.models += (m,)
        theirs = o.parts
        if theirs is not None:
            mine = self.parts
            if mine is None:
                self.parts = list(theirs)
            else:  # the four parts of PARTS, spelled out
                mine[0] += theirs[0]
                mine[1] += theirs[1]
                mine[2] += theirs[2]
                mine[3] += theirs[3]
        if o.breaks:
            for k, n in o.breaks.items():
                self.breaks[k] = self.breaks.get(k, 0) + n
        if o.lost_by_cause:
            d = self.lost_by_cause
            for k, v in o.lost_by_cause.items():
                d[k] = d[k] + v if k in d else v
        if o.first_ts is not None and (self.first_ts is None or o.first_ts < self.first_ts):
            self.first_ts = o.first_ts
        if o.last_ts is not None and (self.last_ts is None or o.last_ts > self.last_ts):
            self.last_ts = o.last_ts
        if o.last_hit is not None and o.last_hit_ts >= self.last_hit_ts:
            self.last_hit, self.last_hit_ts = o.last_hit, o.last_hit_ts
        if o.top_break is not None and (
            self.top_break is None or o.top_break[0] > self.top_break[0]
        ):
            self.top_break = o.top_break

    def copy(self) -> Totals:
        """A copy to merge more into (what merging into an empty Totals makes, at a quarter
        of the cost): its dicts and list its own, the priced tokens not carried."""
        c = msgspec.structs.replace(self, tokens_by_price=None)
        c.breaks = dict(self.breaks)
        c.lost_by_cause = dict(self.lost_by_cause)
        if self.parts is not None:
            c.parts = list(self.parts)
        return c

    def to_dict(self) -> dict[str, Any]:
        return dict(zip(TOTALS_FIELDS, self.figures(), strict=True))

    def figures(self) -> tuple[Any, ...]:
        """The figures of `to_dict`, in the order of TOTALS_FIELDS."""
        # Each figure read once and the one-entry cases taken without a sort: this runs once
        # per session, turn and thread written.
        read, write = self.read, self.write_5m + self.write_1h + self.write_unsplit
        total_in = self.uncached + read + write
        models, unpriced = self.models, self.unpriced_models
        priced = not unpriced or self.unpriced_tokens < total_in + self.output
        known = self.cache_known
        hit = read / total_in if known and total_in else None
        parts, lost_by, breaks = self.parts, self.lost_by_cause, self.breaks
        # Equal sums print alike: most groups' ceiling is what they cost.
        usd = _money(self.usd) if priced else None
        return (
            self.requests,
            {
                "uncached_input": self.uncached,
                "cache_read": read,
                "cache_write_5m": self.write_5m,
                "cache_write_1h": self.write_1h,
                "cache_write_unsplit": self.write_unsplit,
                "output": self.output,
                "input_total": total_in,
            },
            None if hit is None else round(hit, 6),
            None if hit is None or self.last_hit is None else round(self.last_hit, 6),
            round(write / read, 6) if read and known else None,
            round(self.cold_writes / write, 6) if write else None,
            usd,
            usd if usd is None or self.ceiling_usd == self.usd else _money(self.ceiling_usd),
            # Nothing lost is Decimal(0) (a loss is added only when it is not zero).
            (_ZERO if not self.lost_usd else _money(self.lost_usd)) if priced else None,
            {}
            if parts is None
            else {
                PARTS[0]: _money(parts[0]),
                PARTS[1]: _money(parts[1]),
                PARTS[2]: _money(parts[2]),
                PARTS[3]: _money(parts[3]),
            },
            {k: _money(v) for k, v in sorted(lost_by.items())} if lost_by else {},
            {"models": sorted(unpriced), "tokens": self.unpriced_tokens} if unpriced else None,
            (dict(sorted(breaks.items())) if len(breaks) > 1 else dict(breaks)),
            iso(self.first_ts),
            iso(self.last_ts),
            sorted(models) if len(models) > 1 else list(models),
        )


Cell = tuple[str, str, str, int, str, int | None]  # source, session, thread, turn, model, day


def cells_of(rows: Iterable[Row]) -> dict[Cell, Totals]:
    """Each request summed into its cell (the day as days since 1970, None: no timestamp)."""
    out: dict[Cell, Totals] = {}
    for row in rows:
        r = row.req
        ts = r.first_ts
        k = (
            r.source,
            r.session,
            r.thread,
            r.turn,
            r.raw_model,
            None if ts is None else int(ts // 86400),
        )
        t = out.get(k)
        if t is None:
            t = out[k] = Totals()
        t.add(row)
    for t in out.values():
        t.priced()
    return out


def _merged(cells: dict[Any, Totals], key: Callable[[Any], Any]) -> dict[Any, Totals]:
    """Cells merged by `key`. A group of one cell is that cell itself, not a copy (most
    threads hold one turn of one model on one day): groups are read, never added to, once
    made."""
    out: dict[Any, Totals] = {}
    borrowed: set[Any] = set()
    for c, t in cells.items():
        k = key(c)
        m = out.get(k)
        if m is None:
            out[k] = t
            borrowed.add(k)
            continue
        if k in borrowed:
            borrowed.discard(k)
            m = out[k] = m.copy()
        m.merge(t)
    return out


def _day(day: int | None) -> str:
    return "unknown" if day is None else _date(day)


def _place(r: Request) -> dict[str, Any]:
    """Where a request stands: its log, session, thread, turn and de-duplication key."""
    return {
        "source": r.source,
        "session": r.session,
        "thread": r.thread,
        "turn": r.turn,
        "key": r.key,
    }


REQUEST_FIELDS = (
    "source", "session", "thread", "turn", "key", "first", "last", "model", "speed",
    "uncached_input", "cache_read", "cache_write_5m", "cache_write_1h", "cache_write_unsplit",
    "output", "hit_rate", "usd", "ceiling_usd", "logged_usd", "gap_s", "ttl_s",
    "expected_reusable", "break", "fallback_model", "file", "line",
)  # fmt: skip
# A request's record as a struct: made and encoded at a third of a dict's cost, and a report
# writes one per request.
RequestRecord = msgspec.defstruct("RequestRecord", [(k, Any) for k in REQUEST_FIELDS])


def request_record(row: Row) -> Any:
    """A request's record, its fields in the order of REQUEST_FIELDS."""
    r = row.req
    first = iso(r.first_ts)
    total = r.uncached + r.read + r.write_5m + r.write_1h + r.write_unsplit
    usd = _money(row.usd)
    return RequestRecord(
        r.source,
        r.session,
        r.thread,
        r.turn,
        r.key,
        first,
        first if r.last_ts == r.first_ts else iso(r.last_ts),
        r.raw_model,
        r.speed,
        r.uncached,
        r.read,
        r.write_5m,
        r.write_1h,
        r.write_unsplit,
        r.output,
        round(r.read / total, 6) if r.has_cache and total else None,
        usd,
        usd if row.ceiling_usd is row.usd else _money(row.ceiling_usd),
        r.logged_cost,
        None if row.gap is None else round(row.gap, 3),
        row.ttl,
        row.expected,
        row.cause,
        r.fallback_model,
        r.file,
        r.line,
    )


def request_dict(row: Row) -> dict[str, Any]:
    return msgspec.structs.asdict(request_record(row))


def break_dict(row: Row) -> dict[str, Any]:
    r = row.req
    return {
        **_place(r),
        "at": iso(r.first_ts),
        "model": r.raw_model,
        "cause": row.cause,
        "confidence": row.confidence,
        "evidence": row.evidence,
        "signals": [s.cause for s in row.signals],
        "inherent": row.inherent,
        "avoidable": row.cause in AVOIDABLE,
        "tokens_rebilled": row.rebilled,
        "usd_lost": _money(row.lost),
        "file": r.file,
        "line": r.line,
    }


Item = TypeVar("Item")


class Rows(Sequence[dict[str, Any]], Generic[Item]):
    """The report's per-request, per-break, per-turn and per-agent records, made when read: a
    report of a gigabyte of logs holds its figures once, not again as dicts (the writers
    stream them)."""

    def __init__(
        self,
        rows: list[Item],
        as_dict: Callable[[Item], dict[str, Any]],
        as_record: Callable[[Item], Any] | None = None,
    ):
        self._rows, self._as_dict = rows, as_dict
        self._as_record = as_record or as_dict

    def records(self, start: int, stop: int) -> list[Any]:
        """The records from `start` to `stop` as the JSON writer takes them (structs where
        there is a kind: the same JSON as the dicts, made faster)."""
        return [self._as_record(w) for w in self._rows[start:stop]]

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._as_dict(w) for w in self._rows[i]]
        return self._as_dict(self._rows[i])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return map(self._as_dict, self._rows)

    def where(self, sessions: set[tuple[str, str]]) -> list[dict[str, Any]]:
        """The records of these (source, session)s only, the rest never made (rows of
        requests)."""
        return [
            self._as_dict(w)
            for w in self._rows
            if isinstance(w, Row) and (w.req.source, w.req.session) in sessions
        ]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__: ClassVar[None] = None  # type: ignore[assignment]


Run = tuple[tuple[Any, ...], "Blob", int]  # a thread, session or turn; its records; their count


def held(blob: Blob) -> bytes:
    """Records held in memory (what `Encoded` reads by default)."""
    assert isinstance(blob, bytes)
    return blob


PIECE_BYTES = 1 << 20  # what `Encoded.array` hands over at a time


class Encoded(Sequence[dict[str, Any]]):
    """Records already encoded as JSON, a run of them per thread ((source, session, thread),
    the records as a JSON array or where `read` finds it, their count): the JSON writer
    copies the bytes; anything else reads the records decoded."""

    def __init__(
        self,
        runs: list[Run],
        read: Callable[[Blob], bytes] = held,
        read_into: Callable[[Blob, memoryview], None] | None = None,
    ):
        self._runs, self._read, self._read_into = runs, read, read_into
        self._len = sum(n for _, _, n in runs)

    def chunks(self) -> Iterator[memoryview]:
        """Each thread's records, comma-separated (its array's inside), in order (none
        empty)."""
        return (memoryview(self._read(b))[1:-1] for _, b, n in self._runs if n)

    def array(self) -> Iterator[memoryview]:
        """All the records as one JSON array, in pieces of one reused buffer (each good until
        the next is asked for): each thread's array is read where the last one's closing
        bracket lies, and its opening bracket made the comma between them, so that nothing
        is copied in this process (the kernel copies each twice: read, then written)."""
        buf = bytearray(PIECE_BYTES)
        view = memoryview(buf)
        end = 0  # bytes held; buf[end - 1] is the last array's "]"
        for _, b, n in self._runs:
            if not n:
                continue
            k = len(b) if isinstance(b, bytes) else b[2]
            if end and end - 1 + k > len(buf):
                yield view[: end - 1]
                buf[0], end = 0x5D, 1  # its "]", where the next array's "[" goes
            if k + 1 > len(buf):  # a thread bigger than the buffer: a buffer that holds it
                view.release()
                buf = bytearray(buf[:end]) + bytes(k + 1 - end)
                view = memoryview(buf)
            at = end - 1 if end else 0
            if isinstance(b, bytes) or self._read_into is None:
                view[at : at + k] = self._read(b)
            else:
                self._read_into(b, view[at : at + k])
            if end:
                buf[at] = 0x2C  # ","
            end = at + k
        yield view[:end] if end else memoryview(b"[]")

    def _decoded(self, runs: Iterable[Run]) -> Iterator[Any]:
        for _, b, n in runs:
            if n:
                yield from msgspec.json.decode(self._read(b))

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self._decoded(self._runs)

    def __getitem__(self, i: Any) -> Any:
        return list(self)[i]

    def where(self, sessions: set[tuple[str, str]]) -> list[dict[str, Any]]:
        """The records of these (source, session)s only, the rest left encoded."""
        return list(self._decoded(r for r in self._runs if r[0][:2] in sessions))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__: ClassVar[None] = None  # type: ignore[assignment]


def _record(name: str, *head: str, tail: tuple[str, ...] = ()) -> Any:
    return msgspec.defstruct(name, [(k, Any) for k in (*head, *TOTALS_FIELDS, *tail)])


# The records of a group as structs for the JSON writer (as RequestRecord): the same JSON as
# their dicts, made without building a dict and copying it into another.
TurnRecord = _record("TurnRecord", "source", "session", "turn")
AgentRecord = _record("AgentRecord", "source", "session", "thread")
SessionRecord = _record(
    "SessionRecord", "source", "session", "project", "human_prompts", "live_branch_prompts",
    "threads", tail=("top_break",),
)  # fmt: skip


def _turn_record(item: tuple[tuple[str, str, int], Totals], figures: Figures = None) -> Any:
    (s, sid, n), t = item
    return TurnRecord(s, sid, n, *(figures or t.figures()))


# A group's figures where they are already made (None: made from its sums): a thread with
# one cell, a session with one thread and its one turn are the same sums.
Figures = tuple[Any, ...] | None


def agent_record(key: tuple[str, str, str], t: Totals, figures: Figures = None) -> Any:
    """A thread's record (its sums `t`)."""
    return AgentRecord(*key, *(figures or t.figures()))


def _turn_dict(item: tuple[tuple[str, str, int], Totals]) -> dict[str, Any]:
    return msgspec.structs.asdict(_turn_record(item))


def build(rows: list[Row], got: Collected) -> dict[str, Any]:
    """The whole report as JSON-ready data (schema_version 1)."""
    from .threads import thread_parts

    return build_parts(thread_parts(rows), got)


class SessionPart(msgspec.Struct, gc=False):
    """A session's records made where its file was read: good for the report where no other
    file adds to the session (the same threads, the same prompt counts: `build_parts`
    checks)."""

    threads: int  # how many threads of the session the file holds
    prompts: int | None  # the file's human prompts of the session (None: none counted)
    live_prompts: int | None
    first_ts: float | None
    record: bytes  # its record, encoded as a JSON array of one
    turns: list[tuple[float | None, int, bytes]]  # each turn's first time, number, record


def encoded(records: list[Any]) -> bytes:
    """Records as a JSON array (UTF-8; a lone surrogate from a file name escaped)."""
    try:
        return msgspec.json.encode(records)
    except (UnicodeError, TypeError, OverflowError):
        return json.dumps(records, default=_plain).encode()  # ASCII: escaped


def _plain(obj: Any) -> Any:
    return msgspec.structs.asdict(obj) if isinstance(obj, msgspec.Struct) else list(obj)


def session_record(
    key: tuple[str, str],
    t: Totals,
    project: str,
    prompts: int | None,
    live_prompts: int | None,
    threads: list[str],
    figures: Figures = None,
) -> Any:
    """A session's record (its sums `t`)."""
    top = None if t.top_break is None else t.top_break[1]
    figs = figures or t.figures()
    return SessionRecord(*key, project, prompts, live_prompts, threads, *figs, top)


def session_part(
    parts: list[ThreadPart],
    sums: list[Totals],
    cells: list[tuple[Cell, Totals]],
    said: tuple[dict[str, int], dict[str, int]],
    made: dict[int, tuple[Any, ...]] | None = None,
) -> SessionPart:
    """The records of the session whose threads' `parts` (with their sums and cells, in
    order) are all a file holds of it; `said`: the file's prompt counts by session. Summed as
    `build_parts` sums them: the first thread's sums, or a copy with the others merged in.
    `made`: figures already made, by the id of sums that outlive the call."""
    made = {} if made is None else made
    key = parts[0].key[:2]
    t = sums[0]
    if len(sums) > 1:
        t = t.copy()
        for o in sums[1:]:
            t.merge(o)
    prompts, live = said[0].get(key[1]), said[1].get(key[1])
    threads = [p.key[2] for p in parts]
    record = session_record(key, t, parts[-1].project, prompts, live, threads, made.get(id(t)))
    turns = _merged(dict(cells), lambda c: c[3])
    return SessionPart(
        len(parts),
        prompts,
        live,
        t.first_ts,
        encoded([record]),
        [
            (u.first_ts, n, encoded([_turn_record(((*key, n), u), made.get(id(u)))]))
            for n, u in turns.items()
        ],
    )


def build_parts(
    parts: list[ThreadPart],
    got: Collected,
    read: Callable[[Blob], bytes] = held,
    into: Callable[[Blob, memoryview], None] | None = None,
) -> dict[str, Any]:
    """The report from its threads' parts, in (source, session, thread) order; `read` finds
    their records where they are not held (`into`, where given: reads them into a buffer)."""
    # Each request is summed once, into its cell (by the part's maker); every grouping merges
    # cells.
    cells: dict[Cell, Totals] = {}
    projects: dict[tuple[str, str], str] = {}
    made: dict[tuple[str, str, str], Blob] = {}
    for p in parts:
        cells.update(p.cells)
        projects[p.key[:2]] = p.project
        made[p.key] = p.agent
    # The sessions whose records their file made, and the others.
    ready: list[tuple[tuple[float, tuple[Any, ...]], bytes]] = []
    ready_turns: list[tuple[tuple[float, tuple[Any, ...]], bytes]] = []
    others: set[tuple[str, str]] = set()
    i = 0
    while i < len(parts):
        key = parts[i].key[:2]
        j = i + 1
        while j < len(parts) and parts[j].key[:2] == key:
            j += 1
        sp = parts[i].session
        if (
            sp is not None
            and sp.threads == j - i
            and sp.prompts == got.prompts.get(key)
            and sp.live_prompts == got.live_prompts.get(key)
        ):
            ready.append(((sp.first_ts or 0, key), sp.record))
            ready_turns.extend(((ts or 0, (*key, n)), b) for ts, n, b in sp.turns)
        else:
            others.add(key)
        i = j
    # Only the others made here.
    cells_of_others = {c: t for c, t in cells.items() if c[:2] in others} if ready else cells
    # The threads' own sums only where their sessions are made here (the others' records
    # and order come with their parts).
    agents_of = _merged(cells_of_others, lambda c: (c[0], c[1], c[2]))
    turns = _merged(cells_of_others, lambda c: (c[0], c[1], c[3]))
    # A thread's cells come together (the parts are in thread order): sessions merged from
    # the threads take the cells in the same order, with fewer merges.
    sessions = _merged(agents_of, lambda a: (a[0], a[1]))
    # The coarse groupings from one middle grouping (a few thousand cells, not one per
    # thread and turn).
    middle = _merged(cells, lambda c: ("main" if c[2] == "main" else "subagent", c[4], c[5]))
    kinds = _merged(middle, lambda c: c[0])
    models = _merged(middle, lambda c: c[1])
    days = _merged(middle, lambda c: _day(c[2]))
    total = _merged(middle, lambda c: ()).get((), Totals())
    del cells, cells_of_others  # every grouping is made: the finest cells go before the records
    threads: dict[tuple[str, str], list[str]] = {}
    for s, sid, th in sorted(agents_of):
        threads.setdefault((s, sid), []).append(th)
    events: list[dict[str, Any]] = [
        {
            "session": e.session,
            "thread": e.thread,
            "kind": e.kind,
            "at": iso(e.ts),
            "evidence": e.evidence,
        }
        for e in got.events
    ]
    for p in parts:
        events.extend(p.events)
    notes = {k: v for k, v in sorted(got.notes.items()) if v}

    def session_of(item: tuple[tuple[str, str], Totals]) -> Any:
        k, t = item
        return session_record(
            k, t, projects.get(k, ""), got.prompts.get(k), got.live_prompts.get(k),
            threads.get(k, []),
        )  # fmt: skip

    def session_dict(item: tuple[tuple[str, str], Totals]) -> dict[str, Any]:
        return msgspec.structs.asdict(session_of(item))

    def by_start(kv: tuple[Any, Totals]) -> tuple[float, Any]:
        return (kv[1].first_ts or 0, kv[0])

    sessions_out: Sequence[dict[str, Any]]
    turns_out: Sequence[dict[str, Any]]
    if ready:
        # Those made here encoded as their file's are, all in the report's order.
        ready += [
            ((t.first_ts or 0, k), encoded([session_of((k, t))])) for k, t in sessions.items()
        ]
        ready_turns += [
            ((t.first_ts or 0, k), encoded([_turn_record((k, t))])) for k, t in turns.items()
        ]
        ready.sort(key=lambda r: r[0])
        ready_turns.sort(key=lambda r: r[0])
        sessions_out = Encoded([(k, b, 1) for (_, k), b in ready])
        turns_out = Encoded([(k, b, 1) for (_, k), b in ready_turns])
    else:
        sessions_out = Rows(sorted(sessions.items(), key=by_start), session_dict, session_of)
        turns_out = Rows(sorted(turns.items(), key=by_start), _turn_dict, _turn_record)
    return {
        "schema_version": SCHEMA_VERSION,
        "price_basis": "list price estimate (USD); not an invoice",
        "files": dict(sorted(got.files.items())),
        "totals": total.to_dict(),
        "sessions": sessions_out,
        "turns": turns_out,
        # Each made where its thread was analysed.
        "agents": Encoded(
            [(k, made[k], 1) for _, k in sorted((p.first_ts or 0, p.key) for p in parts)],
            read,
            into,
        ),
        "by_agent": {k: t.to_dict() for k, t in sorted(kinds.items())},
        "models": {k: t.to_dict() for k, t in sorted(models.items())},
        "days": {k: t.to_dict() for k, t in sorted(days.items())},
        "requests": Encoded([(p.key, p.requests, p.n_requests) for p in parts], read, into),
        "breaks": Encoded([(p.key, p.breaks, p.n_breaks) for p in parts if p.n_breaks], read, into),
        "events": sorted(events, key=lambda e: (e["session"], e["at"] or "")),
        "notes": {k: {"count": v, "what": NOTE_TEXT.get(k, k)} for k, v in notes.items()},
    }


def by_loss(sessions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sessions by dollars lost to cache breaks, then dollars spent, most first (the order
    of the table and the page)."""
    return sorted(
        sessions,
        key=lambda s: (-float(s["lost_usd"] or 0), -float(s["usd"] or 0), s["first"] or ""),
    )


def headline(report: dict[str, Any]) -> str:
    t = report["totals"]
    n = len(report["sessions"])
    hit = "N/A" if t["hit_rate"] is None else f"{t['hit_rate']:.1%}"
    money = usd_text(t["usd"], t["unpriced"])
    parts = [
        f"{n} session{'s' * (n != 1)}, {money} (list price estimate), {hit} of input from cache"
    ]
    lost = t["lost_usd"]
    if lost is not None and t["usd"] is not None:
        share = float(lost) / float(t["usd"]) if float(t["usd"]) else 0.0
        by = ", ".join(
            f"{k.replace('_', ' ')} ${float(v):,.4f}"
            for k, v in sorted(t["lost_by_cause"].items(), key=lambda kv: -float(kv[1] or 0))
        )
        parts.append(
            f"${float(lost):,.4f} ({share:.1%}) lost to cache breaks" + (f": {by}" if by else "")
        )
    if t["unpriced"]:
        parts.append(f"unpriced models: {', '.join(t['unpriced']['models'])}")
    return "; ".join(parts)


def usd_text(value: str | None, unpriced: Any = None) -> str:
    """Dollars as the report prints them (an unpriced figure names its tokens)."""
    if value is None:
        n = unpriced["tokens"] if unpriced else 0
        return f"unpriced ({n:,} tok)"
    return f"${float(value):,.4f}"
