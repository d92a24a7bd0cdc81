"""Finding and Fix: what a check reports, and the text edit that would repair it.

Pure data. A finding's fingerprint ignores its line number (it hashes the code, the file and the
stripped source text, plus an occurrence index), so a baseline survives unrelated edits above it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from .rules import RULES


@dataclass(frozen=True)
class Edit:
    """Replace text between two (line, col) positions, 1-based lines and 0-based columns."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str


@dataclass(frozen=True)
class Fix:
    """Edits that repair one finding. `safe` fixes keep behaviour; unsafe ones move content."""

    edits: tuple[Edit, ...]
    safe: bool
    description: str
    whole_file: str | None = None  # replacement text for the whole file (data files)


@dataclass(frozen=True)
class Finding:
    """One problem at one place."""

    path: str
    line: int
    col: int  # 1-based
    code: str
    message: str
    severity: str = ""
    end_line: int | None = None
    end_col: int | None = None
    source_line: str = ""
    fix: Fix | None = None
    session: str | None = None  # trace findings: the session id
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not self.severity:
            object.__setattr__(self, "severity", RULES[self.code].severity)

    def with_(self, **changes: object) -> Finding:
        return replace(self, **changes)  # type: ignore[arg-type]

    def fingerprint_base(self) -> str:
        text = " ".join(self.source_line.split())
        key = f"{self.code}\x00{self.path}\x00{text}\x00{self.message if not text else ''}"
        return hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def flow(
    origin_path: str, origin_line: int, what: str, sink_path: str, sink_line: int, sink: str
) -> dict[str, object]:
    """`Finding.extra` of a value finding: where the value is made (`what`, the text that makes
    it, at `origin_line` of `origin_path`) and where it is written into the prompt (`sink`, as
    the message names it, at `sink_line` of `sink_path`). Read by the collapse step and by
    checks that report another file's value, instead of the message text."""
    return {
        "origin": {"path": origin_path, "line": origin_line, "what": what},
        "sink": {"path": sink_path, "line": sink_line, "name": sink},
    }


def fingerprints(findings: list[Finding]) -> list[str]:
    """Stable fingerprints, with an occurrence index to tell identical lines apart."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for f in findings:
        base = f.fingerprint_base()
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(f"{base}:{n}")
    return out


def sort_key(f: Finding) -> tuple[str, int, int, str]:
    return (f.path, f.line, f.col, f.code)


def source_lines(text: str) -> list[str]:
    """The lines of a file as editors and Python's parser number them: split at newlines only.

    `str.splitlines` also splits at form feeds, U+2028 and other separators, which would shift
    every later line number (a page-break line of form feed is common in older Python code)."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
