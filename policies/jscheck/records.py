"""Whether a value is a stored record rather than prompt text: an object literal with an `id`
and a creation or update stamp (`{ id, name, content, createdAt, updatedAt }`), or a local bound
to one. A function named for a system prompt that returns such a record
(`createSystemPrompt(input)` in a settings store) saves the user's configuration; it builds no
request, so what the record holds is no request's prefix. Pure: a tree in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from .syntax import Source, key_name, unwrap, walk

_STAMPS = frozenset({"createdAt", "updatedAt", "created_at", "updated_at"})


def _record_object(src: Source, node: Node) -> bool:
    if node.type != "object":
        return False
    keys = {
        key_name(src, p.child_by_field_name("key"))
        if p.type == "pair"
        else src.text(p)
        if p.type == "shorthand_property_identifier"
        else None
        for p in node.named_children
    }
    return "id" in keys and bool(keys & _STAMPS)


def record_literal(src: Source, node: Node) -> bool:
    """An object literal with an `id` and a creation or update stamp."""
    return _record_object(src, node)


def is_record(src: Source, value: Node, fn: Node) -> bool:
    """`value`, returned from `fn`: a record literal or a local of `fn` bound to one."""
    value = unwrap(value)
    if _record_object(src, value):
        return True
    if value.type != "identifier":
        return False
    name = src.text(value)
    for n in walk(fn):
        if n.type == "variable_declarator" and src.text(n.child_by_field_name("name")) == name:
            bound = n.child_by_field_name("value")
            return bound is not None and _record_object(src, unwrap(bound))
    return False
