"""PL303 in Python: the last messages of the conversation written as text into the system
prompt. A helper that loops over a window of the history (`for entry in
ctx.conversation_history[-5:]:`) and returns the text it builds, whose result the same file
writes into a system prompt (`system_prompt = TEMPLATE.format(conversation_context=text)`),
puts a sliding window at the head of every request: the system prompt itself changes with every
message, and every request misses the cache from its start. The first messages (`[:5]`), a
single message (`[-1:]`) and text that goes into a user message are not matched. Pure: a syntax
tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .oneshot import _history
from .sinks import _SYSTEM_NAME
from .syntax import callee, count_from_end, walk_cached, walk_no_defs

_Fn = ast.FunctionDef | ast.AsyncFunctionDef


def check_window_text_in_system(tree: ast.Module, ctx: Context) -> None:
    helpers: dict[str, ast.For | ast.AsyncFor] = {}
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            loop = _window_loop(fn)
            if loop is not None and _returns_text(fn):
                helpers[fn.name] = loop
    if not helpers:
        return
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        texts: dict[str, str] = {}  # local -> helper that made it
        assigns = [n for n in walk_no_defs(fn) if isinstance(n, ast.Assign)]
        for node in sorted(assigns, key=lambda n: (n.lineno, n.col_offset)):
            if len(node.targets) != 1:
                continue
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Call):
                called = callee(node.value)
                if called in helpers:
                    texts[target.id] = called
                    continue
            if not (isinstance(target, ast.Name) and _SYSTEM_NAME.match(target.id)):
                continue
            used = {n.id for n in walk_cached(node.value) if isinstance(n, ast.Name)} & set(texts)
            direct = [
                callee(c)
                for c in walk_cached(node.value)
                if isinstance(c, ast.Call) and callee(c) in helpers
            ]
            for name in sorted({texts[u] for u in used} | set(direct)):
                loop = helpers.pop(name)
                ctx.flag(
                    loop,
                    "PL303",
                    f"the last messages of the conversation (`{ast.unparse(loop.iter)[:60]}`) "
                    f"are written into the system prompt by `{name}`: the head of every request "
                    "changes with every message, and every request misses the cache from its "
                    "start; send the conversation as messages after a fixed system prompt",
                )


def _window_loop(fn: _Fn) -> ast.For | ast.AsyncFor | None:
    """A loop over the last two or more messages of a history (`history[-5:]`)."""
    for node in walk_no_defs(fn):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            it = node.iter
            if (
                isinstance(it, ast.Subscript)
                and isinstance(it.slice, ast.Slice)
                and it.slice.upper is None
                and it.slice.step is None
                and _history(it.value)
                and (count_from_end(it.slice.lower) or 0) >= 2
            ):
                return node
    return None


def _returns_text(fn: _Fn) -> bool:
    """The function hands back text: a string literal, an f-string, a join or a sum with one."""
    for node in walk_no_defs(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            for n in walk_cached(node.value):
                if isinstance(n, ast.JoinedStr) or (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "join"
                ):
                    return True
    return False
