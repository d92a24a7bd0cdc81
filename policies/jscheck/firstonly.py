"""PL303 in TypeScript/JavaScript: a system message sent only on the first request, the same
conversation resent after it without it:

    const targetMessages = this.isFirstRequest ? [this.systemMessage, ...messages] : [...messages]
    this.isFirstRequest = false

The flag is cleared after the first request, so the second request starts with the
conversation's first user message where the first started with the system message: the
prefix differs from its first message on, and no later request reads the first one's cache
(nor, once the system message is gone, behaves as the first did). Read by shape: a choice
between the same list with a system message put first and without it, on a flag the file sets
to `false`. Pure: a parsed file in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .syntax import Source, key_name, string_value, unwrap, walk

_WHY = (
    "the system message is put ahead of the conversation only while `{flag}` holds, and the "
    "flag is cleared after the first request: the later requests resend the conversation "
    "without it, so their prefix differs from the first message on; send the system message "
    "with every request"
)

_CHOSEN_LIST = re.compile(rb"\?\s*\[")


def check_system_first_only(src: Source) -> list[Finding]:
    out: list[Finding] = []
    if b"false" not in src.data or not _CHOSEN_LIST.search(src.data):
        return out  # no flag cleared, or no choice of a list literal
    cleared: set[str] | None = None
    for n in walk(src.root):
        if n.type != "ternary_expression":
            continue
        cond = n.child_by_field_name("condition")
        yes = n.child_by_field_name("consequence")
        no = n.child_by_field_name("alternative")
        if cond is None or yes is None or no is None:
            continue
        flag = "".join(src.text(unwrap(cond)).split())
        if unwrap(cond).type not in ("member_expression", "identifier"):
            continue
        listed = _system_then(src, unwrap(yes))
        if listed is None or _plain(src, unwrap(no)) != listed:
            continue
        if cleared is None:
            cleared = _cleared_flags(src)
        if flag in cleared:
            out.append(src.finding(n, "PL303", _WHY.format(flag=flag)))
    return out


def _is_system(src: Source, node: Node) -> bool:
    """`{ role: "system", ... }`, or a value named for the system message."""
    node = unwrap(node)
    if node.type == "object":
        for p in node.named_children:
            if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "role":
                value = p.child_by_field_name("value")
                return value is not None and string_value(src, unwrap(value)) == "system"
        return False
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return prop is not None and "system" in words(src.text(prop))
    return node.type == "identifier" and "system" in words(src.text(node))


def _system_then(src: Source, arr: Node) -> str | None:
    """`[system, ...messages]`: the list spread after a system message, by its text."""
    items = list(arr.named_children) if arr.type == "array" else []
    if len(items) != 2 or not _is_system(src, items[0]) or items[1].type != "spread_element":
        return None
    return "".join(src.text(unwrap(items[1])).split())


def _plain(src: Source, node: Node) -> str | None:
    """`[...messages]` or `messages`: the list itself, by its text."""
    if node.type == "array":
        items = list(node.named_children)
        if len(items) != 1 or items[0].type != "spread_element":
            return None
        node = unwrap(items[0])
    if node.type not in ("identifier", "member_expression"):
        return None
    return "".join(src.text(node).split())


def _cleared_flags(src: Source) -> set[str]:
    """The flags the file sets to `false` (`this.isFirstRequest = false`)."""
    out: set[str] = set()
    for n in walk(src.root):
        if n.type != "assignment_expression":
            continue
        right = n.child_by_field_name("right")
        left = n.child_by_field_name("left")
        if right is not None and left is not None and src.text(unwrap(right)) == "false":
            out.add("".join(src.text(left).split()))
    return out
