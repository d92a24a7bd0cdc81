"""Whether a list named by a plain name never leaves the code that holds it: every use of the
name only grows, shrinks, measures, tests or indexes it in place (`h.append(m)`, `h.pop(0)`,
`len(h)`, `if h:`, `h[-1]["role"]`), and none hands the list itself on (passed to a call,
returned, put into another value, iterated, sliced, bound to another name). Such a list is
sent in no request, whatever its name says: a terminal client's display history trimmed to
six entries while its server keeps the conversation is no window of what the model reads.

A parameter's list belongs to its caller, and an attribute (`self.history`) may be read by
any method or module, so both count as leaving. A module-level list is looked at in the whole
module, a function's own list in that function. Pure: a syntax tree in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .syntax import walk_cached

# Methods that change or read the list in place and return no list of it.
_IN_PLACE = frozenset(
    {"append", "pop", "clear", "insert", "remove", "extend", "popleft", "appendleft", "index"}
    | {"count"}
)


def _enclosing(at: ast.AST, parents: dict[int, ast.AST]) -> ast.AST | None:
    fn: ast.AST | None = parents.get(id(at))
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    return fn


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    names += [x for x in (a.vararg, a.kwarg) if x is not None]
    return {x.arg for x in names}


def _bound_in(fn: ast.AST, name: str) -> bool:
    """The function binds the name itself (and does not declare it global)."""
    for n in walk_cached(fn):
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in walk_cached(fn)
    )


def _stays(use: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """One use of the name that keeps the list where it is."""
    if not isinstance(use.ctx, ast.Load):
        return True  # bound anew or deleted: `h = []`, `del h`
    up = parents.get(id(use))
    if isinstance(up, ast.Attribute) and up.value is use:
        call = parents.get(id(up))
        return up.attr in _IN_PLACE and isinstance(call, ast.Call) and call.func is up
    if isinstance(up, ast.Subscript) and up.value is use:
        return not isinstance(up.slice, ast.Slice)  # one message, not a part of the list
    if isinstance(up, ast.Call) and use in up.args:
        return isinstance(up.func, ast.Name) and up.func.id in ("len", "bool")
    if isinstance(up, (ast.If, ast.While)) and up.test is use:
        return True
    if isinstance(up, ast.UnaryOp) and isinstance(up.op, ast.Not):
        return True
    if isinstance(up, ast.BoolOp):
        return isinstance(parents.get(id(up)), (ast.If, ast.While))
    return False


def never_leaves(lst: ast.expr, tree: ast.Module, parents: dict[int, ast.AST]) -> bool:
    """Whether the list `lst` names is used only in place, in the scope that owns it."""
    if not isinstance(lst, ast.Name):
        return False
    fn = _enclosing(lst, parents)
    scope: ast.AST = tree
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if lst.id in _params(fn):
            return False
        if _bound_in(fn, lst.id):
            scope = fn
    elif fn is not None:
        return False
    if scope is tree and not any(
        isinstance(t, ast.Name) and t.id == lst.id
        for s in tree.body
        if isinstance(s, (ast.Assign, ast.AnnAssign))
        for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
    ):
        return False  # not a module-level list of this file: an import or a builtin
    return all(
        _stays(n, parents) for n in walk_cached(scope) if isinstance(n, ast.Name) and n.id == lst.id
    )
