"""PL303: a system message put ahead of the history only while the history is short, and kept
nowhere. A node that writes `if len(messages) == 1: messages = [SystemMessage(...)] +
messages` and sends `messages`, but hands back only the reply, sends the system prompt on the
first request of a task and never again: every later request starts with the user message, so
the prefix the first request cached is lost from its first message on.

Found in one function: a name bound to the conversation (`state["messages"]`, or a name the
function reads it under), rebound under a test of its length or emptiness to a list that puts a
written-out system message before it, and then sent, while the rebound list is neither
returned nor written back (`state["messages"] = ...`). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .oneshot import _history
from .runonce import _items, _own, _system
from .side import _sends
from .syntax import walk_cached

_Fn = ast.FunctionDef | ast.AsyncFunctionDef


def check_system_first_only(tree: ast.Module, ctx: Context) -> None:
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _check(fn, ctx)


def _check(fn: _Fn, ctx: Context) -> None:
    nodes = _own(fn)
    history = {
        t.id
        for n in nodes
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and (_history(n.value) or _history(t))
    }
    for node in nodes:
        if not isinstance(node, ast.If) or node.orelse:
            continue
        for stmt in node.body:
            name = _prepends_system(stmt, history)
            if name is None or not _measures(node.test, name):
                continue
            if _kept(nodes, name) or not _sent_after(nodes, name, stmt.lineno):
                continue
            ctx.flag(
                stmt,
                "PL303",
                "the system message is put ahead of the history only while the history is "
                f"short (`{name}` rebound under `if`), and the list that carries it is not "
                "kept: the first request starts with the system prompt, every later one with "
                "the first user message, so the prefix cached by the first is lost; keep the "
                "system message in every request",
            )


def _prepends_system(stmt: ast.stmt, history: set[str]) -> str | None:
    """`x = [SystemMessage(...)] + x` or `x = [system, *x]`: the name `x`."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id in history
    ):
        return None
    name = stmt.targets[0].id
    value = stmt.value
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        head = _items(value.left)
        tail = value.right
        if head and _system(head[0]) and isinstance(tail, ast.Name) and tail.id == name:
            return name
    if isinstance(value, ast.List) and len(value.elts) >= 2:
        last = value.elts[-1]
        if (
            _system(value.elts[0])
            and isinstance(last, ast.Starred)
            and isinstance(last.value, ast.Name)
            and last.value.id == name
        ):
            return name
    return None


def _measures(test: ast.expr, name: str) -> bool:
    """A test of the history's length or emptiness: `len(x) == 1`, `len(x) < 2`, `not x`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Name) and test.operand.id == name
    if isinstance(test, ast.Compare):
        for side in [test.left, *test.comparators]:
            if (
                isinstance(side, ast.Call)
                and isinstance(side.func, ast.Name)
                and side.func.id == "len"
                and len(side.args) == 1
                and isinstance(side.args[0], ast.Name)
                and side.args[0].id == name
            ):
                return True
    return False


def _kept(nodes: list[ast.AST], name: str) -> bool:
    """The list is returned, yielded or written into a container or attribute."""
    for n in nodes:
        if isinstance(n, (ast.Return, ast.Yield)) and _mentions(n.value, name):
            return True
        if (
            isinstance(n, ast.Assign)
            and any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in n.targets)
            and _mentions(n.value, name)
        ):
            return True
    return False


def _mentions(node: ast.AST | None, name: str) -> bool:
    return node is not None and any(
        isinstance(m, ast.Name) and m.id == name for m in walk_cached(node)
    )


def _sent_after(nodes: list[ast.AST], name: str, line: int) -> bool:
    return any(
        isinstance(n, ast.Call)
        and n.lineno > line
        and _sends(n)
        and any(
            isinstance(a, ast.Name) and a.id == name
            for a in [*n.args, *(k.value for k in n.keywords)]
        )
        for n in nodes
    )
