"""The normalised request model every log reader produces (see
docs/session-logs.md#normalised-requests).

One `Request` is one billed API call, de-duplicated as its format requires, with disjoint input
counters (uncached + read + write = input, as `prefixlock.billing.usage.Usage`). A reader also
returns the `Notes` of what it skipped and why, so that nothing is dropped silently.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import msgspec


class Request(msgspec.Struct, gc=False):
    """One billed call. Timestamps are epoch seconds (None when the log has none).

    A struct rather than a dataclass: a gigabyte of logs makes a few hundred thousand, and a
    struct is made at a fraction of the cost (and untracked by the cycle collector: it holds
    no cycle)."""

    source: str  # claude-code | codex | opencode | gemini | prefixlock
    session: str
    thread: str  # "main" or "agent:<id>"
    key: str  # the de-duplication key (message.id + requestId, file:row, ...)
    first_ts: float | None
    last_ts: float | None
    raw_model: str
    uncached: int = 0
    read: int = 0
    write_5m: int = 0
    write_1h: int = 0
    write_unsplit: int = 0  # a write whose TTL the log does not say (older Claude Code builds)
    output: int = 0
    has_cache: bool = True  # False: the source reports no cache counters (hit rate N/A)
    speed: str | None = None
    file: str = ""
    line: int = 0
    turn: int = 0  # human prompts seen in the session before this request
    project: str = ""
    logged_cost: float | None = None  # costUSD / cost as the tool logged it; not used to price
    sidechain: bool = False
    fallback_model: bool = False
    # Structural signals from the log, between the previous request of the thread and this one.
    compaction: str | None = None  # evidence, e.g. "compact_boundary trigger=auto preTokens=150000"
    rewrite: str | None = None  # evidence of a rewind / branch / resume
    first_in_file: bool = False
    # Codex: the token_count row's totals (what a fork's replay of it repeats), and whether it
    # came in a fork's opening burst.
    fingerprint: tuple[int, ...] | None = None
    burst: bool = False

    @property
    def write(self) -> int:
        return self.write_5m + self.write_1h + self.write_unsplit

    @property
    def input_total(self) -> int:
        return self.uncached + self.read + self.write

    @property
    def total_tokens(self) -> int:
        return self.input_total + self.output


_request_fields = attrgetter(*Request.__struct_fields__)


@dataclass(slots=True)
class Event:
    """A structural event the log records for a session (not necessarily a cache break)."""

    session: str
    thread: str
    kind: str  # compaction | history_rewrite | resume
    ts: float | None
    evidence: str


@dataclass
class FileResult:
    """What one file (or database) held: requests in log order, events, and notes."""

    path: str
    source: str
    requests: list[Request] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    notes: Counter[str] = field(default_factory=Counter)
    # session -> human prompts counted in the file, and on the live branch (Claude Code).
    prompts: dict[str, int] = field(default_factory=dict)
    live_prompts: dict[str, int] = field(default_factory=dict)
    projects: dict[str, str] = field(default_factory=dict)
    # (session, turn) -> the human prompt's first words; filled only when text was asked for.
    texts: dict[tuple[str, int], str] = field(default_factory=dict)
    # Codex: the file's own session, and the parent it was forked from (None: not a fork).
    session: str | None = None
    parent: str | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Sent from the reading processes with each request as its fields in order: a third
        # cheaper both ways than pickling each request by itself.
        return _file_result, (
            self.path,
            self.source,
            list(map(_request_fields, self.requests)),
            self.events,
            self.notes,
            self.prompts,
            self.live_prompts,
            self.projects,
            self.texts,
            self.session,
            self.parent,
        )


def _file_result(path: str, source: str, requests: list[tuple[Any, ...]], *rest: Any) -> FileResult:
    return FileResult(path, source, [Request(*r) for r in requests], *rest)


NOTE_TEXT = {
    "lines": "lines read",
    "usage_lines": "lines with usage",
    "duplicate_lines": "usage lines merged into their request (one line per content block)",
    "cross_file_duplicates": "requests seen again in another file (resume/fork copy), counted once",
    "sidechain_replays": "sidechain copies of main-thread messages (/btw), dropped",
    "synthetic": "<synthetic> model records (never billed), dropped",
    "api_errors": "isApiErrorMessage records (no usage), dropped",
    "invalid_usage": "records with null or non-numeric usage fields, dropped",
    "corrupt_lines": "malformed lines skipped",
    "partial_trailing": "trailing partial line (a write in progress), ignored",
    "rejoined_records": "records split by raw newlines, rejoined",
    "reemits": "Codex token_count rows whose totals did not advance, skipped",
    "replay_rows": "Codex fork/subagent rows replaying the parent's history, skipped",
    "backwards_totals": "Codex totals going backwards (last_token_usage used)",
    "fallback_model": "Codex requests with no model recorded (priced as gpt-5)",
    "unreadable_files": "files that could not be read",
    "unknown_format": "files in no known format, skipped",
}
