"""PL304 in TypeScript/JavaScript: a system message of what was recalled for this reply pushed
onto a message list before the history is (`apiMessages.push({ role: 'system', content:
memory.map(...) })` where `memory = recallRelevantMemories(...)`, then
`apiMessages.push(...history)`). The recalled set differs per reply and sits ahead of every
earlier message of the list a request sends. Pure: a parsed file in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .syntax import FUNCTIONS, Source, arguments, callee_name, key_name, string_value, unwrap, walk

_RECALLED = frozenset({"memories", "memory", "recalled", "retrieved", "recall", "retrieve"})
_HISTORY = HISTORY_WORDS | {"recent"}  # and the recent turns handed in
_WHY = (
    "`{name}` (recalled for this reply) goes into a system message ahead of the conversation "
    "history: the prefix changes there on every reply and the whole history after it is sent "
    "again uncached; put it in the newest user message instead"
)


def check_system_ahead_of_history(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type in FUNCTIONS and not _inside_function(fn):
            out += _check(src, fn)  # the outermost: its walk holds the functions inside it
    return out


def _inside_function(fn: Node) -> bool:
    p = fn.parent
    while p is not None:
        if p.type in FUNCTIONS:
            return True
        p = p.parent
    return False


def _check(src: Source, fn: Node) -> list[Finding]:
    recalled: dict[str, str] = {}
    pushes: list[tuple[str, Node]] = []  # (list, push call)
    for n in walk(fn):
        if n.type == "variable_declarator":
            value = n.child_by_field_name("value")
            name = src.text(n.child_by_field_name("name"))
            if (
                value is not None
                and unwrap(value).type == "call_expression"
                and set(words(callee_name(src, unwrap(value)))) & _RECALLED
            ):
                recalled[name] = name
        elif n.type == "call_expression" and callee_name(src, n) == "push":
            f = n.child_by_field_name("function")
            target = f.child_by_field_name("object") if f is not None else None
            if target is not None and target.type == "identifier":
                pushes.append((src.text(target), n))
    out: list[Finding] = []
    if not recalled:
        return out
    for lst, call in pushes:
        for arg in arguments(call):
            said = _recalled_system(src, unwrap(arg), recalled)
            if said is None:
                continue
            if any(
                other == lst and later.start_byte > call.start_byte and _spreads_history(src, later)
                for other, later in pushes
            ):
                out.append(src.finding(call, "PL304", _WHY.format(name=said)))
    return out


def _recalled_system(src: Source, obj: Node, recalled: dict[str, str]) -> str | None:
    if obj.type != "object":
        return None
    pairs = {
        key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
        for p in obj.named_children
        if p.type == "pair"
    }
    if string_value(src, pairs.get("role")) != "system" or pairs.get("content") is None:
        return None
    for x in walk(pairs["content"]):  # type: ignore[arg-type]
        if x.type == "identifier" and src.text(x) in recalled:
            return recalled[src.text(x)]
    return None


def _spreads_history(src: Source, call: Node) -> bool:
    """`push(...history)`: the conversation spread onto the list."""
    return any(
        a.type == "spread_element"
        and any(x.type == "identifier" and set(words(src.text(x))) & _HISTORY for x in walk(a))
        for a in arguments(call)
    )
