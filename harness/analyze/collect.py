"""Files' results merged into one set of requests: a request seen in several files (a resume,
continue or fork copying history into a new file) is counted once, in the earliest file, and
the first request each file adds is marked so that a read drop there can be laid to the resume.
Pure."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .model import Event, FileResult, Request


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


def merge(results: Iterable[FileResult]) -> Collected:
    out = Collected()
    seen: set[tuple[str, str]] = set()
    results = sorted(results, key=lambda f: (_start(f), f.path))
    # A fork replays its parent's rows: where the parent's log was read, they are known by
    # their content (whatever their timestamps); where not, by the fork's opening burst.
    parents = {f.parent for f in results if f.parent is not None}
    replayed: dict[str, set[tuple[int, ...]]] = {}
    for f in results:
        if f.session in parents and f.session is not None:
            rows = replayed.setdefault(f.session, set())
            rows.update(r.fingerprint for r in f.requests if r.fingerprint is not None)
    for f in results:
        out.notes.update(f.notes)
        out.files[f.source] = out.files.get(f.source, 0) + 1
        out.events.extend(f.events)
        for s, n in f.prompts.items():
            out.prompts[(f.source, s)] = out.prompts.get((f.source, s), 0) + n
        for s, n in f.live_prompts.items():
            out.live_prompts[(f.source, s)] = out.live_prompts.get((f.source, s), 0) + n
        for (s, turn), t in f.texts.items():
            out.texts[(f.source, s, turn)] = t
        first = True
        parent = replayed.get(f.parent) if f.parent is not None else None
        for r in f.requests:
            if f.parent is not None and (
                r.fingerprint in parent if parent is not None else r.burst
            ):
                out.notes["replay_rows"] += 1
                continue
            k = (r.source, r.key)
            if k in seen:
                out.notes["cross_file_duplicates"] += 1
                continue
            seen.add(k)
            r.first_in_file = first
            first = False
            out.requests.append(r)
    return out
