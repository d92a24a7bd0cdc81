"""Whether a prompt constant's `{{slot}}`s can be filled at all: a constant of this module (not
exported) that the module only ever places as it is (`{ role: "system", content: PROMPT }`), never
hands to a call nor calls a method on (`PROMPT.replace("{{date}}", today)`,
`render(PROMPT, vars)`), sends its slots as literal text: a `{{date}}` there documents a template
variable for the model rather than carrying today's date. Pure: a tree in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

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
