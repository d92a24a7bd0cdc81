"""PL304 in TypeScript/JavaScript: the new user message pushed onto a message list before the
replayed history is (`messages.push({ role: 'system', ... })`, `messages.push({ role: 'user',
content: userMessage })`, then `for (const m of chatHistory.slice(-10)) messages.push(m)` or
`messages.push(...history)`). Each request then differs right after the system prompt, and
none of the history behind it is read from the cache. Pure: a parsed file in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, names_request, words
from .syntax import FUNCTIONS, Source, arguments, callee_name, key_name, string_value, unwrap, walk

_HISTORY = HISTORY_WORDS
_WHY = (
    "the new user message (`{name}`) is put ahead of the replayed conversation history: each "
    "request differs right after the system prompt, so none of the history behind it is read "
    "from the cache; append the new message after the history"
)


def check_user_ahead_of_history(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type in FUNCTIONS:
            out += _check(src, fn)
    return out


def _own_pushes(src: Source, fn: Node) -> list[tuple[str, Node]]:
    """(list, push call) for each `lst.push(...)` of `fn` itself, not of a function inside."""
    out: list[tuple[str, Node]] = []
    todo = list(fn.children)
    while todo:
        n = todo.pop()
        if n.type in FUNCTIONS:
            continue
        todo.extend(n.children)
        if n.type == "call_expression" and callee_name(src, n) == "push":
            f = n.child_by_field_name("function")
            target = f.child_by_field_name("object") if f is not None else None
            if target is not None and target.type == "identifier":
                out.append((src.text(target), n))
    return sorted(out, key=lambda x: x[1].start_byte)


def _check(src: Source, fn: Node) -> list[Finding]:
    pushes = _own_pushes(src, fn)
    out: list[Finding] = []
    for i, (lst, call) in enumerate(pushes):
        name = next((x for a in arguments(call) if (x := _user_turn(src, unwrap(a)))), None)
        if name is None:
            continue
        if any(other == lst and _adds_history(src, later) for other, later in pushes[i + 1 :]):
            out.append(src.finding(call, "PL304", _WHY.format(name=name)))
    return out


def _user_turn(src: Source, obj: Node) -> str | None:
    """`{ role: 'user', content: userMessage }`: the name of the current request it sends."""
    if obj.type != "object":
        return None
    pairs = {
        key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
        for p in obj.named_children
        if p.type == "pair"
    }
    content = pairs.get("content")
    if string_value(src, pairs.get("role")) != "user" or content is None:
        return None
    content = unwrap(content)
    if content.type == "identifier" and names_request(src.text(content)):
        return src.text(content)
    return None


def _history_named(src: Source, node: Node) -> bool:
    return any(x.type == "identifier" and set(words(src.text(x))) & _HISTORY for x in walk(node))


def _adds_history(src: Source, call: Node) -> bool:
    """`push(...history)`, or a push inside a loop over the history (`for (const m of
    chatHistory.slice(-10))`)."""
    if any(a.type == "spread_element" and _history_named(src, a) for a in arguments(call)):
        return True
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "for_in_statement":
            over = p.child_by_field_name("right")
            if over is not None and _history_named(src, over):
                return True
        p = p.parent
    return False
