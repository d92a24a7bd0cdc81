"""A volatile value made in this file that another file of the project writes into a prompt
prefix (`buildEnvironmentContext()` returns "Today's date: ${new Date().toDateString()}", and
the system prompt is assembled from it in `selector.ts`): reported here as well, at the line
that reads it, naming the file and line where it reaches the prefix.

The importing file's own findings decide it: they are the same findings a user linting that
file sees (its reach and one-off gates applied), kept where the value they name was read in
this file. A user linting only the helper otherwise sees nothing, though the breaker is there.
Pure: the importing files come through the loader and the importers' search the engine passes.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ..findings import Finding, flow
from .reach import Importers
from .syntax import FUNCTIONS, Source, walk

# A file reads the clock in its own text: only then can another file's finding name one of its
# lines.
_SOURCES = re.compile(
    r"new (TZ)?Date\b|Date\.now\(|performance\.now\(|dayjs\(|moment\(|"
    r"DateTime\.(now|local)\(|Temporal\.Now"
)
# A clock read here (`new Date()`, `Date.now()`), not a value guessed by its name: on the wide
# sample the other kinds found this way were a fixed folder's listing and ids in file names.
_CLOCK_CODES = frozenset({"PL101", "PL102"})
# Where the other file writes it: a system prompt or message, or the instructions (not any
# text named for a prompt, which may be the user's own turn).
_SYSTEM_SINK = re.compile(r"(?i)system|instructions")
_MAX_IMPORTERS = 12  # files read per exported name: a helper imported everywhere is a library

Check = Callable[[str, str], list[Finding]]


def _exported_names(src: Source) -> list[str]:
    """The names this file exports from its own declarations (`export function f`,
    `export const f = ...`, `export class C`)."""
    out: list[str] = []
    for st in src.root.named_children:
        if st.type != "export_statement":
            continue
        decl = st.child_by_field_name("declaration")
        if decl is None:
            continue
        if decl.type in (
            "function_declaration",
            "class_declaration",
            "generator_function_declaration",
        ):
            name = decl.child_by_field_name("name")
            if name is not None:
                out.append(src.text(name))
        elif decl.type in ("lexical_declaration", "variable_declaration"):
            for d in decl.named_children:
                name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
                if name is not None and name.type == "identifier":
                    out.append(src.text(name))
    return out


def _norm(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/"))


def _same_file(named: str, importer: str, path: str) -> bool:
    """`named` (as a finding in `importer` spells the other file: absolute, or relative to
    where the run started or to the importer's folder) is `path`; compared as text."""
    target = _norm(path)
    spelt = [_norm(named)]
    if not posixpath.isabs(named):
        spelt.append(_norm(posixpath.join(posixpath.dirname(importer), named)))
    return any(
        s == target
        or (not s.startswith("..") and target.endswith("/" + s))
        or s.endswith("/" + target)
        for s in spelt
    )


def _shown(other: str, here: str) -> str:
    """The importer's path as the helper's finding names it: relative to the helper's folder
    where both are absolute, else as given."""
    if posixpath.isabs(other) and posixpath.isabs(here):
        return posixpath.relpath(_norm(other), posixpath.dirname(_norm(here)))
    return other


def _line_text(src: Source, line: int) -> str:
    starts = src.line_starts
    if not 0 < line <= len(starts):
        return ""
    end = starts[line] if line < len(starts) else len(src.data)
    return src.data[starts[line - 1] : end].decode("utf-8", "replace").rstrip("\r\n")


def check_placed_elsewhere(src: Source, importers: Importers | None, check: Check) -> list[Finding]:
    """Findings of the project's files that import this file's exports, whose volatile value
    was read in this file, reported at that value's line here. `check(path, text)` gives a
    file's findings (the whole check of one TypeScript/JavaScript file)."""
    if importers is None:
        return []
    text = src.data.decode("utf-8", "replace")
    if not _SOURCES.search(text):
        return []
    files: dict[str, Source] = {}
    for name in _exported_names(src):
        found = importers(src.path, name)
        if len(found) > _MAX_IMPORTERS:
            continue
        for other, local in found:
            if local:
                files.setdefault(other.path, other)
    # A clock read at the module's top level is read once, when the process loads it: as the
    # Python front end has it for a prompt constant, one process, one prompt.
    in_functions = {
        line
        for n in walk(src.root)
        if n.type in FUNCTIONS
        for line in range(n.start_point[0] + 1, n.end_point[0] + 2)
    }
    out: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for other in files.values():
        rel = _shown(other.path, src.path)
        for f in check(other.path, other.data.decode("utf-8", "replace")):
            origin, sink = f.extra.get("origin"), f.extra.get("sink")
            if f.code not in _CLOCK_CODES or not isinstance(origin, dict):
                continue
            what, made, line = origin.get("what"), origin.get("path"), origin.get("line")
            if not isinstance(sink, dict) or not isinstance(what, str) or not isinstance(made, str):
                continue
            if what.endswith("(by its name)") or made == other.path or not isinstance(line, int):
                continue  # a value named only, or made in the importing file itself
            name = str(sink.get("name", ""))
            if not _SYSTEM_SINK.search(name):
                continue  # `sendPromptNow()`, `effectivePrompt`: a prompt, maybe the user's turn
            if not _same_file(made, other.path, src.path):
                continue
            if (f.code, line) in seen or line not in in_functions:
                continue
            seen.add((f.code, line))
            message = (
                f"{f.extra.get('subject', '')} is a {f.extra.get('kind', '')} value ({what}, line "
                f"{line}) that reaches {name} (line {sink.get('line')} of {rel}), part of the "
                "prompt prefix"
            )
            placed = flow(src.path, line, what, other.path, int(str(sink.get("line"))), name)
            placed.update(kind=f.extra.get("kind"), subject=f.extra.get("subject"))
            out.append(
                Finding(
                    src.path,
                    line,
                    1,
                    f.code,
                    message,
                    severity=f.severity,
                    source_line=_line_text(src, line),
                    extra=placed,
                )
            )
    return out
