"""PL305 in TypeScript: the same conversation sent under two system prompts by two functions
of one class (or one module outside classes). Where one method writes its messages as
`[{ role: "system", content: A }, ...history, ...]` and another as `[{ role: "system", content:
B }, ...history, ...]`, the second request (a rewrite of the reply, a sub-agent) shares nothing
of the first one's cached prefix: the whole history is sent again uncached on every turn it
runs. The first list written is taken as the conversation's own; each later one with another
system text, in another function, is reported. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .syntax import FUNCTIONS, Source, key_name, string_value, unwrap, walk

_OWNERS = ("class_declaration", "class", "program")


def _system_text(src: Source, element: Node) -> Node | None:
    """The content of `{ role: "system", content: X }`."""
    e = unwrap(element)
    if e.type != "object":
        return None
    pairs = {
        key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
        for p in e.named_children
        if p.type == "pair"
    }
    if string_value(src, pairs.get("role")) != "system":
        return None
    return pairs.get("content")


def _spreads_history(src: Source, array: Node) -> bool:
    """`...history`, `...trimmedHistory.map((turn) => ...)`: the conversation spread in."""
    for e in array.named_children:
        if e.type != "spread_element" or not e.named_children:
            continue
        root = unwrap(e.named_children[0])
        while root.type in ("call_expression", "member_expression"):
            inner = root.child_by_field_name("function") or root.child_by_field_name("object")
            if inner is None:
                break
            root = unwrap(inner)
        if root.type == "identifier" and set(words(src.text(root))) & HISTORY_WORDS:
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
        content = _system_text(src, n.named_children[0])
        if content is None or not _spreads_history(src, n):
            continue
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
                n.named_children[0],
                "PL305",
                f"the conversation is sent here under another system prompt (`{text}`) than "
                f"at line {src.pos(mine)[0]} (`{theirs}`): this request reads nothing of the "
                "conversation's cached prefix and the whole history is sent again uncached; "
                "send it under the same system prompt and put the task in the newest message",
            )
        )
    return out
