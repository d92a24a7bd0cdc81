"""PL305: a side request with another prefix. A summariser, title or classifier call that
flattens the conversation into the text of one user message under its own system prompt
resends every token of the history uncached: the main session's cache entry starts with the
main system prompt and tools, which this request does not send, so nothing of it is read.

Found in one function: a message list written out with a system message first (or sent with a
`system=` argument) and a message
whose content is text drawn from a history-named collection (`history`, `messages`, `done`...,
by a loop that builds the text or an expression over it), passed to a call that sends it. Pure:
a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import SIDE_WORDS, words
from .context import Context
from .syntax import callee, last_name, names_in, operands, walk_cached, walk_no_defs

_HISTORY_WORDS = frozenset(
    {"history", "messages", "conversation", "transcript", "turns", "msgs", "chat", "done"}
)
_SEND_WORDS = frozenset(
    {
        "send",
        "create",
        "completion",
        "completions",
        "complete",
        "chat",
        "invoke",
        "generate",
        "ask",
        "query",
        "request",
        "call",
        "acreate",
        "ainvoke",
        "stream",
    }
)


def _is_history(node: ast.expr) -> bool:
    return bool(set(words(last_name(node))) & _HISTORY_WORDS)


def _role_and_content(node: ast.expr) -> tuple[str | None, ast.expr | None]:
    """`{"role": r, "content": c}`, `dict(role=r, content=c)` or a message class called with
    `role=` (`ChatMessage(role=MessageRole.SYSTEM, ...)`)."""
    items: list[tuple[str, ast.expr]] = []
    if isinstance(node, ast.Dict):
        items = [
            (k.value, v)
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    elif isinstance(node, ast.Call):
        items = [(k.arg, k.value) for k in node.keywords if k.arg]
        cls = _class_role(node)
        if cls is not None:  # LangChain / AutoGen `SystemMessage(content=...)`
            content = dict(items).get("content") or (node.args[0] if node.args else None)
            return cls, content
    fields = dict(items)
    role = fields.get("role")
    if isinstance(role, ast.Attribute):  # an enum member: MessageRole.SYSTEM
        return role.attr.lower(), fields.get("content")
    return (
        role.value if isinstance(role, ast.Constant) and isinstance(role.value, str) else None
    ), fields.get("content")


_CLASS_ROLES = {"system": "system", "human": "user", "user": "user", "ai": "assistant"}


def _class_role(call: ast.Call) -> str | None:
    """The role a message class stands for: `SystemMessage` system, `HumanMessage` user."""
    func = call.func
    name = (
        func.attr
        if isinstance(func, ast.Attribute)
        else (func.id if isinstance(func, ast.Name) else "")
    )
    ws = words(name)
    if len(ws) == 2 and ws[1] == "message":
        return _CLASS_ROLES.get(ws[0])
    return None


def _side_named(fn: ast.FunctionDef | ast.AsyncFunctionDef, system: ast.AST) -> bool:
    names = [
        fn.name,
        *(
            n.value
            for n in walk_cached(system)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) < 60
        ),
    ]
    return any(set(words(x)) & SIDE_WORDS for x in names)


def _history_under_other_system(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr, messages: dict[str, list[ast.expr]]
) -> bool:
    """`[system_msg] + history + [ask]` in a side-task function: the history as messages,
    after a system message of the side task's own."""
    parts = operands(value)
    if not parts or len(parts) < 2:
        return False
    first = parts[0]
    if isinstance(first, ast.List) and first.elts:
        first = first.elts[0]
    firsts = messages.get(first.id, [first]) if isinstance(first, ast.Name) else [first]
    found = [c for r, c in map(_role_and_content, firsts) if r == "system" and c is not None]
    if not found:
        return False
    content = found[0]
    return any(
        isinstance(p, (ast.Name, ast.Attribute)) and _is_history(p) for p in parts[1:]
    ) and _side_named(fn, content)


