"""PL304 in TypeScript/JavaScript: what was retrieved for this request sent as a turn of its own
ahead of the replayed conversation, in the list of messages itself:

    contents: [
      ...(context ? [{ role: "user", parts: [{ text: `Context:\n${context}` }] },
                     { role: "model", parts: [{ text: "Understood." }] }] : []),
      ...formattedMessages,
      { role: "user", parts: [{ text: question }] },
    ]

The retrieved turn differs on every question and sits before the history, so the history behind
it is sent again uncached each time. Read by position in one array literal: a user or assistant
message (directly, or in a list spread into the array) that carries a retrieved value
(`context`, `documents`, `passages`, ...), placed before a spread of the history. A system message
is left to the rules that follow values into the system prompt. Pure: a parsed file in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from .structure import _retrieved, _typed_messages, is_history
from .syntax import Source, key_name, string_value, unwrap, walk

_WHY = (
    "`{name}` (retrieved for this request) is sent as a turn ahead of the replayed "
    "conversation: it changes with every question, so the history behind it is sent again "
    "uncached each time; put it in the newest user message, after the history"
)
_WORDS = re.compile(rb"(?i)context|results|memories|documents|chunks|passages")
# Keys a request's list of messages is handed under (OpenAI, Gemini, Anthropic, Responses).
_SENT_KEYS = frozenset({"messages", "contents", "input", "history"})


def check_turn_ahead_of_history(src: Source) -> list[Finding]:
    out: list[Finding] = []
    # Cheap byte tests first: a spread, a role and a retrieved word in the file.
    if b"..." not in src.data or b"role" not in src.data or not _WORDS.search(src.data):
        return out
    for arr in walk(src.root):
        if arr.type != "array" or not _sent(src, arr):
            continue
        items = list(arr.named_children)
        at = next((i for i, x in enumerate(items) if _history_spread(src, x)), None)
        if at is None or at == 0:
            continue
        for item in items[:at]:
            for turn in _turns(src, item):
                found = _retrieved_in(src, turn)
                if found is not None:
                    out.append(src.finding(found, "PL304", _WHY.format(name=src.text(found))))
                    break
    return out


def _sent(src: Source, arr: Node) -> bool:
    """The array is a request's messages: the value of `messages:`/`contents:`."""
    p = arr.parent
    return (
        p is not None
        and p.type == "pair"
        and key_name(src, p.child_by_field_name("key")) in (_SENT_KEYS)
    )


def _history_spread(src: Source, node: Node) -> bool:
    if node.type != "spread_element" or not node.named_children:
        return False
    inner = unwrap(node.named_children[0])
    return is_history(src, inner) or _typed_messages(src, inner)


def _role(src: Source, obj: Node) -> str | None:
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "role":
            value = p.child_by_field_name("value")
            # unwrapped: `"user" as const`
            return string_value(src, unwrap(value)) if value is not None else None
    return None


def _turns(src: Source, item: Node) -> list[Node]:
    """The user or assistant messages an item before the history puts in the list: itself, or
    the objects of a list spread there (`...(ctx ? [turn, reply] : [])`)."""
    spread = item.type == "spread_element"
    item = unwrap(item)
    if item.type == "object":
        objs = [item]
    elif spread:
        objs = [x for x in walk(item) if x.type == "object"]
    else:
        return []
    return [o for o in objs if _role(src, o) in ("user", "assistant", "model")]


def _retrieved_in(src: Source, turn: Node) -> Node | None:
    for x in walk(turn):
        if x.type == "template_substitution" and x.named_children:
            inner = unwrap(x.named_children[0])
            if inner.type == "identifier" and _retrieved(src, inner):
                return inner
        elif x.type == "pair" and key_name(src, x.child_by_field_name("key")) in (
            "content",
            "text",
        ):
            value = x.child_by_field_name("value")
            held = unwrap(value) if value is not None else None
            if held is not None and held.type == "identifier" and _retrieved(src, held):
                return held
    return None
