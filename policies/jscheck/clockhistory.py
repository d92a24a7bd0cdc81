"""PL101/PL102 in TypeScript/JavaScript: every earlier message of the history rewritten with a
clock reading on each request. A loop over the history by index that writes into a message's
text a value made from the clock (`history[i].content = content.replace(stamp,
timeElapsedString(stamp))`, "3 minutes ago" from `Date.now()`) changes the bytes of messages an
earlier request already sent, as the clock moves: the prefix breaks at the first message and
the whole history is sent again uncached. Pure: a syntax tree and its values in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from .structure import is_history
from .syntax import Source, walk
from .values import CODE_OF, Evaluator

_TEXT_PARTS = frozenset({"content", "text"})
# A clock reading, or a figure of the moment (`timeElapsed`, read as runtime by its name).
_CLOCK = ("time", "date", "runtime")


def _indexed_history(src: Source, loop: Node) -> str | None:
    """`for (let i = 0; i < history.length; i++)`: the history's text, when the loop walks it."""
    cond = loop.child_by_field_name("condition")
    for n in walk(cond) if cond is not None else []:
        if n.type == "member_expression" and src.text(n.child_by_field_name("property")) == (
            "length"
        ):
            obj = n.child_by_field_name("object")
            if obj is not None and is_history(src, obj):
                return src.text(obj)
    return None


def check_clock_in_history(src: Source, ev: Evaluator) -> list[Finding]:
    out: list[Finding] = []
    for loop in walk(src.root):
        if loop.type != "for_statement":
            continue
        history = _indexed_history(src, loop)
        body = loop.child_by_field_name("body")
        if history is None or body is None:
            continue
        for n in walk(body):
            if n.type != "assignment_expression":
                continue
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            if left is None or right is None or left.type != "member_expression":
                continue
            item = left.child_by_field_name("object")
            if src.text(left.child_by_field_name("property")) not in _TEXT_PARTS:
                continue
            if item is None or item.type != "subscript_expression":
                continue
            if src.text(item.child_by_field_name("object")) != history:
                continue
            clock = sorted((t for t in ev.taints(right) if t.kind in _CLOCK), key=lambda t: t.line)
            if not clock:
                continue
            t = clock[0]
            out.append(
                src.finding(
                    n,
                    CODE_OF[t.kind],
                    f"every earlier message of `{history}` is rewritten with a {t.kind} value "
                    f"({t.what}, line {t.line}) on each request: the bytes of messages already "
                    "sent change from one request to the next, so the prefix breaks at the first "
                    "of them "
                    "and the whole history is sent again uncached; keep each message's text as "
                    "it was first sent (an absolute time, or none)",
                )
            )
            break
    return out
