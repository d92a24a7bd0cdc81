"""PL304 in TypeScript/JavaScript: a system prompt written anew for each item of a loop that
calls the model (`for (const c of conflicts) { const systemPrompt = `... ${c.file}`; await
ask(prompt, systemPrompt) }`), as the Python front end reads it (`pycheck/peritem.py`): every
call sends a system prompt of its own, so none reads another's cache past the first
difference. A loop over agents, personas or models is not one. Pure: a syntax tree in, findings
out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import names_party, names_prompt_start
from .syntax import FUNCTIONS, Source, arguments, callee_name, unwrap, walk

_NOT_SENT = frozenset(
    {"push", "unshift", "set", "add", "log", "debug", "info", "warn", "error", "write"}
    | {"join", "String", "countTokens", "concat"}
)


def _idents(src: Source, node: Node | None) -> set[str]:
    if node is None:
        return set()
    return {
        src.text(n)
        for n in walk(node)
        if n.type in ("identifier", "shorthand_property_identifier_pattern")
    }


def _own(node: Node, loop: Node) -> bool:
    """Whether `node` is in `loop`'s body and not in a function defined there."""
    p = node.parent
    while p is not None and p.id != loop.id:
        if p.type in FUNCTIONS:
            return False
        p = p.parent
    return p is not None


def check_per_item(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for loop in walk(src.root):
        if loop.type != "for_in_statement":
            continue
        items = _idents(src, loop.child_by_field_name("left"))
        over = _idents(src, loop.child_by_field_name("right"))
        if not items or any(names_party(x) for x in items | over):
            continue
        body = loop.child_by_field_name("body")
        if body is None:
            continue
        for decl in walk(body):
            if decl.type != "variable_declarator" or not _own(decl, loop):
                continue
            name_node = decl.child_by_field_name("name")
            value = decl.child_by_field_name("value")
            if name_node is None or value is None or name_node.type != "identifier":
                continue
            name = src.text(name_node)
            value = unwrap(value)
            if not names_prompt_start(name) or value.type != "template_string":
                continue
            hole = next(
                (
                    c
                    for c in value.named_children
                    if c.type == "template_substitution" and _idents(src, c) & items
                ),
                None,
            )
            if hole is None or not _sent_in_loop(src, body, loop, name):
                continue
            item = sorted(_idents(src, hole) & items)[0]
            inner = hole.named_children[0] if hole.named_children else hole
            out.append(
                src.finding(
                    hole,
                    "PL304",
                    f"`{src.text(inner)}` (the loop's current item `{item}`) is written into "
                    f"`{name}` (line {src.pos(decl)[0]}), the system prompt of a call the loop "
                    "makes for each item: every call has a system prompt of its own and none "
                    "reads another's cache past the first difference; keep one system prompt "
                    "and put the item in the user message",
                )
            )
    return out


def _sent_in_loop(src: Source, body: Node, loop: Node, name: str) -> bool:
    """Whether a call in the loop is handed `name`, as an argument or an option's value
    (`ask(prompt, systemPrompt)`, `generateText({ system: systemPrompt })`)."""
    for call in walk(body):
        if call.type != "call_expression" or not _own(call, loop):
            continue
        if callee_name(src, call) in _NOT_SENT:
            continue
        for a in arguments(call):
            a = unwrap(a)
            if a.type == "identifier" and src.text(a) == name:
                return True
            if a.type == "object":
                for p in a.named_children:
                    v = p.child_by_field_name("value") if p.type == "pair" else p
                    if v is not None and src.text(unwrap(v)) == name:
                        return True
    return False
