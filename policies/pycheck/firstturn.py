"""PL304 in Python: what this request brings written into the first turn of the replayed history:

    for i, entry in enumerate(history):
        text = entry["text"]
        if i == 0 and context_prefix:
            text = f"{context_prefix}\\n\\n{text}"
        contents.append(Content(role=entry["role"], parts=[Part(text=text)]))

where `context_prefix` is made in the function from what the request hands in (the asker's
profile, the profiles retrieved for the question). The history's first message, sent many times
before, is rewritten with each request's material, so every request misses the cache right
after the system prompt and the whole history is sent again uncached. Read by shape: in a loop
over the history by position, the text of the item at position 0 given a prefix that the
function makes from its parameters (not a constant or a setting of the object, which would be
the same on every request). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .syntax import names_in, walk_cached

_WHY = (
    "`{name}`, made from what this request brings, is written into the first turn of the "
    "replayed history: that message was sent before without it, so every request misses the "
    "cache from there and the whole history is sent again uncached; put it in the newest "
    "user message instead"
)


def check_first_turn_rewritten(tree: ast.Module, ctx: Context) -> None:
    if not any("enumerate(" in line for line in ctx.lines):
        return
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _check(fn, ctx)


def _check(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self", "cls"}
    for loop in walk_cached(fn):
        if not (
            isinstance(loop, ast.For)
            and isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Name)
            and loop.iter.func.id == "enumerate"
            and loop.iter.args
            and isinstance(loop.target, ast.Tuple)
            and loop.target.elts
            and isinstance(loop.target.elts[0], ast.Name)
        ):
            continue
        index = loop.target.elts[0].id
        walked = names_in(loop.iter.args[0])
        for branch in walk_cached(loop):
            if not (isinstance(branch, ast.If) and _tests_first(branch.test, index)):
                continue
            for stmt in branch.body:
                found = _prefixed(stmt)
                if found is None:
                    continue
                name, at = found
                made = _made_from(fn, name, at)
                if made & (params - walked):
                    ctx.flag(stmt, "PL304", _WHY.format(name=name))
                    return


def _tests_first(test: ast.expr, index: str) -> bool:
    """`i == 0`, alone or in an `and`."""
    parts = test.values if isinstance(test, ast.BoolOp) else [test]
    return any(
        isinstance(p, ast.Compare)
        and isinstance(p.left, ast.Name)
        and p.left.id == index
        and len(p.ops) == 1
        and isinstance(p.ops[0], ast.Eq)
        and isinstance(p.comparators[0], ast.Constant)
        and p.comparators[0].value == 0
        for p in parts
    )


def _prefixed(stmt: ast.stmt) -> tuple[str, int] | None:
    """`text = f"{prefix}...{text}"` or `text = prefix + text`: the name put first, and the
    line."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return None
    target, value = stmt.targets[0].id, stmt.value
    if isinstance(value, ast.JoinedStr) and value.values:
        first = value.values[0]
        head = first.value if isinstance(first, ast.FormattedValue) else None
    elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        head = value.left
    else:
        return None
    if not isinstance(head, ast.Name) or head.id == target:
        return None
    return (head.id, stmt.lineno) if target in names_in(value) else None


def _made_from(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, before: int) -> set[str]:
    """The names `name` is made from in `fn` before line `before`: what is bound to it and
    what is appended to it, followed back through the locals made the same way."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        for n in walk_cached(fn):
            if getattr(n, "lineno", before) >= before:
                continue
            if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == cur for t in n.targets
            ):
                todo += list(names_in(n.value))
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("append", "extend")
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == cur
            ):
                todo += [x for a in n.args for x in names_in(a)]
    return seen - {name}
