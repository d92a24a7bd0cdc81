"""PL303 in Python: a history window asked of the server by a request parameter
(`context_management=[{"type": "compaction", ...}]`, `{"edits": [{"type": "clear_tool_uses_..."}]}`,
also inside `extra_body`); which edits cut is decided in `policies/servercut.py`. Pure: a
syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..servercut import REQUEST_KEYS, server_cut, server_cut_message
from .context import Context

_KEY = "context_management"


def _edit_types(value: ast.expr) -> list[str]:
    """The `type` strings of the edits asked for, wherever they are nested."""
    out = []
    for n in ast.walk(value):
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


def _asked(n: ast.AST) -> list[ast.expr]:
    """The values given for the parameter: a keyword of a request (a call given its input) or
    a key of a request body (`extra_body` included)."""
    if isinstance(n, ast.Call):
        if not any(k.arg in REQUEST_KEYS for k in n.keywords):
            return []  # settings for later requests, not a request (`ModelSettings(...)`)
        return [k.value for k in n.keywords if k.arg == _KEY]
    if isinstance(n, ast.Dict):
        return [
            v
            for k, v in zip(n.keys, n.values, strict=True)
            if isinstance(k, ast.Constant) and k.value == _KEY
        ]
    return []


def check_server_cut(tree: ast.Module, ctx: Context) -> None:
    if not any(_KEY in line for line in ctx.lines):
        return  # the parameter is not written in the file: skip the walk
    for n in ast.walk(tree):
        for value in _asked(n):
            kind = server_cut(_edit_types(value))
            if kind is None:
                continue
            at = n if isinstance(n, ast.Call) else value
            ctx.findings.add(
                Finding(
                    ctx.path,
                    at.lineno,
                    at.col_offset + 1,
                    "PL303",
                    server_cut_message(kind),
                    source_line=ctx.line(at.lineno),
                )
            )
