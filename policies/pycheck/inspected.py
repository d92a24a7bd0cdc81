"""PL303 and PL304 findings inside a function named for inspecting what it builds (`debug`,
`usage`: `get_rag_debug_info`, `get_token_usage`) that asks no model anything are dropped: the
prompt it builds is shown or counted, never sent, so the window it cuts or the retrieved text
it places changes no request. Pure: a syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import words
from .syntax import walk_cached

_INSPECTING = frozenset({"debug", "usage", "inspect", "preview"})
# Words of a call that sends a request (`complete`, `chat.completions.create`, `invoke`).
_ASKS = frozenset(
    {"complete", "completion", "completions", "create", "acreate", "chat", "invoke", "ainvoke"}
    | {"generate", "stream", "send", "ask", "run", "arun", "query", "respond", "reply"}
)
_DROPPED = frozenset({"PL303", "PL304"})


def _asks(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for n in walk_cached(fn):
        if isinstance(n, ast.Call):
            f = n.func
            name = (
                f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            )
            if set(words(name)) & _ASKS:
                return True
    return False


def drop_inspected(tree: ast.Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code in _DROPPED for f in found):
        return found
    spans = [
        (fn.lineno, fn.end_lineno or fn.lineno)
        for fn in walk_cached(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        and set(words(fn.name)) & _INSPECTING
        and not _asks(fn)
    ]
    return [
        f for f in found if not (f.code in _DROPPED and any(a <= f.line <= b for a, b in spans))
    ]
