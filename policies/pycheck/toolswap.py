"""PL302 in Python: the tool list of a live agent replaced in the middle of a conversation
(`await self.update_tools(current_tools)` from inside a tool, LiveKit's `Agent.update_tools`).
Tool definitions are the first part of the prefix, so every request after the swap misses the
cache from its first byte. A method that forwards the same call to another object (an adapter's
own `update_tools`) is not a swap of its own, and a constructor or a setup method sets the tools
before the conversation starts. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import words
from .context import Context

# The frameworks' names for it (LiveKit `update_tools`, `set_tools`); prefixlock's own
# `Session.change_tools(tools, quote=...)` is a priced, deliberate change and not matched.
_SWAP = frozenset({"update", "set", "replace", "swap"})
_TOOLS = frozenset({"tools", "functions"})
# Methods that run before the first request: the tools they set are the session's own.
_SETUP = frozenset({"init", "setup", "start", "create", "build", "configure", "new", "enter"})


def _swaps_tools(name: str) -> bool:
    ws = words(name)
    return len(ws) >= 2 and ws[0] in _SWAP and ws[-1] in _TOOLS


def check_tool_swaps(tree: ast.Module, ctx: Context) -> None:
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if _swaps_tools(fn.name) or set(words(fn.name)) & _SETUP:
            continue
        for n in ast.walk(fn):
            if not (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and _swaps_tools(n.func.attr)
                and n.args
            ):
                continue
            ctx.findings.add(
                Finding(
                    ctx.path,
                    n.lineno,
                    n.col_offset + 1,
                    "PL302",
                    f"the agent's tool list is replaced mid-conversation (`{ast.unparse(n)}`): "
                    "tool definitions are the first part of the prefix, so every request after "
                    "the change misses the cache; keep one tool list and let the tools' "
                    "arguments or the newest message carry what changed",
                    source_line=ctx.line(n.lineno),
                )
            )
