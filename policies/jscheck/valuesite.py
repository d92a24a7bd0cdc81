"""Where a finding's value is read: the file and line its message names (`a filetree value
(readdirSync(dir), line 37 of src/llm/contextLoader.ts) that reaches ...`), found among this
file and the project's modules it imports, two files deep, through the module loader the
value pass used. A gate that asks how often that read runs reads it there. Pure: a module and
a message in, the module and line out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import posixpath
import re

from .syntax import project_module
from .values import Module

# `(<the read>, line N)` or `(<the read>, line N of <path>)` before what the value reaches.
_VALUE = re.compile(
    r" (?:value|listing|collection) \(.*?, line (\d+)(?: of (.+?))?\) (?:that reaches|into) "
)
_DEPTH = 2  # files away from the linted one


def value_site(module: Module, message: str) -> tuple[Module, int] | None:
    """The module whose file reads the value a finding's `message` names, and the line of
    the read; None where the message names none or its file is not one the imports reach."""
    m = _VALUE.search(message)
    if m is None:
        return None
    line = int(m.group(1))
    if m.group(2) is None:
        return module, line
    there = _reached(module, posixpath.normpath(m.group(2)), 0, set())
    return (there, line) if there is not None else None


def _reached(module: Module, path: str, depth: int, seen: set[str]) -> Module | None:
    if depth >= _DEPTH or module.load is None or module.src.path in seen:
        return None
    seen.add(module.src.path)
    others = []
    for spec, _ in set(module.imports.values()):
        if not project_module(spec):
            continue
        other = module.load(module.src.path, spec)
        if other is None:
            continue
        if posixpath.normpath(other.src.path) == path:
            return other
        others.append(other)
    for other in others:
        found = _reached(other, path, depth + 1, seen)
        if found is not None:
            return found
    return None
