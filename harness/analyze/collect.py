"""Files' results merged into one set of requests: a request seen in several files (a resume,
continue or fork copying history into a new file) is counted once, in the earliest file, and
the first request each file adds is marked so that a read drop there can be laid to the resume.
Pure."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .model import Event, FileResult, Request

if TYPE_CHECKING:
    from .threads import FilePart, ThreadPart


@dataclass
class Collected:
    requests: list[Request] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    notes: Counter[str] = field(default_factory=Counter)
    prompts: dict[tuple[str, str], int] = field(default_factory=dict)
    live_prompts: dict[tuple[str, str], int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)  # source -> files read
    texts: dict[tuple[str, str, int], str] = field(default_factory=dict)


def _start(f: FileResult) -> float:
    return min((r.first_ts for r in f.requests if r.first_ts is not None), default=float("inf"))


Fingerprints = dict[str, set[tuple[int, ...]]]


def _replayed(files: Iterable[Any], fingerprints: Callable[[Any], Iterable[Any]]) -> Fingerprints:
    # A fork replays its parent's rows: where the parent's log was read, they are known by
    # their content (whatever their timestamps); where not, by the fork's opening burst.
    parents = {f.parent for f in files if f.parent is not None}
    replayed: Fingerprints = {}
    for f in files:
        if f.session in parents and f.session is not None:
            rows = replayed.setdefault(f.session, set())
            rows.update(p for p in fingerprints(f) if p is not None)
    return replayed


def _kept(
    f: Any,
    keys: Iterable[tuple[str, str]],
    marks: Iterable[tuple[Any, bool]],
    replayed: Fingerprints,
    seen: set[tuple[str, str]],
    notes: Counter[str],
) -> list[bool]:
    """Which of a file's requests count: not a fork's replay of its parent, not seen in an
    earlier file. `marks`: each request's (fingerprint, burst)."""
    out: list[bool] = []
    parent = replayed.get(f.parent) if f.parent is not None else None
    for k, (fingerprint, burst) in zip(keys, marks, strict=True):
        if f.parent is not None and (fingerprint in parent if parent is not None else burst):
            notes["replay_rows"] += 1
            out.append(False)
        elif k in seen:
            notes["cross_file_duplicates"] += 1
            out.append(False)
        else:
            seen.add(k)
            out.append(True)
    return out


def _take(out: Collected, f: FileResult | FilePart) -> None:
    notes = out.notes
    for k, n in f.notes.items():  # Counter.update's checks cost more than a few additions
        notes[k] += n
    out.files[f.source] = out.files.get(f.source, 0) + 1
    out.events.extend(f.events)
    for s, n in f.prompts.items():
        out.prompts[(f.source, s)] = out.prompts.get((f.source, s), 0) + n
    for s, n in f.live_prompts.items():
        out.live_prompts[(f.source, s)] = out.live_prompts.get((f.source, s), 0) + n
    for (s, turn), t in f.texts.items():
        out.texts[(f.source, s, turn)] = t


def merge(results: Iterable[FileResult]) -> Collected:
    out = Collected()
    seen: set[tuple[str, str]] = set()
    results = sorted(results, key=lambda f: (_start(f), f.path))
    replayed = _replayed(results, lambda f: (r.fingerprint for r in f.requests))
    for f in results:
        _take(out, f)
        reqs = f.requests
        kept = _kept(
            f,
            ((r.source, r.key) for r in reqs),
            ((r.fingerprint, r.burst) for r in reqs),
            replayed,
            seen,
            out.notes,
        )
        first = True
        for r, keep in zip(reqs, kept, strict=True):
            if keep:
                r.first_in_file = first
                first = False
                out.requests.append(r)
    return out


def assemble(
    parts: Iterable[FilePart],
    again: Callable[[FilePart], FileResult],
    analyse: Callable[[list[Request]], list[ThreadPart]],
) -> tuple[Collected, list[ThreadPart]]:
    """Files' parts merged as `merge` merges their results, and the threads' parts in
    (source, session, thread) order. A file's threads are taken as its reader made them
    unless a thread is in another file too, or the file lost a request to another (a resume's
    copy, a fork's replay): such files are read `again`, and their requests merged and
    `analyse`d here."""
    out = Collected()
    seen: set[tuple[str, str]] = set()
    parts = sorted(parts, key=lambda f: (f.start, f.path))
    replayed = _replayed(parts, lambda f: f.fingerprints or ())
    owners = Counter(t.key for f in parts for t in f.threads)
    taken: list[ThreadPart] = []
    redo: list[tuple[FilePart, list[bool]]] = []
    for f in parts:
        _take(out, f)
        n = len(f.keys)
        fresh = set(f.keys) if f.parent is None else None
        if fresh is not None and len(fresh) == n and seen.isdisjoint(fresh):
            # Most files: no fork, and every request new (what `_kept` finds, at a set's cost).
            seen |= fresh
            kept = [True] * n
        else:
            kept = _kept(
                f,
                f.keys,
                zip(f.fingerprints or [None] * n, f.bursts or [False] * n, strict=True),
                replayed,
                seen,
                out.notes,
            )
        if all(kept) and all(owners[t.key] == 1 for t in f.threads):
            taken.extend(f.threads)
        else:
            redo.append((f, kept))
    requests: list[Request] = []
    for f, kept in redo:
        # The same requests in the same order (a log being written meanwhile may have grown:
        # only those read the first time are taken).
        first = True
        for r, keep in zip(again(f).requests, kept, strict=False):
            if keep:
                r.first_in_file = first
                first = False
                requests.append(r)
    if requests:
        taken.extend(analyse(requests))
    taken.sort(key=attrgetter("key"))
    return out, taken
