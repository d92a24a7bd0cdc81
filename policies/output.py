"""Output formats: text, JSON, SARIF 2.1.0 and GitHub Actions annotations. Pure: findings in,
text out.

SARIF rule ids are the stable rule codes; each result carries a `partialFingerprints` entry that
ignores line numbers, so code scanning keeps tracking an alert when lines above it move.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from .collapse import members, related_lines
from .findings import Finding, fingerprints
from .rules import RULES, Rule

VERSION = "0.1.0"
INFO_URI = "https://github.com/prefixlock/prefixlock"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "note": "note"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def text(
    findings: Sequence[Finding],
    *,
    show_source: bool = True,
    fixed: int = 0,
    suppressed: int = 0,
    baselined: int = 0,
    files: int = 0,
) -> str:
    lines: list[str] = []
    for f in findings:
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.code} [{f.severity}] {f.message}")
        if show_source and f.source_line.strip():
            src = f.source_line.rstrip("\n")
            if len(src) > 200:
                src = src[:200] + "..."
            lines.append(f"    | {src}")
            if 1 < f.col <= len(src) + 1 and f.source_line == src:
                lines.append("    | " + " " * (f.col - 1) + "^")
        also = related_lines(f)
        if also:
            lines.append(f"    = {_also(also)}")
        if f.fix is not None:
            lines.append(f"    = fix ({'safe' if f.fix.safe else 'unsafe'}): {f.fix.description}")
    n = len(findings)
    safe = sum(1 for f in findings if f.fix is not None and f.fix.safe)
    unsafe = sum(1 for f in findings if f.fix is not None and not f.fix.safe)
    summary = f"Found {n} finding{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    extras = []
    if safe:
        extras.append(f"{safe} fixable with --fix")
    if unsafe:
        extras.append(f"{unsafe} more with --unsafe-fixes")
    if fixed:
        extras.append(f"{fixed} fixed")
    if suppressed:
        extras.append(f"{suppressed} suppressed inline")
    if baselined:
        extras.append(f"{baselined} in the baseline")
    if extras:
        summary += " (" + ", ".join(extras) + ")"
    lines.append(summary + ".")
    return "\n".join(lines) + "\n"


def _also(lines: list[int]) -> str:
    """`also at lines 9, 12`: where a collapsed finding's value reaches the same prompt too."""
    return f"also at line{'s' if len(lines) > 1 else ''} {', '.join(str(n) for n in lines)}"


def as_json(findings: Sequence[Finding]) -> str:
    out = []
    for f, fp in zip(findings, fingerprints(list(findings)), strict=True):
        out.append(
            {
                "path": f.path,
                "line": f.line,
                "column": f.col,
                "end_line": f.end_line,
                "end_column": f.end_col,
                "code": f.code,
                "name": RULES[f.code].name,
                "severity": f.severity,
                "message": f.message,
                "session": f.session,
                "related_lines": related_lines(f),
                "fingerprint": fp,
                "fix": None
                if f.fix is None
                else {
                    "safe": f.fix.safe,
                    "description": f.fix.description,
                    "edits": [e.__dict__ for e in f.fix.edits],
                },
            }
        )
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_uri()
    return PurePosixPath(p).as_posix()


def _sarif_rule(r: Rule) -> dict[str, Any]:
    return {
        "id": r.code,
        "name": "".join(w.capitalize() for w in r.name.split("-")),
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.what},
        "help": {"text": r.doc(), "markdown": r.doc()},
        # The README's rules table (GitHub makes anchors of headings, not of table rows).
        "helpUri": f"{INFO_URI}/blob/main/policies/README.md#rules",
        "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
        "properties": {"tags": ["prompt-cache", r.family], "fixSafety": r.fix_safety},
    }


def sarif(findings: Sequence[Finding]) -> str:
    rules = sorted(RULES.values(), key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(rules)}
    results = []
    for f, fp in zip(findings, fingerprints(list(findings)), strict=True):
        region: dict[str, Any] = {"startLine": max(1, f.line), "startColumn": max(1, f.col)}
        if f.end_line is not None and f.end_line >= f.line:
            region["endLine"] = f.end_line
            if f.end_col is not None and (f.end_line > f.line or f.end_col > f.col):
                region["endColumn"] = f.end_col
        if f.source_line.strip():
            region["snippet"] = {"text": f.source_line}
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _SARIF_LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path)},
                        "region": region,
                    }
                }
            ],
            "partialFingerprints": {"prefixlockFingerprint/v1": fp},
        }
        also = [m for m in members(f) if m.line != f.line]
        if also:
            # The other lines that carry the same value into the same prompt: one alert, its
            # path's steps as related locations.
            result["relatedLocations"] = [
                {
                    "id": n,
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(m.path)},
                        "region": {"startLine": max(1, m.line), "startColumn": max(1, m.col)},
                    },
                    "message": {"text": f"{m.code}: {m.message}"},
                }
                for n, m in enumerate(_one_a_line(also), start=1)
            ]
        if f.fix is not None and f.fix.edits:
            result["fixes"] = [
                {
                    "description": {"text": f.fix.description},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": _uri(f.path)},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": e.line,
                                        "startColumn": e.col + 1,
                                        "endLine": e.end_line,
                                        "endColumn": e.end_col + 1,
                                    },
                                    "insertedContent": {"text": e.text},
                                }
                                for e in f.fix.edits
                            ],
                        }
                    ],
                }
            ]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "prefixlock-lint",
                        "informationUri": INFO_URI,
                        "version": VERSION,
                        "semanticVersion": VERSION,
                        "rules": [_sarif_rule(r) for r in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _one_a_line(found: list[Finding]) -> list[Finding]:
    """The first finding of each line (one value reported twice on a line is one step)."""
    seen: set[int] = set()
    out = []
    for f in found:
        if f.line not in seen:
            seen.add(f.line)
            out.append(f)
    return out


def _esc_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _esc_prop(s: str) -> str:
    return _esc_data(s).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding]) -> str:
    lines = []
    for f in findings:
        level = _GITHUB_LEVEL.get(f.severity, "warning")
        also = related_lines(f)
        message = f.message + (f" ({_also(also)})" if also else "")
        lines.append(
            f"::{level} file={_esc_prop(f.path)},line={f.line},col={f.col},"
            f"title={_esc_prop(f.code + ' ' + RULES[f.code].name)}::{_esc_data(message)}"
        )
    return "\n".join(lines) + ("\n" if lines else "")


def list_rules() -> str:
    rows = [f"{'code':<7} {'severity':<8} {'fix':<6} name: summary"]
    for r in sorted(RULES.values(), key=lambda r: r.code):
        rows.append(f"{r.code:<7} {r.severity:<8} {r.fix_safety:<6} {r.name}: {r.summary}")
    return "\n".join(rows) + "\n"
