"""Whether a prompt constant's `{{slot}}`s can be filled at all: a constant of this module (not
exported) that the module only ever places as it is (`{ role: "system", content: PROMPT }`), never
hands to a call nor calls a method on (`PROMPT.replace("{{date}}", today)`,
`render(PROMPT, vars)`), sends its slots as literal text: a `{{date}}` there documents a template
variable for the model rather than carrying today's date. Pure: a tree in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from .syntax import Source, walk


def never_filled(src: Source, value: Node) -> bool:
    decl = value.parent
    if decl is None or decl.type != "variable_declarator":
        return False
    name = decl.child_by_field_name("name")
    if name is None or name.type != "identifier":
        return False
    stmt = decl.parent
    if stmt is None or (stmt.parent is not None and stmt.parent.type == "export_statement"):
        return False
    text = src.text(name)
    uses = [
        n
        for n in walk(src.root)
        if n.type in ("identifier", "shorthand_property_identifier")
        and n.id != name.id
        and src.text(n) == text
    ]
    if not uses or any(n.type == "shorthand_property_identifier" for n in uses):
        return False
    for n in uses:
        p = n.parent
        if p is None or p.type in ("member_expression", "arguments", "template_substitution"):
            return False
        if p.type == "variable_declarator" or p.type == "assignment_expression":
            return False  # bound again under another name: followed no further
        if p.type == "export_specifier":
            return False
    return True


def filled_here(src: Source, value: Node, slot: str) -> bool:
    """Whether this module fills the slot named `slot` of the template `value`: some other text
    of the module names it, a pattern (`PROMPT.replace("{DATE}", today)`, `/\\{\\{date\\}\\}/g`)
    or a key of the values handed to a renderer (`render(T, { date })`, `.format({ date: d })`),
    or the module renders the template itself (`PROMPT.replace(...)` for any of its slots: the
    rest are filled the same way, here or by a renderer it is handed to).
    A template that only carries the slot (a settings form's default, a persona table another
    file renders) shows no filling: what fills it, and with what, is read where that happens."""
    want = slot.lower()
    decl = value.parent
    name = decl.child_by_field_name("name") if decl is not None else None
    held = src.text(name) if decl is not None and decl.type == "variable_declarator" else None
    for n in walk(src.root):
        if n.start_byte >= value.start_byte and n.end_byte <= value.end_byte:
            continue
        if n.type in ("string", "template_string", "regex") and _handed_to_call(n):
            text = src.text(n).replace("\\", "").lower()
            if want in re.findall(r"\w+", text):
                return True
        elif n.type == "call_expression" and held is not None and _replaces(src, n, held):
            return True  # the module renders this template (`PROMPT.replace(/{{ID}}/g, id)`)
        elif n.type in ("property_identifier", "shorthand_property_identifier"):
            p = n.parent
            if p is not None and p.type in ("pair", "object") and src.text(n).lower() == want:
                return True
    return False


def _handed_to_call(n: Node) -> bool:
    """A text or pattern that is an argument of a call (`.replace("{DATE}", d)`)."""
    p = n.parent
    return p is not None and p.type == "arguments"


def _replaces(src: Source, call: Node, held: str) -> bool:
    """`held.replace(...)` or `held.replaceAll(...)`: a template's name the receiver."""
    f = call.child_by_field_name("function")
    if f is None or f.type != "member_expression":
        return False
    obj = f.child_by_field_name("object")
    prop = f.child_by_field_name("property")
    return (
        obj is not None
        and src.text(obj) == held
        and prop is not None
        and src.text(prop) in ("replace", "replaceAll")
    )