def _history_with_own_system(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> bool:
    """`create(system="Summarise ...", messages=history)` in a side task: the history as the
    messages of a request whose system prompt is text written for that request."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    system = kw.get("system", kw.get("instructions"))
    sent = kw.get("messages", kw.get("input"))
    if system is None or sent is None:
        return False
    if not isinstance(system, (ast.Constant, ast.JoinedStr)):
        return False  # a name may well be the session's own system prompt
    return any(
        isinstance(p, (ast.Name, ast.Attribute)) and _is_history(p)
        for p in operands(sent) or [sent]
    ) and _side_named(fn, system)


def _history_text(fn: ast.AST) -> set[str]:
    """Local names whose value is text drawn from the conversation: built in a loop over a
    history-named collection from the loop's item, or assigned from an expression over one."""
    out: set[str] = set()
    for node in walk_no_defs(fn):
        if isinstance(node, (ast.For, ast.AsyncFor)) and _is_history(node.iter):
            items = names_in(node.target)
            for sub in walk_cached(node):
                if (
                    isinstance(sub, (ast.AugAssign, ast.Assign))
                    and names_in(sub.value) & items
                    and not _cuts_each(sub.value)
                ):
                    targets = [sub.target] if isinstance(sub, ast.AugAssign) else sub.targets
                    out |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and not isinstance(node.value, (ast.List, ast.Dict))
            and any(
                isinstance(n, (ast.Name, ast.Attribute)) and _is_history(n)
                for n in walk_cached(node.value)
            )
            and not _cuts_each(node.value)
            and not _one_message(node.value)
        ):
            out.add(node.targets[0].id)
    return out


def _one_message(value: ast.expr) -> bool:
    """Text of one message picked by its position (`user_messages[-1].content`, `history[0]`):
    the newest (or first) message alone, which is no conversation resent, whatever the
    request it goes into."""
    picked: set[int] = set()
    for n in walk_cached(value):
        if isinstance(n, ast.Subscript) and _position(n.slice):
            picked |= {id(m) for m in walk_cached(n.value)}
        if isinstance(n, ast.IfExp):  # `... if user_messages else ""`: a test, not text
            picked |= {id(m) for m in walk_cached(n.test)}
    return all(
        id(n) in picked
        for n in walk_cached(value)
        if isinstance(n, (ast.Name, ast.Attribute)) and _is_history(n)
    )


def _position(key: ast.expr) -> bool:
    """A constant index: `0`, `-1`."""
    if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub):
        key = key.operand
    return isinstance(key, ast.Constant) and isinstance(key.value, int)


def _cuts_each(value: ast.expr) -> bool:
    """Text made of each message cut to a length (`f"{m['content'][:200]}" for m in
    history[-5:]`, `truncate(m.content, 500)`): excerpts of the recent turns handed to a side
    request (a classifier, an extractor), which the labels count as no breaker, not the
    conversation resent."""
    for n in walk_cached(value):
        if (
            isinstance(n, ast.Subscript)
            and isinstance(n.slice, ast.Slice)
            and n.slice.lower is None
            and n.slice.step is None
            and isinstance(n.slice.upper, ast.Constant)
            and isinstance(n.slice.upper.value, int)
            and n.slice.upper.value > 0
        ):
            return True
        if (
            isinstance(n, ast.Call)
            and len(n.args) + len(n.keywords) >= 2
            and {"truncate", "shorten"} & set(words(callee(n)))
        ):
            return True
    return False


_PLAIN_HISTORY = frozenset({"history", "conversation", "transcript"})


def _plainly_history(content: ast.expr, bound: dict[str, list[ast.expr]]) -> bool:
    """A text that names the conversation outright (`f"...{history}..."`), here or in the
    value its name was bound to: not a name that only mentions a chat (`crew_chat_inputs`)."""
    names = set(names_in(content))
    for n in list(names):
        for v in bound.get(n, []):
            names |= set(names_in(v))
    return any(set(words(n)) & _PLAIN_HISTORY for n in names)


def _bound_above(node: ast.expr, bound: dict[str, list[ast.expr]], line: int) -> ast.expr:
    """The value a name was last bound to above `line` (the name itself when none)."""
    if not isinstance(node, ast.Name):
        return node
    above = [v for v in bound.get(node.id, []) if v.lineno <= line]
    return max(above, key=lambda v: v.lineno) if above else node


