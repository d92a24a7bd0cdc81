"""PL303 in TypeScript/JavaScript: a conversation cut out of its middle to fit a budget. A
helper named for it (`middleOutFiltering(items)`), OpenRouter's `transforms: ["middle-out"]`
(the provider drops the middle of a prompt that overflows the context), or a list put back
together from its head and its tail (`items = [...frontMessages, ...endMessages]`) in a function
that measures tokens against a budget: the first message after the kept head changes at every
request once the budget is passed, and the cache misses from there on. Pure: a tree in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import MIDDLE_OUT_TEXT, is_middle_out_name, words
from .syntax import Source, arguments, callee_name, function_of, key_name, string_value, walk

_HEAD = frozenset({"front", "head", "first", "start", "early", "earliest", "oldest"})
_TAIL = frozenset({"end", "tail", "last", "recent", "latest", "newest"})
_BUDGET = frozenset({"token", "tokens", "budget"})
_COMPARE = frozenset({"<", "<=", ">", ">="})


def _spread_name(src: Source, node: Node) -> set[str]:
    if node.type != "spread_element" or not node.named_children:
        return set()
    inner = node.named_children[0]
    return set(words(src.text(inner))) if inner.type == "identifier" else set()


def _measures_budget(src: Source, fn: Node) -> bool:
    """A comparison in `fn` with a token count or budget on one side."""
    for n in walk(fn):
        if n.type != "binary_expression":
            continue
        op = n.child_by_field_name("operator")
        if op is None or src.text(op) not in _COMPARE:
            continue
        if any(
            set(words(src.text(x))) & _BUDGET
            for x in walk(n)
            if x.type in ("identifier", "property_identifier")
        ):
            return True
    return False


def _head_and_tail(src: Source, arr: Node) -> bool:
    items = [c for c in arr.named_children if c.type != "comment"]
    if len(items) != 2:
        return False
    head, tail = _spread_name(src, items[0]), _spread_name(src, items[1])
    if not (head & _HEAD and tail & _TAIL):
        return False
    fn = function_of(arr)
    return fn is not None and _measures_budget(src, fn)


def check_middle_out(src: Source) -> list[Finding]:
    out: list[Finding] = []
    low = src.data.lower()
    if b"middle" not in low and not (b"..." in low and (b"token" in low or b"budget" in low)):
        return out  # none of the three shapes can be in the file: skip the walk
    for n in walk(src.root):
        what = ""
        if n.type == "call_expression" and arguments(n) and is_middle_out_name(callee_name(src, n)):
            what = f"the conversation is cut out of its middle (`{callee_name(src, n)}`)"
        elif n.type == "array" and _head_and_tail(src, n):
            what = f"the conversation is put back together from its head and tail (`{src.text(n)}`)"
        elif (
            n.type == "pair"
            and key_name(src, n.child_by_field_name("key")) == "transforms"
            and any(
                string_value(src, x) == "middle-out"
                for x in walk(n.child_by_field_name("value") or n)
                if x.type == "string"
            )
        ):
            what = "the provider drops the middle of an overflowing prompt (`middle-out`)"
        if what:
            out.append(src.finding(n, "PL303", f"{what}: {MIDDLE_OUT_TEXT}"))
    return out
