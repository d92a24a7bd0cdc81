"""PL101 in Python: every earlier message of the history rebuilt with a clock reading on each
request. A loop or comprehension over the history that builds each message it sends from the
message and a value made from the clock read in the function (`ago = now - m["ts"]`, then
`{"role": m["role"], "content": f"({ago} min ago) ..."}`) changes the bytes of messages an
earlier request already sent as the clock moves: the prefix breaks at the first of them and the
whole history is sent again uncached. A message's own stored time (`m["at"]`) written as it is
gives the same bytes every time and is not reported. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .syntax import names_in, walk_cached, walk_no_defs
from .taint import reads_clock
from .windows import _is_history as is_history

_Fn = ast.FunctionDef | ast.AsyncFunctionDef

_WHY = (
    "every earlier message of `{}` is rebuilt with a clock reading ({}) on each request: the "
    "bytes of messages already sent change as the clock moves, so the prefix breaks at the "
    "first of them and the whole history is sent again uncached; keep each message's text as "
    "it was first sent (an absolute time, or none)"
)


def _clocked(fn: _Fn, ctx: Context, helpers: set[str]) -> tuple[set[str], set[int]]:
    """The locals made from a clock read in the function (to a fixed point), and the ids of
    the clock reads themselves (a clock's call, or a call of a module function that reads
    one)."""
    calls = {
        id(n)
        for n in walk_no_defs(fn)
        if isinstance(n, ast.Call)
        and (
            reads_clock(ctx.qualname(n.func) or "")
            or (isinstance(n.func, ast.Name) and n.func.id in helpers)
        )
    }
    made: set[str] = set()
    changed = True
    while changed:
        changed = False
        for n in walk_no_defs(fn):
            if not isinstance(n, (ast.Assign, ast.AnnAssign)) or n.value is None:
                continue
            if not (any(id(x) in calls for x in walk_cached(n.value)) or names_in(n.value) & made):
                continue
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            new = {t.id for t in targets if isinstance(t, ast.Name)} - made
            if new:
                made |= new
                changed = True
    return made, calls


def _content(node: ast.AST) -> ast.expr | None:
    """The content of a message written out: `{"role": ..., "content": c}`."""
    if not isinstance(node, ast.Dict):
        return None
    keys = {
        k.value: v
        for k, v in zip(node.keys, node.values, strict=True)
        if isinstance(k, ast.Constant)
    }
    return keys.get("content") if "role" in keys else None


def _clock_helpers(tree: ast.Module, ctx: Context) -> set[str]:
    """The module's own functions that read the clock (`def ago(ts): return time.time() -
    ts`): a call of one given a message reads the clock for it."""
    return {
        fn.name
        for fn in tree.body
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(
            isinstance(n, ast.Call) and reads_clock(ctx.qualname(n.func) or "")
            for n in walk_no_defs(fn)
        )
    }


def check_clock_in_history(tree: ast.Module, ctx: Context) -> None:
    helpers = _clock_helpers(tree, ctx)
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        made, calls = _clocked(fn, ctx, helpers)
        if not made and not calls:
            continue
        for loop in walk_no_defs(fn):
            body: list[ast.AST]
            if isinstance(loop, (ast.For, ast.AsyncFor)):
                over, item, body = loop.iter, names_in(loop.target), list(loop.body)
            elif isinstance(loop, (ast.ListComp, ast.GeneratorExp)) and loop.generators:
                gen = loop.generators[0]
                over, item, body = gen.iter, names_in(gen.target), [loop.elt]
            else:
                continue
            if not is_history(_unwrapped(over)):
                continue
            for part in body:
                hit = _rebuilt_with_clock(part, item, made, calls)
                if hit is not None:
                    ctx.flag(hit, "PL101", _WHY.format(ast.unparse(over), ast.unparse(hit)))
                    break


def _unwrapped(node: ast.expr) -> ast.expr:
    """The list a loop walks: through `enumerate`/`reversed`/`list` and slices."""
    while True:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("enumerate", "reversed", "list")
            and node.args
        ):
            node = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            node = node.value
        else:
            return node


def _rebuilt_with_clock(
    part: ast.AST, item: set[str], made: set[str], calls: set[int]
) -> ast.expr | None:
    """The clock read in a message built from the loop's item, if one is."""
    for n in walk_cached(part):
        content = _content(n)
        if content is None or not names_in(content) & item:
            continue
        for x in walk_cached(content):
            if id(x) in calls or (isinstance(x, ast.Name) and x.id in made):
                return x if isinstance(x, ast.expr) else None
    return None