def _dropped_for_side_task(call: ast.Call) -> ast.expr | None:
    """`system=None if is_compact else SYSTEM` (or `tools=`) beside `messages=`: a prefix part
    left out (`None`, `[]`, `""`) when the condition names a side task."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if "messages" not in kw:
        return None
    for key in ("system", "instructions", "tools"):
        v = kw.get(key)
        if not isinstance(v, ast.IfExp):
            continue
        empty = any(
            (isinstance(b, ast.Constant) and b.value in (None, ""))
            or (isinstance(b, ast.List) and not b.elts)
            for b in (v.body, v.orelse)
        )
        named = [
            n.id if isinstance(n, ast.Name) else n.attr
            for n in walk_cached(v.test)
            if isinstance(n, (ast.Name, ast.Attribute))
        ]
        if empty and any(set(words(x)) & SIDE_WORDS for x in named):
            return v
    return None


def _sends(call: ast.Call) -> bool:
    func = call.func
    name = (
        func.attr
        if isinstance(func, ast.Attribute)
        else (func.id if isinstance(func, ast.Name) else "")
    )
    return bool(set(words(name)) & _SEND_WORDS)


def check_side_requests(tree: ast.Module, ctx: Context) -> None:
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        lists: dict[str, ast.List] = {}
        bound: dict[str, list[ast.expr]] = {}  # single-name bindings (a name may have several)
        text: set[str] | None = None
        for node in walk_no_defs(fn):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                bound.setdefault(node.targets[0].id, []).append(node.value)
                if isinstance(node.value, ast.List):
                    lists[node.targets[0].id] = node.value
        for node in walk_no_defs(fn):
            if not (isinstance(node, ast.Call) and _sends(node)):
                continue
            dropped = _dropped_for_side_task(node)
            if dropped is not None:
                ctx.flag(
                    dropped,
                    "PL305",
                    "a side request (a summary or a compaction) sends the conversation without "
                    "the session's system prompt or tools: none of it is read from the "
                    "session's cache; send it after the session's own prefix and ask for the "
                    "summary in the newest user message",
                )
                continue
            for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "messages")]:
                value: ast.expr = arg
                if isinstance(arg, ast.Name):  # the binding that reaches the call: the last above
                    above = [v for v in bound.get(arg.id, []) if v.lineno < node.lineno]
                    value = max(above, key=lambda v: v.lineno) if above else arg
                if _history_with_own_system(fn, node):
                    ctx.flag(
                        node,
                        "PL305",
                        "a side request sends the conversation under a system prompt written "
                        "for it: none of it is read from the session's cache; send it after "
                        "the session's own prefix instead",
                    )
                    break
                if _history_under_other_system(fn, value, bound):
                    ctx.flag(
                        node,
                        "PL305",
                        "a side request sends the conversation under a system message "
                        "of its own: none of it is read from the session's cache; send "
                        "it after the session's own prefix instead",
                    )
                    break
                msgs = (
                    lists.get(arg.id)
                    if isinstance(arg, ast.Name)
                    else (arg if isinstance(arg, ast.List) else None)
                )
                if msgs is None or not msgs.elts:
                    continue
                # `[system_message]`: each message read from the binding above the call.
                elts = [_bound_above(e, bound, node.lineno) for e in msgs.elts]
                first_role, _ = _role_and_content(elts[0])
                own_system = any(k.arg == "system" for k in node.keywords)
                if not own_system and first_role != "system":
                    continue
                if text is None:
                    text = _history_text(fn)
                # A lone system message carrying the conversation is a side request too.
                start = 0 if own_system or len(elts) == 1 else 1
                for m in elts[start:]:
                    _, content = _role_and_content(m)
                    lone = len(elts) == 1
                    if lone and content is not None and not _plainly_history(content, bound):
                        continue  # a lone system message: only when it plainly holds the history
                    if content is not None and names_in(content) & text:
                        ctx.flag(
                            node,
                            "PL305",
                            "a side request sends the conversation as text under its own "
                            "system prompt: none of it is read from the session's cache; "
                            "send it after the session's own prefix instead",
                        )
                        break
