"""PL303 in TypeScript/JavaScript: the older tool calls of the history rewritten to flat text once
newer ones arrive, the newest kept as calls:

    for (const part of msg.content) {
      if (pristineToolCallIds.has(part.toolCallId)) {
        cleanParts.push({ type: "tool-call", toolCallId, toolName, args })
      } else {
        cleanParts.push({ type: "text", text: flatten(part) })
      }
    }

Which calls stay calls is decided by a set of the newest ones (or by their position), so a call
sent as a call on one turn is sent as text on the next: the history is rewritten from that call
on, and every request after it misses the cache from there. Read by shape, in a loop: one branch
of an `if` that tests membership in a collection or a position keeps a tool call or result, the
other branch puts a text part in its place. A choice on a plain flag (a model without tool
support) is the same on every turn of a conversation and is not this shape. Pure: a parsed
file in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from .structure import _in_loop
from .syntax import Source, callee_name, key_name, string_value, unwrap, walk

_WHY = (
    "older tool calls are rewritten to text while the newest are kept as calls (`{cond}`): a "
    "call sent as a call on one turn is sent as text on the next, so every request after it "
    "misses the cache from that call on; keep earlier calls as they were sent, or flatten them "
    "in large steps"
)
_TOOL_TYPES = frozenset(
    {"tool-call", "tool_call", "tool-result", "tool_result", "tool_use", "function_call"}
)
_TOOL_PART = re.compile(rb"tool[-_](call|result|use)|function_call")


def check_flattened_tool_calls(src: Source) -> list[Finding]:
    out: list[Finding] = []
    if not _TOOL_PART.search(src.data):
        return out  # no tool part's type written in the file
    for n in walk(src.root):
        if n.type != "if_statement" or not _in_loop(n):
            continue
        cond = n.child_by_field_name("condition")
        then = n.child_by_field_name("consequence")
        other = n.child_by_field_name("alternative")
        if cond is None or then is None or other is None or not _selects(src, cond):
            continue
        kept, flat = _pushed_types(src, then), _pushed_types(src, other)
        if kept & _TOOL_TYPES and "text" in flat and not flat & _TOOL_TYPES:
            at = _text_push(src, other)
            text = " ".join(src.text(cond).split())
            out.append(src.finding(at or other, "PL303", _WHY.format(cond=text[:50])))
    return out


def _selects(src: Source, cond: Node) -> bool:
    """A test of membership (`kept.has(id)`, `ids.includes(id)`) or of a position (`i >= n`)."""
    for x in walk(cond):
        if x.type == "call_expression" and callee_name(src, x) in ("has", "includes"):
            return True
        if x.type == "binary_expression" and src.text(x.child_by_field_name("operator")) in (
            "<",
            "<=",
            ">",
            ">=",
        ):
            return True
    return False


def _type_of(src: Source, obj: Node) -> str | None:
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "type":
            value = p.child_by_field_name("value")
            return string_value(src, unwrap(value)) if value is not None else None
    return None


def _pushes(src: Source, branch: Node) -> list[Node]:
    """The objects `branch` pushes onto a list (not inside a nested if's own branches: the
    branch as a whole)."""
    out: list[Node] = []
    for c in walk(branch):
        if c.type == "call_expression" and callee_name(src, c) == "push":
            args = c.child_by_field_name("arguments")
            for a in args.named_children if args is not None else []:
                a = unwrap(a)
                if a.type == "object":
                    out.append(a)
    return out


def _pushed_types(src: Source, branch: Node) -> set[str]:
    return {t for o in _pushes(src, branch) if (t := _type_of(src, o)) is not None}


def _text_push(src: Source, branch: Node) -> Node | None:
    for o in _pushes(src, branch):
        if _type_of(src, o) == "text":
            return o
    return None
