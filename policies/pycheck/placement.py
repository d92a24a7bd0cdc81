"""PL304: per-request content placed before the conversation history. A part of the messages
computed from the current message (a repository map ranked by the files it mentions, search
results for the question) and sent ahead of the earlier turns changes the prefix at that point
on every request: the history after it, although it only grew, is written again each time.

A part is per-request when its function reads the current message (`cur_messages`,
`current_query`, `latest_input`...) or calls, within the module, a function that does. The
order comes from one of: a `+` chain or a list with `*parts` in one function; fields of one
object set in one function (`chunks.repo = ...`, `chunks.done = history`) and joined in that
order by a method of the object's class (`self.repo + self.done`), read from this module or,
through a `load` callable the engine passes in, from the module the class is imported from.
Pure: syntax trees in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Callable

from ..meaning import words
from .context import Context
from .syntax import last_name, operands, walk_cached, walk_no_defs

_CURRENT = frozenset({"cur", "current", "latest", "incoming", "pending"})
_MESSAGE = frozenset(
    {"message", "messages", "msg", "msgs", "query", "input", "request", "question", "turn"}
)
_HISTORY = frozenset({"history", "done", "past", "previous", "prior", "conversation", "transcript"})

Load = Callable[[str], ast.Module | None]


def _name(node: ast.AST) -> str | None:
    return last_name(node) or None


def _reads_current(node: ast.AST) -> bool:
    for n in walk_cached(node):
        name = _name(n)
        if name is not None:
            ws = set(words(name))
            if ws & _CURRENT and ws & _MESSAGE:
                return True
    return False


def _is_history(node: ast.AST) -> bool:
    name = _name(node)
    if name is None:
        return False
    ws = set(words(name))
    return bool(ws & _HISTORY) and not ws & _CURRENT


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module functions and methods by their own name (a method is called as `self.name()`)."""
    return {
        n.name: n
        for n in walk_cached(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _per_request(fns: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> set[str]:
    """The functions whose result depends on the current message, to a fixed point."""
    calls = {
        name: {
            c
            for n in walk_cached(fn)
            if isinstance(n, ast.Call)
            and (c := _name(n.func)) is not None
            and c in fns
            and c != name
        }
        for name, fn in fns.items()
    }
    found = {name for name, fn in fns.items() if _reads_current(fn)}
    changed = True
    while changed:
        changed = False
        for name in fns:
            if name not in found and calls[name] & found:
                found.add(name)
                changed = True
    return found


def _calls_any(node: ast.AST, names: set[str]) -> str | None:
    for n in walk_cached(node):
        if isinstance(n, ast.Call) and (c := _name(n.func)) in names:
            return c
    return None


def _field_order(cls: ast.ClassDef) -> list[str] | None:
    """The fields a method of the class joins into one list, in order (`self.a + self.b`)."""
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in walk_cached(fn):
            if isinstance(n, ast.Return) and n.value is not None:
                parts = operands(n.value)
                if (
                    parts
                    and len(parts) >= 3
                    and all(
                        isinstance(p, ast.Attribute)
                        and isinstance(p.value, ast.Name)
                        and p.value.id == "self"
                        for p in parts
                    )
                ):
                    return [p.attr for p in parts if isinstance(p, ast.Attribute)]
    return None


def _class(name: str, tree: ast.Module, ctx: Context, load: Load | None) -> ast.ClassDef | None:
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and n.name == name:
            return n
    origin = ctx.imports.get(name)
    if origin is None or load is None or "." not in origin:
        return None
    module, _, cls = origin.rpartition(".")
    other = load(module)
    if other is None:
        return None
    return next((n for n in other.body if isinstance(n, ast.ClassDef) and n.name == cls), None)


def _message(what: str, history: str, where: str) -> str:
    return (
        f"per-request content ({what}, computed from the current message) is placed "
        f"before the conversation history (`{history}`){where}: the prefix changes there "
        "on every request and the history after it is written again each time"
    )


def check_placement(tree: ast.Module, ctx: Context, load: Load | None = None) -> None:
    fns = _functions(tree)
    per_request = _per_request(fns)
    if not per_request:
        return
    for fn in fns.values():
        local: dict[str, str] = {}  # local name -> the per-request call it holds
        fields: dict[str, dict[str, tuple[str, ast.AST]]] = {}  # obj -> field -> kind, node
        classes: dict[str, str] = {}  # obj -> class name
        nodes = sorted(
            walk_no_defs(fn), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
        )
        for node in nodes:
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            call = _calls_any(value, per_request)
            if isinstance(target, ast.Name):
                if call is not None:
                    local[target.id] = call
                elif _reads_current(value) and not isinstance(value, ast.Name | ast.Attribute):
                    # Computed here from the current message (`rank(self.cur_messages)`).
                    func = _name(value.func) if isinstance(value, ast.Call) else None
                    local[target.id] = func or target.id
                if (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Name)
                    and (value.func.id[:1].isupper())
                ):
                    classes[target.id] = value.func.id
            elif (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and (target.value.id != "self")
            ):
                kept = fields.setdefault(target.value.id, {})
                if call is not None:
                    kept[target.attr] = (f"`{call}()`", node)
                elif _is_history(value):
                    kept[target.attr] = ("history", node)
        for node in nodes:  # orders written out in this function
            parts = operands(node) if isinstance(node, (ast.BinOp, ast.List)) else None
            if not parts:
                continue
            first: tuple[str, ast.AST] | None = None
            for p in parts:
                call = _calls_any(p, per_request) or (
                    local.get(p.id) if isinstance(p, ast.Name) else None
                )
                if first is None and call is not None:
                    first = (f"`{call}()`", p)
                elif first is not None and _is_history(p):
                    ctx.flag(first[1], "PL304", _message(first[0], _name(p) or "", ""))
                    break
        for obj, kinds in fields.items():  # orders kept by the object's class
            if obj not in classes or "history" not in {k for k, _ in kinds.values()}:
                continue
            cls = _class(classes[obj], tree, ctx, load)
            order = _field_order(cls) if cls is not None else None
            if not order:
                continue
            history = [f for f, (k, _) in kinds.items() if k == "history" and f in order]
            for f, (kind, node) in kinds.items():
                if (
                    kind != "history"
                    and f in order
                    and history
                    and (order.index(f) < min(order.index(h) for h in history))
                ):
                    ctx.flag(
                        node,
                        "PL304",
                        _message(
                            kind,
                            f"{obj}.{history[0]}",
                            f" by `{classes[obj]}` (`{obj}.{f}` before `{obj}.{history[0]}`)",
                        ),
                    )
