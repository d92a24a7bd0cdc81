"""PL304 in Python: a system message of retrieved material added to a message list before the
history is (`messages.append(LLMMessage(ChatRole.SYSTEM, dynamic))` where `dynamic =
encoder.encode(memories=memories, ...)`, then `messages.extend(... for m in recent)`). What was
recalled for this reply differs per reply, and the list a request sends puts it ahead of every
earlier message: the history after it is sent again uncached. Decided by where the message
goes (before the history of the list it joins), not by the list's name. Pure: a syntax tree in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import HISTORY_WORDS, words
from .context import Context

_RECALLED = frozenset(
    {"memories", "memory", "recalled", "retrieved", "summaries", "documents", "chunks", "passages"}
)
_HISTORY = HISTORY_WORDS | {"recent"}  # and the recent turns handed in
_WHY = (
    "`{name}` (recalled for this reply) goes into a system message ahead of the conversation "
    "history: the prefix changes there on every reply and the whole history after it is sent "
    "again uncached; put it in the newest user message instead"
)


def check_system_ahead_of_history(tree: ast.Module, ctx: Context) -> None:
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _check(fn, ctx)


def _check(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
    recalled: dict[str, str] = {}  # local -> the recalled name it is made from
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.Call, ast.Await)):
            call = n.value.value if isinstance(n.value, ast.Await) else n.value
            if not isinstance(call, ast.Call):
                continue
            named = [k.arg for k in call.keywords if k.arg and set(words(k.arg)) & _RECALLED]
            named += [a.id for a in call.args if isinstance(a, ast.Name) and _recalled(a.id)]
            for t in n.targets:
                if isinstance(t, ast.Name) and (named or _recalled(t.id)):
                    recalled[t.id] = named[0] if named else t.id
    if not recalled:
        return
    grown: dict[str, list[int]] = {}  # list -> lines where the history is added to it
    for n in ast.walk(fn):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "extend"
            and isinstance(n.func.value, ast.Name)
            and any(
                isinstance(x, ast.Name) and set(words(x.id)) & _HISTORY
                for a in n.args
                for x in ast.walk(a)
            )
        ):
            grown.setdefault(n.func.value.id, []).append(n.lineno)
    for n in ast.walk(fn):
        if not (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append"
            and isinstance(n.func.value, ast.Name)
            and n.args
        ):
            continue
        later = [line for line in grown.get(n.func.value.id, []) if line > n.lineno]
        content = _system_content(n.args[0])
        if not later or content is None or content not in recalled:
            continue
        ctx.flag(n, "PL304", _WHY.format(name=recalled[content]))


def _recalled(name: str) -> bool:
    return bool(set(words(name)) & _RECALLED)


def _system_content(msg: ast.expr) -> str | None:
    """The local a system message carries: `LLMMessage(ChatRole.SYSTEM, x)`,
    `SystemMessage(content=x)`, `{"role": "system", "content": x}`."""
    if isinstance(msg, ast.Dict):
        pairs = {
            k.value: v
            for k, v in zip(msg.keys, msg.values, strict=True)
            if isinstance(k, ast.Constant)
        }
        role, content = pairs.get("role"), pairs.get("content")
        if isinstance(role, ast.Constant) and role.value == "system":
            return content.id if isinstance(content, ast.Name) else None
        return None
    if not isinstance(msg, ast.Call):
        return None
    values = [*msg.args, *(k.value for k in msg.keywords)]
    system = any(
        (isinstance(v, ast.Attribute) and v.attr.lower() == "system")
        or (isinstance(v, ast.Constant) and v.value == "system")
        for v in values
    ) or (isinstance(msg.func, ast.Name) and msg.func.id == "SystemMessage")
    if not system:
        return None
    names = [v.id for v in values if isinstance(v, ast.Name)]
    return names[0] if len(names) == 1 else None
