"""PL303 in TypeScript: text inserted into the history at a place counted from its end
(`messages.splice(messages.length - depth, 0, note)`, an author's note or a lorebook entry
`depth` messages back). Each turn the conversation grows by a message or two, so the insertion
stands at a new place: the message sequence the previous request sent is not the one this
request sends from that point on, and the rest of the history is read uncached. Inserting at
the end (`length - 0`) or before the newest message alone (`length - 1`) is left out: that is
the newest turn's place, where per-request text belongs. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from .structure import is_history
from .syntax import Source, arguments, callee_name, declared_value, unwrap, walk

_WHY = (
    "the text is inserted a fixed number of messages back from the end, so as the conversation "
    "grows it stands at a new place every turn and the messages the last request sent change "
    "from there; put per-request text in the newest message, or keep it where it was inserted"
)


def _from_end(src: Source, index: Node, listed: str) -> bool:
    """`messages.length - depth` (also inside `Math.max(1, ...)`, or bound to a local first),
    with an offset that is not the end's own place (0) or the newest message's (1)."""
    node = unwrap(index)
    if node.type == "identifier":
        value = declared_value(src, node)
        if value is None:
            return False
        node = unwrap(value)
    for x in walk(node):
        if x.type != "binary_expression" or src.text(x.child_by_field_name("operator")) != "-":
            continue
        left, right = x.child_by_field_name("left"), x.child_by_field_name("right")
        if left is None or right is None:
            continue
        if "".join(src.text(unwrap(left)).split()) != listed + ".length":
            continue
        offset = src.text(unwrap(right))
        return offset not in ("0", "1")
    return False


def check_depth_insert(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "call_expression" or callee_name(src, n) != "splice":
            continue
        args = arguments(n)
        if len(args) < 3 or src.text(unwrap(args[1])) != "0":
            continue  # an insertion removes nothing
        fn = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
        obj = fn.child_by_field_name("object") if fn.type == "member_expression" else None
        if obj is None or not is_history(src, obj):
            continue
        if _from_end(src, args[0], "".join(src.text(unwrap(obj)).split())):
            at = fn.child_by_field_name("property") or n
            text = " ".join(src.text(n).split())[:50]
            out.append(src.finding(at, "PL303", f"`{text}` inserts text into the history: {_WHY}"))
    return out
