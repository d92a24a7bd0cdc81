"""PL302 in Python: the tool list changed between the requests of one loop over the same growing
conversation (`while ...: response = chat(messages, tools=filtered_tools); messages.append(...);
filtered_tools = [t for t in tools if t["function"]["name"] != used]`). Tool definitions are
the first part of the prefix, so the request after the change misses the cache from its first
byte, and each later request sends the whole conversation again uncached. Pure: a syntax tree
in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .syntax import walk_cached
from .windows import _is_history as is_history

_LOOPS = (ast.While, ast.For, ast.AsyncFor)
_GROWS = frozenset({"append", "extend", "insert"})


def _sent_messages(call: ast.Call) -> str | None:
    """The name of the history a model call sends: `messages=m`, else its first argument."""
    for k in call.keywords:
        if k.arg == "messages" and isinstance(k.value, ast.Name):
            return k.value.id
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Name) and is_history(first):
        return first.id
    return None


def _grows(loop: ast.stmt, name: str) -> bool:
    """`name.append(...)` (or `extend`, `insert`) inside the loop: the conversation goes on."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in _GROWS
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == name
        for n in walk_cached(loop)
    )


def _rebinds(loop: ast.stmt, name: str, after: ast.Call) -> ast.Assign | None:
    """An assignment to `name` in the loop, below the call (so the next request sees it)."""
    for n in walk_cached(loop):
        if (
            isinstance(n, ast.Assign)
            and n.lineno > after.lineno
            and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
        ):
            return n
    return None


def check_loop_tools(tree: ast.Module, ctx: Context) -> None:
    seen: set[int] = set()
    # Each node with the innermost loop around it in its own function (None: none).
    stack: list[tuple[ast.AST, ast.stmt | None]] = [(tree, None)]
    while stack:
        node, loop = stack.pop()
        if isinstance(node, ast.Call) and loop is not None:
            _check_call(node, loop, ctx, seen)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            loop = None
        elif isinstance(node, _LOOPS):
            loop = node
        stack.extend((child, loop) for child in ast.iter_child_nodes(node))


def _check_call(call: ast.Call, loop: ast.stmt, ctx: Context, seen: set[int]) -> None:
    tools = next((k.value for k in call.keywords if k.arg in ("tools", "functions")), None)
    messages = _sent_messages(call)
    if not isinstance(tools, ast.Name) or messages is None:
        return
    rebound = _rebinds(loop, tools.id, call)
    if rebound is None or id(rebound) in seen or not _grows(loop, messages):
        return
    seen.add(id(rebound))
    ctx.flag(
        rebound,
        "PL302",
        f"the tool list `{tools.id}` is changed between the requests of one loop over the same "
        f"conversation (`{messages}`): tool definitions are the first part of the prefix, so "
        "the next request misses the cache from its first byte and sends the whole "
        "conversation again; keep one tool list and refuse a tool already used in its result",
    )
