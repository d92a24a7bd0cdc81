"""PL302 in TypeScript: a request's tool list switched on or off by a flag the request's own
code works out from what this request carries (`tools: useSearch ? [{ googleSearch: {} }] :
undefined`, where `useSearch` is false once an image is anywhere in `state.messages` and true
for one classified intent). The flag follows the conversation's content or the intent found
for the newest message, so the tool definitions, the first part of the prefix, change from
turn to turn of one conversation. A flag handed in as a setting (`options.enableSearch`) is one
choice for the conversation and is not reported. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .syntax import FUNCTIONS, Source, function_of, object_pairs, unwrap, walk

# Keys of a request that carry the conversation.
_CONVERSATION_KEYS = frozenset({"messages", "contents", "history", "input"})
# Words of what a request carries: the conversation, and the intent a classifier found for
# its newest message. (Not `images` or `url`: `model.supportsImages` is the model's, fixed.)
_PER_REQUEST = frozenset({"messages", "history", "contents", "intent"})
_DEPTH = 3


def _carries_conversation(src: Source, obj: Node) -> bool:
    """`obj` or an object around it within one expression has a conversation key."""
    n: Node | None = obj
    while n is not None and n.type not in FUNCTIONS and n.type != "statement_block":
        if n.type == "object" and object_pairs(src, n).keys() & _CONVERSATION_KEYS:
            return True
        n = n.parent
    return False


def _flag(value: Node) -> Node | None:
    """`flag ? tools : undefined`, `flag && tools`: the identifier that switches the list."""
    v = unwrap(value)
    if v.type == "ternary_expression":
        cond = v.child_by_field_name("condition")
    elif v.type == "binary_expression" and v.child_by_field_name("operator") is not None:
        op = v.child_by_field_name("operator")
        cond = v.child_by_field_name("left") if op is not None and op.type == "&&" else None
    else:
        return None
    if cond is None:
        return None
    cond = unwrap(cond)
    if cond.type == "unary_expression" and cond.named_children:
        cond = unwrap(cond.named_children[0])
    return cond if cond.type == "identifier" else None


def _writes(src: Source, fn: Node) -> dict[str, list[Node]]:
    """Each local of `fn`: what it is bound or assigned to, and the conditions of the `if`s
    that hold an assignment (the flag is what they decide)."""
    out: dict[str, list[Node]] = {}
    for n in walk(fn):
        if n.type == "variable_declarator":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
        elif n.type == "assignment_expression":
            name, value = n.child_by_field_name("left"), n.child_by_field_name("right")
        else:
            continue
        if name is None or value is None or name.type != "identifier":
            continue
        got = out.setdefault(src.text(name), [])
        got.append(value)
        p = n.parent
        while p is not None and p.id != fn.id:
            if p.type == "if_statement" and (c := p.child_by_field_name("condition")) is not None:
                got.append(c)
            p = p.parent
    return out


def _follows_request(src: Source, flag: str, writes: dict[str, list[Node]]) -> bool:
    """Whether what decides `flag` reads the conversation or the newest message's intent,
    through the function's locals up to a few steps."""
    names, frontier = {flag}, [flag]
    for _ in range(_DEPTH):
        nxt: list[str] = []
        for name in frontier:
            for value in writes.get(name, []):
                for x in walk(value):
                    if x.type not in ("identifier", "property_identifier"):
                        continue
                    text = src.text(x)
                    if set(words(text)) & _PER_REQUEST:
                        return True
                    if x.type == "identifier" and text in writes and text not in names:
                        names.add(text)
                        nxt.append(text)
        frontier = nxt
    return False


def check_flag_tools(src: Source) -> list[Finding]:
    out: list[Finding] = []
    cache: dict[int, dict[str, list[Node]]] = {}
    for obj in walk(src.root):
        if obj.type != "object":
            continue
        tools = object_pairs(src, obj).get("tools")
        flag = _flag(tools) if tools is not None else None
        fn = function_of(obj)
        if tools is None or flag is None or fn is None:
            continue
        if not _carries_conversation(src, obj):
            continue
        writes = cache.setdefault(fn.id, _writes(src, fn))
        name = src.text(flag)
        if name not in writes or not _follows_request(src, name, writes):
            continue
        out.append(
            src.finding(
                tools,
                "PL302",
                f"the tool list is switched by `{name}`, worked out from what this request "
                "carries (its messages or their intent): it changes between the turns of one "
                "conversation, the tool definitions come first in the prefix, and every request "
                "after a switch misses the cache; send the same tools every turn and refuse "
                "the unwanted one in its handler",
            )
        )
    return out
