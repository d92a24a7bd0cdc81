"""PL304 in Python: the new user message written into the message list before the replayed
conversation is:

    mensajes = [{"role": "system", "content": prompt}, {"role": "user", "content": mensaje}]
    for conv in reversed(recientes):
        mensajes.extend([{"role": "user", "content": conv.mensaje},
                         {"role": "assistant", "content": conv.respuesta}])
    client.chat.completions.create(model=m, messages=mensajes)

Each request then differs right after the system prompt, and none of the earlier exchanges
behind it is read from the cache. Read by shape, whatever the names: a list literal of role
messages ending with a user message whose text is not a constant, then, in a `for` loop over
stored items before the list is sent, user and assistant messages made from the loop's item
added to it. An agent loop's growth (tool results, the model's replies, a `range` or `while`
loop) is no replay. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .syntax import const_str, dict_get, names_in, walk_cached

_WHY = (
    "the new user message is put ahead of the replayed conversation (the earlier exchanges "
    "are added after it, line {line}): each request differs right after the system prompt, "
    "so none of the history behind it is read from the cache; append the new message after "
    "the history"
)


def check_user_ahead_of_history(tree: ast.Module, ctx: Context) -> None:
    if not any('"role"' in line or "'role'" in line for line in ctx.lines):
        return
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _check(fn, ctx)


def _role(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Dict):
        return None
    return const_str(dict_get(node, "role"))


def _check(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
    for stmt in walk_cached(fn):
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.List)
            and stmt.value.elts
        ):
            continue
        last = stmt.value.elts[-1]
        if _role(last) != "user" or not isinstance(last, ast.Dict):
            continue
        content = dict_get(last, "content")
        if content is None or const_str(content) is not None:
            continue
        listed = stmt.targets[0].id
        sent = _sent_at(fn, listed)
        for loop in walk_cached(fn):
            if (
                isinstance(loop, (ast.For, ast.AsyncFor))
                and loop.lineno > stmt.lineno
                and (sent is None or loop.lineno < sent)
                and _replays_into(loop, listed)
            ):
                ctx.flag(last, "PL304", _WHY.format(line=loop.lineno))
                return


def _sent_at(fn: ast.FunctionDef | ast.AsyncFunctionDef, listed: str) -> int | None:
    """The line of the first call handed the list as `messages=` / `contents=`."""
    lines = [
        call.lineno
        for call in walk_cached(fn)
        if isinstance(call, ast.Call)
        and any(
            k.arg in ("messages", "contents")
            and isinstance(k.value, ast.Name)
            and k.value.id == listed
            for k in call.keywords
        )
    ]
    return min(lines) if lines else None


def _replays_into(loop: ast.For | ast.AsyncFor, listed: str) -> bool:
    """The loop walks stored items (not a `range`) and adds to `listed` both a user and an
    assistant message made from its item."""
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
        return False
    item = names_in(loop.target)
    roles: set[str] = set()
    for call in walk_cached(loop):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("append", "extend")
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == listed
        ):
            continue
        for d in walk_cached(call):
            role = _role(d)
            if role is None or not isinstance(d, ast.Dict):
                continue
            text = dict_get(d, "content")
            if text is not None and names_in(text) & item:
                roles.add(role)
    return {"user", "assistant"} <= roles
