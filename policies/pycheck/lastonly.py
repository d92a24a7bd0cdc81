"""PL303 in Python: a message sent in one form while it is the newest and in another once it is
older. A loop over the history that converts each message and, under a test for the last one
(`if msg == chat.messages[-1]`, `i == len(history) - 1`, `is_last`), appends it another way
(images as content blocks for the newest, `str(content)` for the rest) changes that message's
bytes on the next turn, when it is no longer the last: the request misses the cache from there
on. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import HISTORY_WORDS, words
from .context import Context
from .syntax import walk_cached

_HISTORY = HISTORY_WORDS
_WHY = (
    "a message is sent in one form while it is the newest and in another once it is older "
    "(`{test}`): its bytes change on the next turn, and every request misses the cache from "
    "there on; build each message once and send it the same way on every turn"
)


def check_last_only(tree: ast.Module, ctx: Context) -> None:
    for loop in walk_cached(tree):
        if not isinstance(loop, ast.For) or not _history(loop.iter):
            continue
        item = {n.id for n in walk_cached(loop.target) if isinstance(n, ast.Name)}
        for n in walk_cached(loop):
            if isinstance(n, ast.If) and _tests_last(n.test, loop.iter, item) and _two_forms(n):
                ctx.flag(n, "PL303", _WHY.format(test=ast.unparse(n.test)[:60]))


def _history(node: ast.expr) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        node = node.args[0]  # `enumerate(history)`
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return bool(set(words(name)) & _HISTORY)


def _tests_last(test: ast.expr, seq: ast.expr, item: set[str]) -> bool:
    """`m == msgs[-1]`, `i == len(msgs) - 1` or `is_last`, about the loop's own item."""
    if isinstance(seq, ast.Call) and seq.args:
        seq = seq.args[0]
    whole = ast.unparse(seq)
    for n in walk_cached(test):
        if isinstance(n, ast.Name) and set(words(n.id)) >= {"is", "last"}:
            return True
        if not isinstance(n, ast.Compare) or not isinstance(n.ops[0], (ast.Eq, ast.Is)):
            continue
        sides = [n.left, *n.comparators]
        if not any(isinstance(s, ast.Name) and s.id in item for s in sides):
            continue
        for s in sides:
            text = ast.unparse(s).replace(" ", "")
            if text in (f"{whole}[-1]".replace(" ", ""), f"len({whole})-1".replace(" ", "")):
                return True
    return False


def _two_forms(node: ast.If) -> bool:
    """Both branches add a message: the newest one way, the older ones another."""
    return _appends(node.body) and _appends(node.orelse)


def _appends(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("append", "extend")
        for stmt in body
        for n in walk_cached(stmt)
    )
