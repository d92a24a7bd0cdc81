"""Suppressions: inline comments, a front-matter key, and sidecar files. Each needs a reason.

Inline: `prefixlock: ignore[PL101,PL102] reason` in any comment syntax (`#`, `<!-- -->`,
`{# #}`, `//`) on the finding's line, or alone on the line above it. `ignore-file[...]` applies to
the whole file. Front matter: `prefixlock-ignore: {PL101: reason}`. Sidecar, for files without
comments (JSON, traces): `FILE.prefixlock-ignore` with lines `PL101 reason` or `PL502@12 reason`.
A suppression without a reason suppresses nothing and is itself reported (PL905).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .collapse import members
from .findings import Finding

SIDECAR_SUFFIX = ".prefixlock-ignore"
FRONT_MATTER_KEY = "prefixlock-ignore"

_INLINE = re.compile(
    r"prefixlock:\s*(?P<kind>ignore-file|ignore)\[(?P<codes>[A-Za-z0-9_,\s]+)\](?P<reason>[^\n]*)"
)
_TRAILERS = ("-->", "#}", "*/", "%}")
_COMMENT_ONLY = re.compile(r"^\s*(#|<!--|\{#|//|;)")
_SIDECAR_LINE = re.compile(r"^(?P<code>[A-Za-z]+\d+)(?:@(?P<line>\d+))?\s*(?P<reason>.*)$")


@dataclass
class Suppressions:
    """What is suppressed in one file, by line (0 = the whole file)."""

    by_line: dict[int, set[str]] = field(default_factory=dict)
    problems: list[Finding] = field(default_factory=list)

    def add(self, line: int, codes: Iterable[str]) -> None:
        self.by_line.setdefault(line, set()).update(c.upper() for c in codes)

    def covers(self, finding: Finding) -> bool:
        """Suppressed here: at the finding's line or the whole file, or, for a finding that
        stands for several (`collapse`), at any line of one of them for its code."""
        for f in (finding, *members(finding)):
            for line in (0, f.line):
                codes = self.by_line.get(line)
                if codes and (f.code in codes or finding.code in codes or "ALL" in codes):
                    return True
        return False


def _clean_reason(text: str) -> str:
    reason = text.strip()
    for t in _TRAILERS:
        if reason.endswith(t):
            reason = reason[: -len(t)].strip()
    return reason.strip(" :-")


def parse_inline(path: str, lines: list[str], into: Suppressions | None = None) -> Suppressions:
    sup = into or Suppressions()
    for i, text in enumerate(lines, start=1):
        if "prefixlock:" not in text:
            continue
        for m in _INLINE.finditer(text):
            codes = [c.strip() for c in m.group("codes").split(",") if c.strip()]
            reason = _clean_reason(m.group("reason"))
            if not reason:
                sup.problems.append(
                    Finding(
                        path,
                        i,
                        m.start() + 1,
                        "PL905",
                        f"suppression of {', '.join(codes)} has no reason; it is not applied",
                        source_line=text,
                    )
                )
                continue
            if m.group("kind") == "ignore-file":
                sup.add(0, codes)
                continue
            sup.add(i, codes)
            if _COMMENT_ONLY.match(text):
                sup.add(i + 1, codes)
    return sup


def parse_front_matter(path: str, meta: Mapping[str, Any], line: int, into: Suppressions) -> None:
    value = meta.get(FRONT_MATTER_KEY)
    if value is None:
        return
    items: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        items = [(str(k), "" if v is None else str(v)) for k, v in value.items()]
    elif isinstance(value, list):
        for entry in value:
            code, _, reason = str(entry).partition(" ")
            items.append((code.rstrip(":"), reason))
    else:
        code, _, reason = str(value).partition(" ")
        items.append((code.rstrip(":"), reason))
    for code, reason in items:
        if not reason.strip():
            into.problems.append(
                Finding(
                    path,
                    line,
                    1,
                    "PL905",
                    f"front-matter suppression of {code} has no reason; it is not applied",
                )
            )
        else:
            into.add(0, [code])


def parse_sidecar(path: str, text: str, into: Suppressions) -> None:
    sidecar = path + SIDECAR_SUFFIX
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _SIDECAR_LINE.match(line)
        if not m:
            into.problems.append(
                Finding(
                    sidecar,
                    i,
                    1,
                    "PL905",
                    "sidecar line is not 'CODE[@LINE] reason'; it is not applied",
                    source_line=raw,
                )
            )
            continue
        code = m.group("code").upper()
        reason = m.group("reason").strip()
        if not reason:
            into.problems.append(
                Finding(
                    sidecar,
                    i,
                    1,
                    "PL905",
                    f"sidecar suppression of {code} has no reason; it is not applied",
                    source_line=raw,
                )
            )
            continue
        into.add(int(m.group("line")) if m.group("line") else 0, [code])
