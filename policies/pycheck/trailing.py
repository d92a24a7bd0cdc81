"""Messages placed after the conversation history: a system message that a list literal puts
after a spread history (`[system, *history, {"role": "system", "content": now}, user]`), that a
sum puts after it (`history + [note, user]`), or that is appended to a list the function has
already extended with the history (`msgs.extend(history)` then `msgs.append(note)`). Such a
message is no part of the prefix the history is cached under: what changes in it each request
is read after every cached message, as the newest user message is. Pure: syntax in, node ids
out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .syntax import callee, dotted, walk_cached, walk_no_defs
from .windows import _is_history as is_history

_COPIES = frozenset({"list", "copy", "deepcopy"})


def _holds_history(node: ast.expr) -> bool:
    """The history itself, a copy of it (`list(h)`, `h.copy()`, `h[:]`), or a sum or list
    display that spreads it."""
    if is_history(node):
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return is_history(node.value)
    if isinstance(node, ast.Call) and callee(node) in _COPIES:
        target = node.args[0] if node.args else getattr(node.func, "value", None)
        return isinstance(target, ast.expr) and is_history(target)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _holds_history(node.left) or _holds_history(node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(isinstance(e, ast.Starred) and _holds_history(e.value) for e in node.elts)
    return False


def _after_in_display(node: ast.List | ast.Tuple) -> list[ast.expr]:
    """The items of a list display that stand after a spread history."""
    out: list[ast.expr] = []
    seen = False
    for e in node.elts:
        if seen:
            out.append(e)
        elif isinstance(e, ast.Starred) and _holds_history(e.value):
            seen = True
    return out


def _extended(fn: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted name) of each list the function fills with the history: `msgs.extend(h)`,
    `msgs += h`, `msgs = [sys, *h]`, `msgs = list(h)`."""
    out: list[tuple[int, str]] = []
    for n in walk_no_defs(fn):
        name: str | None = None
        if (
            isinstance(n, ast.Call)
            and callee(n) == "extend"
            and n.args
            and _holds_history(n.args[0])
            and isinstance(n.func, ast.Attribute)
        ):
            name = dotted(n.func.value)
        elif isinstance(n, ast.AugAssign) and _holds_history(n.value):
            name = dotted(n.target)
        elif (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and not is_history(n.targets[0])
            and _holds_history(n.value)
        ):
            name = dotted(n.targets[0])
        if name:
            out.append((getattr(n, "lineno", 0), name))
    return out


class Trailing:
    """Where messages land after the history, for one module: computed per function once."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._extended: dict[int, list[tuple[int, str]]] = {}
        self._placed: set[str] | None = None

    def after_history(self, stmt: ast.AST, fn: ast.AST | None) -> set[int]:
        """The ids of the message nodes in `stmt` that land after the conversation history."""
        out: set[int] = set()
        for n in walk_no_defs(stmt):
            if isinstance(n, (ast.List, ast.Tuple)):
                out.update(id(e) for e in _after_in_display(n))
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and _holds_history(n.left):
                if isinstance(n.right, (ast.List, ast.Tuple)):
                    out.update(id(e) for e in n.right.elts)
            elif (
                isinstance(n, ast.Call)
                and callee(n) == "append"
                and len(n.args) == 1
                and isinstance(n.func, ast.Attribute)
                and fn is not None
            ):
                filled = self._extended.get(id(fn))
                if filled is None:
                    filled = self._extended[id(fn)] = _extended(fn)
                name = dotted(n.func.value)
                if any(line < n.lineno and x == name for line, x in filled):
                    out.add(id(n.args[0]))
        return out

    def placed_after(self) -> set[str]:
        """The functions every call of which in this module lands after the history
        (`[system, *history, date_note(), user]`): the message they return is read after
        every cached message. A function never called here is not one."""
        if self._placed is not None:
            return self._placed
        calls: dict[str, list[bool]] = {}
        scopes: list[tuple[ast.AST, ast.AST | None]] = [(self.tree, None)]
        scopes += [
            (f, f)
            for f in walk_cached(self.tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        for scope, fn in scopes:
            for stmt in walk_no_defs(scope):
                if not isinstance(stmt, ast.stmt):
                    continue
                if isinstance(stmt, _COMPOUND):
                    # A call in a statement's head (`if`, `for`, `with`) lands in no list.
                    for head in ast.iter_child_nodes(stmt):
                        if isinstance(head, (ast.expr, ast.withitem)):
                            for n in walk_no_defs(head):
                                if isinstance(n, ast.Call) and (name := callee(n)):
                                    calls.setdefault(name, []).append(False)
                    continue
                after: set[int] | None = None
                for n in walk_no_defs(stmt):
                    if isinstance(n, ast.Call) and (name := callee(n)):
                        if after is None:
                            after = self.after_history(stmt, fn)
                        calls.setdefault(name, []).append(id(n) in after)
        self._placed = {name for name, placed in calls.items() if all(placed)}
        return self._placed


# Statements that only hold others: their calls are read in the statements they hold.
_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
)
