"""PL303 in Python: an earlier message of the history replaced by position. A message other
than the newest (`history[-2] = ...`), or the newest once the newest has been popped
(`state["messages"].pop()` then `state["messages"][-1] = HumanMessage(short)`: an agent that
shortens its previous observation before adding the next; or a new message appended, or handed
back under the history's key, after the newest, already sent, was popped), was sent in an
earlier request; a new message in its place changes the history's bytes from there on, and
every later request misses the cache from that message. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import HISTORY_WORDS, words
from .context import Context
from .side import _sends as is_send
from .syntax import count_from_end, last_name, walk_cached, walk_no_defs

_WHY = (
    "an earlier message of `{name}` is replaced by its position (`{target}`): it was sent "
    "before, so once replaced every request misses the cache from that message on; add a new "
    "message instead"
)


def check_rewritten(tree: ast.Module, ctx: Context) -> None:
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        popped: dict[str, int] = {}  # the history popped, by its text, at its first line
        writes: list[tuple[ast.Assign, str, int]] = []
        for node in walk_no_defs(fn):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "pop"
                and _last(node.args)
                and _history(node.func.value)
            ):
                key = ast.unparse(node.func.value)
                popped[key] = min(popped.get(key, node.lineno), node.lineno)
            elif isinstance(node, ast.Assign) and _message(node.value):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and _history(t.value):
                        at = count_from_end(t.slice)
                        if at is not None:
                            writes.append((node, ast.unparse(t.value), at))
        for node, key, at in writes:
            if at >= 2 or (at == 1 and popped.get(key, node.lineno) < node.lineno):
                target = ast.unparse(node.targets[0])
                ctx.flag(node, "PL303", _WHY.format(name=key, target=target[:60]))
        if popped and not writes:
            _put_back(fn, popped, ctx)


def _put_back(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, popped: dict[str, int], ctx: Context
) -> None:
    """The newest message popped after a request sent the history (so it was sent) and a new
    one made after it put in its place: appended to the same history, or handed back under a
    history key for the framework to append (`return {**state, "messages": [message]}`); its
    replacement is not the same bytes. A pop with nothing made to replace it (a failed turn
    taken back), or one before any request (a reply not yet sent), is not."""
    made = {
        t.id: node.lineno
        for node in walk_no_defs(fn)
        if isinstance(node, ast.Assign) and _message(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    }

    # what each local was bound to, to see a history sent under another name
    bound = {
        t.id: ast.unparse(node.value)
        for node in walk_no_defs(fn)
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }

    def sent_before(key: str, line: int) -> bool:
        """A request earlier in the function sent the history: the popped message was in it."""
        for node in walk_no_defs(fn):
            if isinstance(node, ast.Call) and node.lineno < line and is_send(node):
                for a in [*node.args, *(k.value for k in node.keywords)]:
                    text = bound.get(a.id, a.id) if isinstance(a, ast.Name) else ast.unparse(a)
                    if key in text:
                        return True
        return False

    def new_message(e: ast.expr, after: int) -> bool:
        if isinstance(e, ast.Name):
            return made.get(e.id, 0) > after
        return _message(e) and e.lineno > after

    for node in walk_no_defs(fn):
        for key, line in popped.items():
            put = False
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append"
                and ast.unparse(node.func.value) == key
                and node.args
            ):
                put = new_message(node.args[0], line)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
                for k, v in zip(node.value.keys, node.value.values, strict=True):
                    if (
                        isinstance(k, ast.Constant)
                        and isinstance(k.value, str)
                        and set(words(k.value)) & HISTORY_WORDS
                        and isinstance(v, ast.List)
                        and any(new_message(e, line) for e in v.elts)
                    ):
                        put = True
            if put and sent_before(key, line):
                ctx.flag(
                    _pop_at(fn, key, line),
                    "PL303",
                    f"the newest message of `{key}` is popped and a new one put in its place: "
                    "it was sent before, so every later request misses the cache from that "
                    "message on; add a new message instead",
                )
                return


def _pop_at(fn: ast.AST, key: str, line: int) -> ast.AST:
    for node in walk_no_defs(fn):
        if (
            isinstance(node, ast.Call)
            and node.lineno == line
            and ast.unparse(node.func) == f"{key}.pop"
        ):
            return node
    return fn


def _last(args: list[ast.expr]) -> bool:
    """`pop()` or `pop(-1)`: the newest message taken off."""
    return not args or count_from_end(args[0]) == 1


def _history(node: ast.expr) -> bool:
    """`messages`, `self.history`, `state["messages"]`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        name = node.slice.value if isinstance(node.slice.value, str) else ""
    elif (  # `state.get("messages")`
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ):
        name = node.args[0].value if isinstance(node.args[0].value, str) else ""
    elif isinstance(node, ast.Attribute):
        name = node.attr
    elif isinstance(node, ast.Name):
        name = node.id
    else:
        return False
    ws = set(words(name))
    return bool(ws & HISTORY_WORDS) and "id" not in ws and "system" not in ws


def _message(value: ast.expr) -> bool:
    """A message made here: a message class's call or a role dict."""
    if isinstance(value, ast.Call):
        f = value.func
        name = last_name(f)
        return name.endswith("Message")
    return isinstance(value, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "role" for k in value.keys
    )
