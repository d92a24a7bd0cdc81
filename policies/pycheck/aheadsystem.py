"""PL304 in Python: a system message of retrieved material added to a message list before the
history is (`messages.append(LLMMessage(ChatRole.SYSTEM, dynamic))` where `dynamic =
encoder.encode(memories=memories, ...)`, then `messages.extend(... for m in recent)`). What was
recalled for this reply differs per reply, and the list a request sends puts it ahead of every
earlier message: the history after it is sent again uncached. Decided by where the message
goes (before the history of the list it joins), not by the list's name. The same for a second
system message, after the list's first, whose text the function computes for this request (a
user's stored background read by a call, the page the request names): fixed text, a parameter
or an attribute set elsewhere is left alone. The system message may also head the list as it
is made (`messages = [ChatMessage(role="system", content=c)]`, then
`messages.extend(request.history)`), and the retrieved material may be what a parameter of the
function brings with the request (`self._system(request.context)`; not `self.context`). Pure: a
syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import HISTORY_WORDS, words
from .context import Context
from .syntax import walk_cached

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
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _check(fn, ctx)


def _check(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
    recalled: dict[str, str] = {}  # local -> the recalled name it is made from
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self", "cls"}
    for n in walk_cached(fn):
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.Call, ast.Await)):
            call = n.value.value if isinstance(n.value, ast.Await) else n.value
            if not isinstance(call, ast.Call):
                continue
            named = [k.arg for k in call.keywords if k.arg and set(words(k.arg)) & _RECALLED]
            named += [a.id for a in call.args if isinstance(a, ast.Name) and _recalled(a.id)]
            named += [ast.unparse(a) for a in call.args if _handed_in(a, params)]
            for t in n.targets:
                if isinstance(t, ast.Name) and (named or _recalled(t.id)):
                    recalled[t.id] = named[0] if named else t.id
    grown: dict[str, list[int]] = {}  # list -> lines where the history is added to it
    for n in walk_cached(fn):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "extend"
            and isinstance(n.func.value, ast.Name)
            and any(
                (isinstance(x, ast.Name) and set(words(x.id)) & _HISTORY)
                # `messages.extend(request.history)`
                or (isinstance(x, ast.Attribute) and set(words(x.attr)) & _HISTORY)
                for a in n.args
                for x in walk_cached(a)
            )
        ):
            grown.setdefault(n.func.value.id, []).append(n.lineno)
        elif isinstance(n, (ast.For, ast.AsyncFor)) and _names_history(n.iter):
            # `for turn in conversation_history[-10:]: messages.append({...})`
            for target in _appended_to(n):
                grown.setdefault(target, []).append(n.lineno)
    if not grown:
        return
    headed = _system_headed(fn)
    local = _locals(fn)
    for n in walk_cached(fn):
        # `messages = [ChatMessage(role="system", content=system_content)]`, the history
        # extended onto it later
        if (
            isinstance(n, (ast.Assign, ast.AnnAssign))
            and isinstance(n.value, ast.List)
            and n.value.elts
            and (listed := n.targets[0] if isinstance(n, ast.Assign) else n.target)
            and isinstance(listed, ast.Name)
            and any(line > n.lineno for line in grown.get(listed.id, []))
            and (content := _system_content(n.value.elts[0])) is not None
            and content in recalled
        ):
            ctx.flag(n, "PL304", _WHY.format(name=recalled[content]))
    for n in walk_cached(fn):
        if not (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append"
            and isinstance(n.func.value, ast.Name)
            and n.args
        ):
            continue
        later = [line for line in grown.get(n.func.value.id, []) if line > n.lineno]
        if not later:
            continue
        content = _system_content(n.args[0])
        if content is not None and content in recalled:
            ctx.flag(n, "PL304", _WHY.format(name=recalled[content]))
        elif (
            headed.get(n.func.value.id, n.lineno) < n.lineno
            and (made := _made_here(_system_text(n.args[0]), local)) is not None
        ):
            ctx.flag(n, "PL304", _WHY_SECOND.format(name=made))


def _names_history(node: ast.expr) -> bool:
    return any(
        isinstance(x, (ast.Name, ast.Attribute))
        and set(words(x.id if isinstance(x, ast.Name) else x.attr)) & _HISTORY
        for x in walk_cached(node)
    )


def _appended_to(loop: ast.For | ast.AsyncFor) -> list[str]:
    return [
        n.func.value.id
        for n in walk_cached(loop)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "append"
        and isinstance(n.func.value, ast.Name)
    ]


def _system_headed(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    """Lists made in `fn` with a system message first (`messages = [{"role": "system",
    ...}]`), by name: the line where each is made."""
    out: dict[str, int] = {}
    for n in walk_cached(fn):
        if isinstance(n, ast.Assign):
            value, targets = n.value, n.targets
        elif isinstance(n, ast.AnnAssign) and n.value is not None:
            value, targets = n.value, [n.target]
        else:
            continue
        if not (isinstance(value, ast.List) and value.elts):
            continue
        if _system_text(value.elts[0]) is None:
            continue
        for t in targets:
            if isinstance(t, ast.Name):
                out[t.id] = n.lineno
    return out


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names `fn` makes from what it computes: bound to a call's result, or a list it fills
    (`hints = []` then `hints.append(...)`); not its parameters."""
    out: set[str] = set()
    for n in walk_cached(fn):
        if isinstance(n, ast.Assign) and any(isinstance(x, ast.Call) for x in walk_cached(n.value)):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append"
            and isinstance(n.func.value, ast.Name)
        ):
            out.add(n.func.value.id)
    return out


def _made_here(text: ast.expr | None, local: set[str]) -> str | None:
    """The local a message's text is computed from in this function (`path_hint`, the
    `hints` of `"Background:\n" + "\n".join(hints)`); None for a constant, a parameter, an
    attribute set elsewhere or a call on them (fixed for the session)."""
    if text is None:
        return None
    for x in walk_cached(text):
        if isinstance(x, ast.Name) and x.id in local:
            return x.id
    return None


def _system_text(msg: ast.expr) -> ast.expr | None:
    """The text of a system message written as a dict (`{"role": "system", "content": x}`)."""
    if not isinstance(msg, ast.Dict):
        return None
    pairs = {
        k.value: v for k, v in zip(msg.keys, msg.values, strict=True) if isinstance(k, ast.Constant)
    }
    role = pairs.get("role")
    if isinstance(role, ast.Constant) and role.value == "system":
        return pairs.get("content")
    return None


_WHY_SECOND = (
    "a second system message made from `{name}` in this request goes ahead of the "
    "conversation history: the prefix changes there whenever it does and the whole history "
    "after it is sent again uncached; put it in the newest user message instead"
)


def _recalled(name: str) -> bool:
    return bool(set(words(name)) & _RECALLED)


def _handed_in(arg: ast.expr, params: set[str]) -> bool:
    """`request.context`, `req.documents`: retrieved material a parameter of the function
    brings with this request (the request object that also brings its history)."""
    if not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name)):
        return False
    ws = words(arg.attr)
    return arg.value.id in params and bool(ws) and (ws[-1] == "context" or _recalled(arg.attr))


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
