"""Volatile findings (PL101-PL106) dropped where the value is read once in a script's one run:
a file whose module-level code (outside its functions and classes, a `__main__` block
included) sends a model request itself, that imports no server, bot or scheduler framework and
registers no handler. Such a file is run, not served: its requests are one conversation, and a
value its module-level code reads outside a loop (`today = date.today()` before the first
request) is the same in every request of the run, a clock included. A clock read at import is
otherwise kept because a server's process outlives the day; a script's run does not. A value
read in a module-level loop, or in a function (called per item or per turn), is still reported.
Pure: a syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import VOLATILE_CODES
from .callers import serves
from .projectreach import sends_here
from .syntax import walk_cached

_VOLATILE = frozenset(VOLATILE_CODES.values())
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def drop_script_run(tree: ast.Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code in _VOLATILE for f in found):
        return found
    top = _module_level(tree)
    if not sends_here(top) or serves(tree):
        return found
    inside = [
        (n.lineno, n.end_lineno or n.lineno)
        for n in walk_cached(tree)
        if isinstance(n, _LOOPS + _DEFS)
    ]
    return [
        f
        for f in found
        if not (f.code in _VOLATILE and not any(a <= f.line <= b for a, b in inside))
    ]


def _module_level(tree: ast.Module) -> list[ast.AST]:
    """The nodes a module runs when it is run: its statements, less the bodies of the
    functions and classes it defines."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, _DEFS):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out
