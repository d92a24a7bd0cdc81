"""PL304 for a LangChain.js chat template (`ChatPromptTemplate.fromMessages`) whose system
message has a slot that the call filling the template (`chain.invoke({ context, history,
input })`) fills from what its human message's slots carry: the newest message, or a local made
from it (what a retriever found for it). With a `MessagesPlaceholder` between the two, the
slot's text heads the replayed history and changes on every request. Data flow, not names: a
slot filled from anything else (the caller's settings, a constant) is not reported. Pure: a
syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..prefixflow import made_from, system_message
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    callee_name,
    object_pairs,
    string_value,
    unwrap,
    walk,
)

# `{name}` in a template's text; `{{` is a literal brace.
_SLOT = re.compile(r"(?<!\{)\{(\w+)\}(?!\})")
_HUMAN = frozenset({"human", "user"})
_FILLS = frozenset({"invoke", "stream", "formatMessages", "format", "formatPromptValue"})


def check_template_slots(src: Source) -> list[Finding]:
    templates = _templates(src)
    if not templates:
        return []
    out: list[Finding] = []
    for call in walk(src.root):
        if call.type != "call_expression" or callee_name(src, call) not in _FILLS:
            continue
        slots = _filled(src, call, templates)
        args = arguments(call)
        if slots is None or not args or unwrap(args[0]).type != "object":
            continue
        system_slots, human = slots
        given = object_pairs(src, unwrap(args[0]))
        fn = call.parent
        while fn is not None and fn.type not in FUNCTIONS:
            fn = fn.parent
        if fn is None:
            continue
        seeds = {
            src.text(x)
            for k in human
            if k in given
            for x in walk(given[k])
            if x.type in ("identifier", "shorthand_property_identifier")
        }
        assigned = _assigned(src, fn)
        made = made_from(seeds, assigned, "", lambda v, m: bool(_reads(src, v) & m))
        for k in sorted(system_slots - human):
            value = given.get(k)
            if value is None:
                continue
            read = sorted(_reads(src, value) & made)
            if read:
                out.append(src.finding(value, "PL304", system_message(read[0])))
    return out


def _templates(src: Source) -> dict[str, tuple[set[str], set[str]]]:
    """Template names -> (their system message's slots, their human messages' slots), for
    chat templates with a system message first and a placeholder for the history after it."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for n in walk(src.root):
        if n.type != "variable_declarator":
            continue
        value = n.child_by_field_name("value")
        value = unwrap(value) if value is not None else None
        if value is None or value.type != "call_expression":
            continue
        if callee_name(src, value) != "fromMessages":
            continue
        args = arguments(value)
        items = [unwrap(x) for x in unwrap(args[0]).named_children] if args else []
        parsed = [_message(src, x) for x in items if x.type != "comment"]
        if not parsed or parsed[0] is None or parsed[0][0] != "system":
            continue
        holder = next((i for i, p in enumerate(parsed) if p is not None and p[0] == "history"), 0)
        if not holder:
            continue
        system_slots = set(_SLOT.findall(parsed[0][1]))
        human = {
            s
            for p in parsed[holder:]
            if p is not None and p[0] in _HUMAN
            for s in _SLOT.findall(p[1])
        }
        if system_slots and human:
            out[src.text(n.child_by_field_name("name"))] = (system_slots, human)
    return out


def _message(src: Source, item: Node) -> tuple[str, str] | None:
    """(role, text) of a template's message: `["system", "..."]`, `new MessagesPlaceholder(..)`
    or `["placeholder", "{history}"]` (role `history`), `SystemMessagePromptTemplate
    .fromTemplate("...")` and its human twin."""
    if item.type == "array":
        parts = [unwrap(x) for x in item.named_children]
        role = string_value(src, parts[0]) if parts else None
        text = _text(src, parts[1]) if len(parts) > 1 else None
        if role == "placeholder":
            return "history", ""
        return (role, text) if role is not None and text is not None else None
    if item.type == "new_expression" and callee_name(src, item) == "MessagesPlaceholder":
        return "history", ""
    if item.type == "call_expression" and callee_name(src, item) == "fromTemplate":
        f = item.child_by_field_name("function")
        owner = src.text(f.child_by_field_name("object")) if f is not None else ""
        args = arguments(item)
        text = _text(src, unwrap(args[0])) if args else None
        if text is None:
            return None
        if owner.startswith("System"):
            return "system", text
        if owner.startswith("Human"):
            return "human", text
    return None


def _text(src: Source, node: Node) -> str | None:
    text = string_value(src, node)
    if text is None and node.type == "template_string":
        text = src.text(node)[1:-1]
    return text


def _filled(
    src: Source, call: Node, templates: dict[str, tuple[set[str], set[str]]]
) -> tuple[set[str], set[str]] | None:
    """The template a fill call fills: called on it (`prompt.formatMessages`) or on a name
    bound to a chain made from it (`const chain = prompt.pipe(model)`)."""
    f = call.child_by_field_name("function")
    obj = f.child_by_field_name("object") if f is not None else None
    root = unwrap(obj) if obj is not None else None
    while root is not None and root.type in ("member_expression", "call_expression"):
        root = root.child_by_field_name("object") or root.child_by_field_name("function")
        root = unwrap(root) if root is not None else None
    if root is None:
        return None
    if root.type == "identifier" and src.text(root) in templates:
        return templates[src.text(root)]
    if obj is not None and unwrap(obj).type == "identifier":
        name = src.text(unwrap(obj))
        for d in walk(src.root):
            if d.type == "variable_declarator" and src.text(d.child_by_field_name("name")) == name:
                value = d.child_by_field_name("value")
                for x in walk(value) if value is not None else []:
                    if x.type == "identifier" and src.text(x) in templates:
                        return templates[src.text(x)]
    return None


def _assigned(src: Source, fn: Node) -> dict[str, list[Node]]:
    out: dict[str, list[Node]] = {}
    for n in walk(fn):
        if n.type == "variable_declarator":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None:
                out.setdefault(src.text(name), []).append(value)
        elif n.type == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None:
                out.setdefault(src.text(left), []).append(right)
    return out


def _reads(src: Source, value: Node) -> set[str]:
    return {
        src.text(x)
        for x in walk(value)
        if x.type in ("identifier", "shorthand_property_identifier")
    }
