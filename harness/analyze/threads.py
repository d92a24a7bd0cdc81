"""A thread's share of the report, made where its requests are: its analysed rows summed into
cells, its request and break records already encoded as JSON, its signal events and project.
A reading process makes them for each file it reads (`file_part`), so that the process that
writes the report only merges small sums and copies bytes; a thread whose requests are not all
in one file, or that lost a request to another file, is made again where they meet
(`collect.assemble`). Pure."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import msgspec

from .breaks import Options, Row, by_thread
from .model import Event, FileResult
from .pricing import Pricer
from .report import (
    Cell,
    SessionPart,
    Totals,
    agent_record,
    break_dict,
    cells_of,
    encoded,
    iso,
    request_record,
    session_part,
)

Thread = tuple[str, str, str]  # source, session, thread
# Encoded records, or where a spool holds them: (the writing process's id, offset, length).
Blob = bytes | tuple[int, int, int]


class ThreadPart(msgspec.Struct, gc=False):
    """One thread's rows as the report takes them."""

    key: Thread
    cells: list[tuple[Cell, Totals]]  # in the order the rows first reach them
    requests: Blob  # the request records, a JSON array
    n_requests: int
    breaks: Blob  # the break records, likewise
    n_breaks: int
    events: list[dict[str, Any]]  # model switches and resumes among its signals
    project: str  # the project of its last request
    agent: Blob  # its own record (the report's `agents`), encoded
    # Its session's records, on the session's first thread where a file was read (what the
    # report takes where no other file adds to the session; see `report.build_parts`).
    session: SessionPart | None = None
    first_ts: float | None = None  # its first request's time (the order of `agents`)


class FilePart(msgspec.Struct, gc=False):
    """What one file adds to the report, with what de-duplication across files needs: each
    request's (source, key) in file order, and the Codex fingerprints a fork is checked
    against."""

    path: str
    source: str
    start: float  # the earliest request's time (inf: none has one)
    session: str | None
    parent: str | None
    notes: Counter[str]
    events: list[Event]
    prompts: dict[str, int]
    live_prompts: dict[str, int]
    texts: dict[tuple[str, int], str]
    keys: list[tuple[str, str]]
    fingerprints: list[tuple[int, ...] | None] | None  # None: no request has one
    bursts: list[bool] | None  # a fork's requests' opening-burst flags (None: not a fork)
    threads: list[ThreadPart]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Sent from a reading process with the threads' cells as MessagePack: their sums'
        # Decimals cost pickle a third more both ways.
        fields = msgspec.structs.astuple(self)
        threads = [msgspec.structs.astuple(t)[2:] for t in self.threads]
        keys = [t.key for t in self.threads]
        cells = _pack([t.cells for t in self.threads])
        return _unpack, (fields[:-1], keys, cells, threads)


_pack = msgspec.msgpack.Encoder().encode
_unpack_cells = msgspec.msgpack.Decoder(list[list[tuple[Cell, Totals]]]).decode


def _unpack(
    fields: tuple[Any, ...], keys: list[Thread], cells: bytes, threads: list[tuple[Any, ...]]
) -> FilePart:
    made = [
        ThreadPart(k, c, *t) for k, c, t in zip(keys, _unpack_cells(cells), threads, strict=True)
    ]
    return FilePart(*fields, made)  # type: ignore[call-arg]  # every field, in order


def thread_parts(rows: Iterable[Row]) -> list[ThreadPart]:
    """Rows in (source, session, thread) order as one part per thread, in that order."""
    groups: list[list[Row]] = []
    key: Thread | None = None
    for w in rows:
        r = w.req
        k = (r.source, r.session, r.thread)
        if k != key:
            groups.append([])
            key = k
        groups[-1].append(w)
    return parts_of(groups)


def parts_of(
    groups: list[list[Row]], said: tuple[dict[str, int], dict[str, int]] | None = None
) -> list[ThreadPart]:
    """Each thread's rows (`breaks.by_thread`) as its part. The cells and the records are made
    in one pass over all the rows, then cut at the threads' ends: a pass a thread costs a
    fifth more. `said`: the file's human and live-branch prompts by session, where its
    sessions' records are made here too."""
    rows = [w for g in groups for w in g]
    cells = list(cells_of(rows).items())  # a thread's cells come together, in its order
    records = [request_record(w) for w in rows]
    out: list[ThreadPart] = []
    sums_of: list[Totals] = []
    # Each thread's figures by the id of its sums (alive while this runs): its session's and
    # turns' records take them where they are the same sums.
    made: dict[int, tuple[Any, ...]] = {}
    ends: list[int] = []  # where each thread's cells end
    at = c = 0
    for g in groups:
        r = g[0].req
        key = (r.source, r.session, r.thread)
        d = c + 1  # every thread has a cell
        while d < len(cells) and cells[d][0][:3] == key:
            d += 1
        broken = [w for w in g if w.cause is not None]
        events = []
        for w in g:  # a model switch is an event whether or not the read dropped
            for s in w.signals:
                if s.cause == "model_switch" or (
                    s.cause == "history_rewrite" and s.evidence.startswith("resume")
                ):
                    events.append(
                        {
                            "session": w.req.session,
                            "thread": w.req.thread,
                            "kind": s.cause,
                            "at": iso(w.req.first_ts),
                            "evidence": s.evidence,
                        }
                    )
        n = len(g)
        # The thread's sums as the report's grouping makes them: its first cell, or a copy
        # with the others merged in, in order.
        sums = cells[c][1]
        if d > c + 1:
            sums = sums.copy()
            for _, t in cells[c + 1 : d]:
                sums.merge(t)
        figures = made[id(sums)] = sums.figures()
        out.append(
            ThreadPart(
                key,
                cells[c:d],
                encoded(records[at : at + n]),
                n,
                encoded([break_dict(w) for w in broken]) if broken else b"",
                len(broken),
                events,
                g[-1].req.project,
                encoded([agent_record(key, sums, figures)]),
                first_ts=sums.first_ts,
            )
        )
        sums_of.append(sums)
        ends.append(d)
        at, c = at + n, d
    if said is not None:
        i = 0
        while i < len(out):
            key = out[i].key
            j = i + 1
            while j < len(out) and out[j].key[:2] == key[:2]:
                j += 1
            out[i].session = session_part(
                out[i:j], sums_of[i:j], cells[ends[i - 1] if i else 0 : ends[j - 1]], said, made
            )
            i = j
    return out


def file_part(res: FileResult, pricer: Pricer, opts: Options) -> FilePart:
    """One file's part, its threads analysed as if no other file held their requests (what
    `collect.assemble` checks)."""
    reqs = res.requests
    for i, r in enumerate(reqs):  # as `collect.merge` marks a file's first request
        r.first_in_file = i == 0
    fingerprints = [r.fingerprint for r in reqs]
    return FilePart(
        res.path,
        res.source,
        min((r.first_ts for r in reqs if r.first_ts is not None), default=float("inf")),
        res.session,
        res.parent,
        res.notes,
        res.events,
        res.prompts,
        res.live_prompts,
        res.texts,
        [(r.source, r.key) for r in reqs],
        fingerprints if any(f is not None for f in fingerprints) else None,
        [r.burst for r in reqs] if res.parent is not None else None,
        parts_of(by_thread(reqs, pricer, opts), (res.prompts, res.live_prompts)),
    )
