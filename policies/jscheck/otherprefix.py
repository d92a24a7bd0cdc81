"""PL305 in TypeScript: the same conversation sent under two system prompts by two functions
of one class (or one module outside classes). Where one method writes its messages as
`[{ role: "system", content: A }, ...history, ...]` and another as `[{ role: "system", content:
B }, ...history, ...]` (or LangChain.js's `fromMessages([["system", A], new
MessagesPlaceholder("messages")])`, `new SystemMessage(A)`), the second request (a rewrite of
the reply, a sub-agent) shares nothing of the first one's cached prefix: the whole history is
sent again uncached on every turn it runs. The first list written is taken as the
conversation's own; each later one with another system text, in another function, is
reported at its system text (where the two differ). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .syntax import FUNCTIONS, Source, key_name, string_value, unwrap, walk

_OWNERS = ("class_declaration", "class", "program")
_LC_SYSTEM = frozenset({"SystemMessage", "SystemChatMessage"})


def _system_text(src: Source, element: Node) -> tuple[Node, Node] | None:
    """The system text of `{ role: "system", content: X }`, `["system", X]` or `new
    SystemMessage(X)`, and the node a finding stands at: the text itself, or the role marker
    of a pair (its text may run over many lines below it)."""
    e = unwrap(element)
    if e.type == "array" and len(e.named_children) == 2:
        role, text = e.named_children
        return (text, role) if string_value(src, role) == "system" else None
    if e.type == "new_expression":
        ctor = e.child_by_field_name("constructor")
        args = e.child_by_field_name("arguments")
        if ctor is None or src.text(ctor) not in _LC_SYSTEM or args is None:
            return None
        return (args.named_children[0], e) if args.named_children else None
    if e.type != "object":
        return None
    pairs = {
        key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
        for p in e.named_children
        if p.type == "pair"
    }
    content = pairs.get("content")
    if string_value(src, pairs.get("role")) != "system" or content is None:
        return None
    return content, content


def _history_named(src: Source, value: Node) -> bool:
    """`history`, `trimmedHistory.map((turn) => ...)`, `memory.chatHistory`, `(input.history ??
    [])`: a value whose root or one of whose fields is named for the conversation (a method
    called on it, `map`, names no data)."""
    node = unwrap(value)
    if node.type == "binary_expression":
        left = node.child_by_field_name("left")
        node = unwrap(left) if left is not None else node
    while node.type in ("call_expression", "member_expression"):
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            called = node.parent is not None and node.parent.type == "call_expression"
            if prop is not None and not called and set(words(src.text(prop))) & HISTORY_WORDS:
                return True
        inner = node.child_by_field_name("function") or node.child_by_field_name("object")
        if inner is None:
            break
        node = unwrap(inner)
    return node.type == "identifier" and bool(set(words(src.text(node))) & HISTORY_WORDS)


def _spreads_history(src: Source, array: Node) -> bool:
    """`...history` spread in, or LangChain.js's `new MessagesPlaceholder("history")`."""
    for e in array.named_children:
        if e.type == "spread_element" and e.named_children:
            if _history_named(src, e.named_children[0]):
                return True
        elif e.type == "new_expression":
            ctor = e.child_by_field_name("constructor")
            if ctor is not None and src.text(ctor) == "MessagesPlaceholder":
                return True
    return False


def _function(node: Node) -> int:
    p = node.parent
    while p is not None and p.type not in FUNCTIONS:
        p = p.parent
    return p.id if p is not None else 0


def _owner(node: Node) -> Node:
    p = node.parent
    while p is not None and p.type not in _OWNERS:
        p = p.parent
    return p if p is not None else node


def check_other_prefix(src: Source) -> list[Finding]:
    out: list[Finding] = []
    first: dict[int, tuple[Node, str]] = {}
    for n in walk(src.root):
        if n.type != "array" or not n.named_children:
            continue
        found = _system_text(src, n.named_children[0])
        if found is None or not _spreads_history(src, n):
            continue
        content, at = found
        key = _owner(n).id
        text = src.text(content)
        if key not in first:
            first[key] = (content, text)
            continue
        mine, theirs = first[key]
        if text == theirs or _function(mine) == _function(n):
            continue  # lists built side by side in one function are one request's choice
        out.append(
            src.finding(
                at,
                "PL305",
                f"the conversation is sent here under another system prompt (`{text[:60]}`) than "
                f"at line {src.pos(mine)[0]} (`{theirs[:60]}`): this request reads nothing of the "
                "conversation's cached prefix and the whole history is sent again uncached; "
                "send it under the same system prompt and put the task in the newest message",
            )
        )
    return out
