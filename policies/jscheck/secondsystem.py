"""PL304 in TypeScript: text handed to the function that sends a request, or kept in a map that
is refilled between requests, sent as a system message of its own after the system prompt and
ahead of the conversation history:

    [{ role: "system", content: SYSTEM }, { role: "system", content: extra }, ...history]
    const out = [this.messages[0]];
    for (const content of this.ephemeral.values()) out.push({ role: "system", content });
    for (let i = 1; i < this.messages.length; i++) out.push(this.messages[i]);

Whatever the text is named, it can differ on every call, and everything after it (the whole
history) is then read uncached. Text that is the same for the whole session (fixed text, a
constant, a `persona`, `profile` or `settings` handed in) is left out, as is text placed after
the history. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .structure import is_history
from .syntax import FUNCTIONS, Source, arguments, callee_name, key_name, string_value, unwrap, walk
from .values import _person_name as person_name

_SETTLED = frozenset({"profile", "persona", "system", "settings", "instructions", "prompt"})
_WHY = (
    "is sent as a system message ahead of the conversation history: it can differ on every "
    "request, and the whole history after it is then sent again uncached; put it in the "
    "newest user message"
)
_LOOPS = frozenset({"for_in_statement"})


def _system_content(src: Source, node: Node) -> Node | None:
    """The content of `{ role: "system", content: X }` (or `{ role: "system", content }`)."""
    node = unwrap(node)
    if node.type != "object":
        return None
    role = content = None
    for p in node.named_children:
        if p.type == "pair":
            k = key_name(src, p.child_by_field_name("key"))
            if k == "role":
                role = string_value(src, p.child_by_field_name("value"))
            elif k == "content":
                content = p.child_by_field_name("value")
        elif p.type == "shorthand_property_identifier" and src.text(p) == "content":
            content = p
    return content if role == "system" else None


def _params(src: Source, fn: Node) -> set[str]:
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if params is None:
        return set()
    if params.type == "identifier":
        return {src.text(params)}
    out = set()
    for p in params.named_children:
        pat = p.child_by_field_name("pattern") or p
        if pat.type == "identifier":
            out.add(src.text(pat))
    return out


def _refilled(src: Source, fn: Node, content: Node) -> bool:
    """`content` is the element of a `for (... of this.x.values())` loop around it, over a
    field of the object (kept between requests, refilled by its other methods)."""
    p = content.parent
    name = src.text(content)
    while p is not None and p.id != fn.id:
        if p.type in _LOOPS:
            left, right = p.child_by_field_name("left"), p.child_by_field_name("right")
            if left is not None and right is not None and name in src.text(left):
                return src.text(right).startswith("this.") and not is_history(src, right)
        p = p.parent
    return False


def _varies(src: Source, fn: Node, content: Node) -> Node | None:
    """The parameter or refilled element the content is made of, if any."""
    params = _params(src, fn)
    for x in walk(content):
        if x.type not in ("identifier", "shorthand_property_identifier"):
            continue
        name = src.text(x)
        if name.isupper() or set(words(name)) & _SETTLED:
            continue
        if words(name) == ["name"] or person_name(name):
            # `name`, `userName`: who the chat is with, the same on every request of it
            continue
        if name in params or _refilled(src, fn, x):
            return x
    return None


def _history_after(src: Source, items: list[Node], start: int) -> bool:
    return any(
        e.type == "spread_element" and e.named_children and is_history(src, e.named_children[0])
        for e in items[start:]
    )


def _pushes_history_later(src: Source, fn: Node, target: str, after: int) -> bool:
    """A later `target.push(...history)` or `target.push(history[i])` in the function."""
    for n in walk(fn):
        if n.type != "call_expression" or n.start_byte <= after or callee_name(src, n) != "push":
            continue
        f = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
        obj = f.child_by_field_name("object") if f.type == "member_expression" else None
        if obj is None or src.text(obj) != target:
            continue
        for a in arguments(n):
            a = unwrap(a.named_children[0]) if a.type == "spread_element" else unwrap(a)
            if a.type == "subscript_expression":
                a = unwrap(a.child_by_field_name("object"))  # type: ignore[arg-type]
            if is_history(src, a):
                return True
    return False


def _first_is_system(src: Source, first: Node) -> bool:
    """`{ role: "system", ... }`, or the history's own head (`this.messages[0]`)."""
    first = unwrap(first)
    if _system_content(src, first) is not None:
        return True
    return (
        first.type == "subscript_expression"
        and src.text(first.child_by_field_name("index")) == "0"
        and is_history(src, first.child_by_field_name("object"))
    )


def check_second_system(src: Source) -> list[Finding]:
    out: list[Finding] = []
    lists: dict[tuple[int, str], int] = {}  # (function, name) -> end of the list's literal
    for n in walk(src.root):
        if n.type == "array" and n.named_children and _first_is_system(src, n.named_children[0]):
            fn = n.parent
            while fn is not None and fn.type not in FUNCTIONS:
                fn = fn.parent
            if fn is None:
                continue
            items = list(n.named_children)
            holder = n.parent
            if holder is not None and holder.type == "variable_declarator":
                lists[(fn.id, src.text(holder.child_by_field_name("name")))] = n.end_byte
            for i, e in enumerate(items[1:], start=1):
                content = _system_content(src, e)
                if content is None or not _history_after(src, items, i + 1):
                    continue
                x = _varies(src, fn, content)
                if x is not None:
                    out.append(src.finding(content, "PL304", f"`{src.text(x)}` {_WHY}"))
        elif n.type == "call_expression" and callee_name(src, n) == "push":
            f = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
            obj = f.child_by_field_name("object") if f.type == "member_expression" else None
            fn = n.parent
            while fn is not None and fn.type not in FUNCTIONS:
                fn = fn.parent
            if obj is None or fn is None or (fn.id, src.text(obj)) not in lists:
                continue
            for a in arguments(n):
                content = _system_content(src, a)
                if content is None:
                    continue
                x = _varies(src, fn, content)
                if x is not None and _pushes_history_later(src, fn, src.text(obj), n.end_byte):
                    out.append(src.finding(content, "PL304", f"`{src.text(x)}` {_WHY}"))
    return out
