"""One finding per value and prompt: the findings of one file whose value (one origin line)
reaches one sink become one finding, the other lines kept as its related lines.

A front end reports a value at every expression that carries it into the prompt (`now` at the
template, `dateStr` where it is formatted, the builder's argument), and one `new Date()` can be
reported both as a time (PL101) and as a date (PL102). A user fixes it once, at the value.
Findings name their value and sink in `Finding.extra` (`findings.flow`); those without are kept
as they are. Pure: findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Sequence

from .findings import Finding, sort_key

# The codes of one family that one value can be reported under: a `Date` read is a time until
# a date-only format cuts it (`toDateString()`, `.slice(0, 10)`), then a date.
_TIME, _DATE = "PL101", "PL102"
MEMBERS = "members"  # Finding.extra key: the findings a collapsed finding stands for


def _key(f: Finding) -> tuple[object, ...] | None:
    origin, sink = f.extra.get("origin"), f.extra.get("sink")
    if not isinstance(origin, dict) or not isinstance(sink, dict):
        return None
    return (
        f.path,
        f.code[:3],  # the family: PL1 volatile, PL2 order, PL3 structure
        origin.get("path"),
        origin.get("line"),
        origin.get("what"),
        sink.get("path"),
        sink.get("line"),
        sink.get("name"),
    )


def chosen_code(codes: set[str]) -> str:
    """The code one value keeps when it is reported under several of its family: PL101 where
    any form of it that reaches the prompt carries the time of day (the prompt changes on every
    request), PL102 where every form is a date (it changes once a day); otherwise the lowest."""
    if _TIME in codes:
        return _TIME
    return min(codes)


def collapse(findings: Sequence[Finding], lines: Sequence[str] | None = None) -> list[Finding]:
    """`findings` (of one file or many) with each group of the same file, origin and sink made
    one finding, in report order. The kept finding is at the value's own line where the value
    is made in that file (`lines`: that file's text, to quote the line; without it, only a
    finding already there), else at the earliest line of the chosen code; `extra["members"]`
    holds every finding of the group."""
    groups: dict[tuple[object, ...], list[Finding]] = {}
    out: list[Finding] = []
    for f in findings:
        key = _key(f)
        if key is None:
            out.append(f)
        else:
            groups.setdefault(key, []).append(f)
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
            continue
        members.sort(key=sort_key)
        code = chosen_code({m.code for m in members})
        of_code = [m for m in members if m.code == code]
        origin = members[0].extra["origin"]
        assert isinstance(origin, dict)
        at_value = [
            m for m in of_code if origin.get("path") == m.path and origin.get("line") == m.line
        ]
        kept = (at_value or of_code)[0]
        line = origin.get("line")
        if (
            not at_value
            and lines is not None
            and origin.get("path") == kept.path
            and isinstance(line, int)
            and 0 < line <= len(lines)
        ):
            # The value is made here: the line a user fixes first, whatever carries it on.
            text = lines[line - 1]
            kept = kept.with_(
                line=line,
                col=len(text) - len(text.lstrip()) + 1,
                end_line=None,
                end_col=None,
                source_line=text,
            )
        out.append(kept.with_(extra={**kept.extra, MEMBERS: tuple(members)}))
    out.sort(key=sort_key)
    return out


def selected(f: Finding, keep: Callable[[Finding], bool]) -> list[Finding]:
    """`f` where `keep` takes it, else the findings it stands for that `keep` takes, collapsed
    again: a rule deselected (`--ignore PL101`) leaves the value's findings of the others."""
    if keep(f):
        return [f]
    return collapse([m for m in members(f) if keep(m)])


def members(f: Finding) -> tuple[Finding, ...]:
    """The findings `f` stands for: itself, or the group it was collapsed from."""
    got = f.extra.get(MEMBERS)
    return got if isinstance(got, tuple) else (f,)


def related_lines(f: Finding) -> list[int]:
    """The other lines of the group `f` was collapsed from, in order."""
    return sorted({m.line for m in members(f)} - {f.line})


def expanded(findings: Sequence[Finding]) -> list[tuple[int, Finding]]:
    """Every finding each of `findings` stands for, as (index in `findings`, member), in report
    order: the list a run reported before collapsing (for fingerprints of older baselines)."""
    out = [(i, m) for i, f in enumerate(findings) for m in members(f)]
    out.sort(key=lambda p: sort_key(p[1]))
    return out
