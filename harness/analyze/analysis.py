"""`analyze(paths)`: read the logs, de-duplicate, find the breaks, price, and build the report.
The one call behind the command line, for scripts too."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import UserError
from . import catalogue, sources
from .breaks import TTL_CHOICES, Options, Row, by_thread
from .breaks import analyze as find_breaks
from .collect import Collected, assemble, merge
from .model import FileResult, Request
from .pricing import Pricer
from .report import build, build_parts
from .spool import Spool
from .threads import FilePart, ThreadPart, file_part, parts_of


@dataclass
class Analysis:
    rows: list[Row]  # empty where the rows were not kept (`keep_rows=False`)
    collected: Collected
    report: dict[str, Any]


@dataclass
class _Parts:
    """What a reading process makes of each file it reads: its part of the report (picklable
    where the readers are not forked: the pricer is made again there)."""

    prices: str | None
    ttl: str
    opts: Options
    pricer: Pricer | None = None
    spool: Spool | None = None  # where the records go (None: sent with the parts)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "pricer": None}

    def made(self) -> Pricer:
        if self.pricer is None:
            self.pricer = Pricer(catalogue.table(self.prices), "1h" if self.ttl == "1h" else "5m")
        return self.pricer

    def __call__(self, res: FileResult) -> FilePart:
        part = file_part(res, self.made(), self.opts)
        return part if self.spool is None else self.spool.take(part)

    def analyse(self, requests: list[Request]) -> list[ThreadPart]:
        return parts_of(by_thread(requests, self.made(), self.opts))


def _day(text: str, flag: str) -> float:
    try:
        d = date.fromisoformat(text)
    except ValueError:
        raise UserError(f"not a date (YYYY-MM-DD): {text!r}", where=flag) from None
    return datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp()


def analyze(
    paths: Sequence[str | os.PathLike[str]] = (),
    *,
    source: str = "auto",
    ttl: str = "auto",
    sensitive: bool = False,
    prices: str | None = None,
    since: str | None = None,
    until: str | None = None,
    session: str | None = None,
    project: str | None = None,
    jobs: int = 1,
    show_text: bool = False,
    keep_rows: bool = True,
) -> Analysis:
    """The cache report of the logs under `paths` (default: the standard locations).
    `keep_rows=False`: each file analysed where it is read, and no rows kept (the report
    alone, made faster on several cores)."""
    if ttl not in TTL_CHOICES:
        raise UserError(f"unknown TTL {ttl!r} ({', '.join(TTL_CHOICES)})", where="--ttl")
    table = catalogue.table(prices)
    opts = Options.sensitive(ttl) if sensitive else Options(ttl)
    files = sources.find_files([str(p) for p in paths], source)
    if not keep_rows and since is None and until is None and session is None and project is None:
        # The records wait on disk, not in this process's memory, where files can be read at
        # an offset.
        spool = Spool() if hasattr(os, "pread") else None
        parts = _Parts(prices, ttl, opts, Pricer(table, "1h" if ttl == "1h" else "5m"), spool)
        made = sources.read_all(files, jobs, show_text, parts)
        if spool is not None:
            spool.seal()
        got, threads = assemble(
            made,
            lambda f: sources.read_file(f.source, Path(f.path), show_text),
            parts.analyse,
        )
        del made
        keep = {t.key[1] for t in threads}
        got.events = [e for e in got.events if e.session in keep]
        if spool is None:
            return Analysis([], got, build_parts(threads, got))
        return Analysis([], got, build_parts(threads, got, spool.read, spool.read_into))
    got = merge(sources.read_all(files, jobs, show_text))
    lo = _day(since, "--since") if since else None
    hi = _day(until, "--until") + timedelta(days=1).total_seconds() if until else None
    reqs = [
        r
        for r in got.requests
        if (lo is None or (r.first_ts is not None and r.first_ts >= lo))
        and (hi is None or (r.first_ts is not None and r.first_ts < hi))
        and (session is None or r.session.startswith(session))
        and (project is None or project in r.project)
    ]
    if session is not None and not reqs:
        raise UserError(f"no session starts with {session!r}", where="--session")
    rows = find_breaks(reqs, Pricer(table, "1h" if ttl == "1h" else "5m"), opts)
    keep = {r.session for r in reqs}
    got.events = [e for e in got.events if e.session in keep]
    return Analysis(rows, got, build(rows, got))
