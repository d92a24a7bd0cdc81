"""PL302 in TypeScript: the tool list of a request picked by the options sent with it. Where the
request's history is destructured from one object with other fields (`const { messages,
webSearch, selectedTools } = body`), a tool list filled under a condition on one of those
fields (`if (webSearch) tools.search = searchTool`) or made by a call handed one
(`registerMcpTools(servers, selectedTools)`) changes whenever the user toggles it between the
messages of one conversation; the tools come first in the prefix, so every cache level misses.
A field passed on as it is (`tools`, the caller's own list) is not a pick. Pure: a syntax tree
in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .syntax import FUNCTIONS, Source, key_name, scope_of, unwrap, walk

# Fields that name the request's conversation, not an option sent beside it.
_CONVERSATION = frozenset({"messages", "history", "conversation", "chat", "turns"})
# Fields a client sends once for a conversation, or that carry no choice of tools.
_NOT_A_PICK = frozenset({"id", "ids", "session", "user", "model", "system", "prompt", "stream"})
# A tool list sent by the caller and passed on as it is.
_PASSED_ON = frozenset({"tools", "tool", "toolChoice", "tool_choice", "functions"})


def _siblings(src: Source, fn: Node) -> set[str]:
    """The other names bound by the destructuring that binds the conversation."""
    out: set[str] = set()
    for n in walk(fn):
        if n.type != "object_pattern" or scope_of(n).id != fn.id:
            continue
        bound: dict[str, str] = {}  # local name -> field
        for p in n.named_children:
            if p.type == "shorthand_property_identifier_pattern":
                bound[src.text(p)] = src.text(p)
            elif p.type == "pair_pattern":
                key = key_name(src, p.child_by_field_name("key")) or ""
                value = p.child_by_field_name("value")
                if value is not None and unwrap(value).type == "identifier":
                    bound[src.text(unwrap(value))] = key
            elif p.type == "object_assignment_pattern":
                left = p.child_by_field_name("left")
                if left is not None:
                    bound[src.text(left)] = src.text(left)
        if any(set(words(f)) & _CONVERSATION for f in bound.values()):
            out |= {
                local
                for local, f in bound.items()
                if not set(words(f)) & (_CONVERSATION | _NOT_A_PICK) and f not in _PASSED_ON
            }
    return out


def _reads(src: Source, node: Node | None, names: set[str]) -> Node | None:
    if node is None:
        return None
    for n in walk(node):
        if n.type == "identifier" and src.text(n) in names:
            return n
    return None


def _picked_by(src: Source, fn: Node, tools: str, options: set[str]) -> Node | None:
    """The option a tool list local is picked by: read in a call it is made by, or in the
    condition of an `if` that fills it."""
    for n in walk(fn):
        if scope_of(n).id != fn.id:
            continue
        if n.type == "variable_declarator":
            name = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if name is None or value is None:
                continue
            bound = {src.text(x) for x in walk(name) if "identifier" in x.type}
            if tools in bound:
                v = unwrap(value)
                if v.type == "await_expression" and v.named_children:
                    v = unwrap(v.named_children[0])
                if v.type == "call_expression":
                    hit = _reads(src, v.child_by_field_name("arguments"), options)
                    if hit is None:
                        hit = _closure_pick(src, fn, v, options)
                    if hit is not None:
                        return hit
        elif n.type == "if_statement":
            body = n.child_by_field_name("consequence")
            if body is not None and _fills(src, body, tools):
                hit = _reads(src, n.child_by_field_name("condition"), options)
                if hit is not None:
                    return hit
    return None


def _closure_pick(src: Source, fn: Node, call: Node, options: set[str]) -> Node | None:
    """`const buildSystemPrompt = () => { if (webSearch) ... }` called here: a builder of
    this function that branches on an option it closes over."""
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "identifier":
        return None
    for n in walk(fn):
        if n.type != "variable_declarator" or src.text(n.child_by_field_name("name")) != src.text(
            callee
        ):
            continue
        body = n.child_by_field_name("value")
        if body is None or unwrap(body).type not in FUNCTIONS:
            continue
        for c in walk(body):
            if c.type in ("if_statement", "ternary_expression"):
                hit = _reads(src, c.child_by_field_name("condition"), options)
                if hit is not None:
                    return hit
    return None


def _fills(src: Source, body: Node, tools: str) -> bool:
    """`tools[k] = v`, `tools.k = v`, `tools.push(v)` inside `body`."""
    for n in walk(body):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and left.type in ("subscript_expression", "member_expression"):
                obj = left.child_by_field_name("object")
                if obj is not None and src.text(obj) == tools:
                    return True
        elif n.type == "call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type == "member_expression":
                obj = f.child_by_field_name("object")
                prop = src.text(f.child_by_field_name("property"))
                if obj is not None and src.text(obj) == tools and prop in ("push", "set"):
                    return True
    return False


def check_tools_picked_by_request(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        options = _siblings(src, fn)
        if not options:
            continue
        for obj in walk(fn):
            if obj.type != "object" or scope_of(obj).id != fn.id:
                continue
            pairs = {
                key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
                for p in obj.named_children
                if p.type == "pair"
            }
            if "messages" not in pairs:
                continue
            for key, what in (("system", "system prompt"), ("tools", "tool list")):
                part = pairs.get(key)
                if part is None:
                    continue
                for name in sorted({src.text(x) for x in walk(part) if x.type == "identifier"}):
                    hit = _picked_by(src, fn, name, options)
                    if hit is not None:
                        out.append(
                            src.finding(
                                part,
                                "PL302",
                                f"the {what} `{name}` is picked by `{src.text(hit)}`, an option "
                                "sent with each request: toggling it between the messages of "
                                "one conversation changes the start of the prefix, and every "
                                "request after it misses the cache; keep one and state the "
                                "option in the newest user turn",
                            )
                        )
                        break
    return out
