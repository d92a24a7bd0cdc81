"""PL303 in Python: a history window asked of the server by a request parameter
(`context_management=[{"type": "compaction", ...}]`, `{"edits": [{"type": "clear_tool_uses_..."}]}`,
also inside `extra_body`); which edits cut is decided in `policies/servercut.py`. Pure: a
syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..servercut import REQUEST_KEYS, server_cut, server_cut_message
from .context import Context
from .syntax import walk_cached

_KEY = "context_management"


def _edit_types(value: ast.expr) -> list[str]:
    """The `type` strings of the edits asked for, wherever they are nested."""
    out = []
    for n in walk_cached(value):
        if isinstance(n, ast.Dict):
            for k, v in zip(n.keys, n.values, strict=True):
                if (
                    isinstance(k, ast.Constant)
                    and k.value == "type"
                    and isinstance(v, ast.Constant)
                    and isinstance(v.value, str)
                ):
                    out.append(v.value)
    return out


def _given(body: ast.Dict) -> list[ast.expr]:
    return [
        v
        for k, v in zip(body.keys, body.values, strict=True)
        if isinstance(k, ast.Constant) and k.value == _KEY
    ]


def _asked(n: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """(where it is reported, the value) for each value a request gives the parameter, as in
    TypeScript only beside the request's input: a keyword of a call given its input (or a key
    of that call's `extra_body`), or a key of a request body written with its input."""
    if isinstance(n, ast.Call):
        if not any(k.arg in REQUEST_KEYS for k in n.keywords):
            return []  # settings for later requests, not a request (`ModelSettings(...)`)
        out: list[tuple[ast.expr, ast.expr]] = [(n, k.value) for k in n.keywords if k.arg == _KEY]
        for k in n.keywords:
            if k.arg == "extra_body" and isinstance(k.value, ast.Dict):
                out += [(v, v) for v in _given(k.value)]
        return out
    if isinstance(n, ast.Dict):
        keys = {k.value for k in n.keys if isinstance(k, ast.Constant)}
        return [(v, v) for v in _given(n)] if keys & REQUEST_KEYS else []
    return []


def check_server_cut(tree: ast.Module, ctx: Context) -> None:
    if not any(_KEY in line for line in ctx.lines):
        return  # the parameter is not written in the file: skip the walk
    for n in walk_cached(tree):
        for at, value in _asked(n):
            kind = server_cut(_edit_types(value))
            if kind is None:
                continue
            ctx.flag(at, "PL303", server_cut_message(kind))
