"""PL304: where a procedure or workflow stands now written into the system prompt. A system
prompt builder handed the current step (`createSystemPrompt(model, sop, currentStepId)`) writes
that step, and what it derives from it (the step's details, its valid next steps), into the
prompt; the step advances within the conversation, so the prefix changes with it and every
message after it is sent again uncached. The words read and the message given are in
`policies/stepstate.py`. Pure: a tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..stepstate import is_progress, is_prompt_text, is_system_builder, step_state_message
from .syntax import FUNCTIONS, Source, function_name, unwrap, walk


def _progress_params(src: Source, fn: Node) -> set[str]:
    params = fn.child_by_field_name("parameters")
    out = set()
    for x in walk(params) if params is not None else ():
        if (
            x.type == "identifier"
            and x.parent is not None
            and x.parent.type != "type_annotation"
            and is_progress(src.text(x))
        ):
            out.add(src.text(x))
    return out


def _names(src: Source, node: Node | None) -> set[str]:
    return {
        src.text(x)
        for x in (walk(node) if node is not None else ())
        if x.type in ("identifier", "shorthand_property_identifier")
    }


def _derived(src: Source, fn: Node, seed: set[str]) -> set[str]:
    """The locals bound (declared or assigned) from the step, to a fixed point."""
    names = set(seed)
    binds = []
    for x in walk(fn):
        if x.type == "variable_declarator":
            binds.append((x.child_by_field_name("name"), x.child_by_field_name("value")))
        elif x.type == "assignment_expression":
            binds.append((x.child_by_field_name("left"), x.child_by_field_name("right")))
    grew = True
    while grew:
        grew = False
        for left, right in binds:
            if left is None or left.type != "identifier" or src.text(left) in names:
                continue
            if _names(src, right) & names:
                names.add(src.text(left))
                grew = True
    return names


def _prompt_writes(src: Source, fn: Node) -> list[Node]:
    """What the builder writes into its text: `prompt += ...`, a prompt-named local's value and
    what it returns."""
    out = []
    for x in walk(fn):
        if x.type == "variable_declarator" and is_prompt_text(
            src.text(x.child_by_field_name("name"))
        ):
            value = x.child_by_field_name("value")
            if value is not None:
                out.append(value)
        if (
            x.type == "augmented_assignment_expression"
            and src.text(x.child_by_field_name("operator")) == "+="
        ):
            right = x.child_by_field_name("right")
            if right is not None:
                out.append(right)
        elif x.type == "return_statement" and x.named_children:
            out.append(x.named_children[0])
    return out


def check_step_state(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS or not is_system_builder(function_name(src, fn)):
            continue
        seed = _progress_params(src, fn)
        if not seed:
            continue
        names = _derived(src, fn, seed)
        for write in sorted(_prompt_writes(src, fn), key=lambda n: n.start_byte):
            hit = next(
                (
                    x
                    for x in walk(write)
                    if x.type in ("identifier", "shorthand_property_identifier")
                    and src.text(x) in names
                    and unwrap(write).type != "identifier"
                ),
                None,
            )
            if hit is not None:
                out.append(
                    src.finding(
                        hit,
                        "PL304",
                        step_state_message(src.text(hit)),
                    )
                )
                break
    return out
