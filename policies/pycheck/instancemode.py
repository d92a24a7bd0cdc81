"""A mode fixed per agent instance is no mode switch (PL302), as in TypeScript: a tool list or
prompt picked by `self.mode`, where the class sets `mode` only in `__init__`, is the same for
every request the instance makes. The PL302 findings whose pick reads only such fields are
dropped. Pure: a syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from .syntax import assigned, walk_cached


def _self_fields(node: ast.AST) -> tuple[set[str], bool]:
    """The `self.<name>` fields a pick reads, and whether it reads any other name too."""
    fields: set[str] = set()
    other = False
    for x in walk_cached(node):
        if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == "self":
            fields.add(x.attr)
        elif isinstance(x, ast.Name) and x.id != "self":
            other = True
    return fields, other


def _set_in_init_only(cls: ast.ClassDef, name: str) -> bool:
    writes = 0
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for x in walk_cached(fn):
            for t in assigned(x):
                if (
                    isinstance(t, ast.Attribute)
                    and isinstance(t.value, ast.Name)
                    and t.value.id == "self"
                    and t.attr == name
                ):
                    if fn.name != "__init__":
                        return False
                    writes += 1
    return writes > 0


def drop_instance_modes(tree: ast.Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code == "PL302" for f in found):
        return found
    picks: dict[tuple[int, int], tuple[ast.AST, ast.ClassDef]] = {}
    for cls in walk_cached(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for n in walk_cached(cls):
            if isinstance(n, ast.IfExp):
                picks[(n.lineno, n.col_offset + 1)] = (n.test, cls)
            elif isinstance(n, ast.Subscript):
                picks[(n.lineno, n.col_offset + 1)] = (n.slice, cls)
    out = []
    for f in found:
        pick = picks.get((f.line, f.col)) if f.code == "PL302" else None
        if pick is not None:
            fields, other = _self_fields(pick[0])
            if fields and not other and all(_set_in_init_only(pick[1], x) for x in fields):
                continue
        out.append(f)
    return out
