"""Instructions sent only when an OpenAI Responses chain starts. A request that chains on
`previous_response_id` and passes `instructions` only while there is no previous response
(`instructions: prevId ? undefined : build()`, `const instructions = prevId === undefined ?
build() : undefined` then `...(instructions ? { instructions } : {})`) fills them once per
conversation: later turns carry no instructions, so a clock read into them changes no prefix a
later request reads. Volatile findings at that sink, or inside the functions only it calls to
build them, are dropped. Pure: a tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from .syntax import (
    FUNCTIONS,
    Source,
    callee_name,
    declared_value,
    key_name,
    unwrap,
    walk,
)

_CHAIN_ID = re.compile(r"previous_?response_?id|prev\w*Resp\w*Id|previous_?id", re.I)
_NONE = frozenset({"undefined", "null"})


def _guarded(src: Source, value: Node | None, chain: frozenset[str]) -> Node | None:
    """The branch that builds the value of `cond ? x : undefined` (either way round) when `cond`
    asks whether a response chain has started (it names the previous response's id, or what
    the request passes as it: `chain`); None otherwise."""
    if value is None:
        return None
    value = unwrap(value)
    if value.type != "ternary_expression":
        return None
    cond = value.child_by_field_name("condition")
    yes = value.child_by_field_name("consequence")
    no = value.child_by_field_name("alternative")
    if cond is None or yes is None or no is None:
        return None
    names = {src.text(x) for x in walk(cond) if x.type in ("identifier", "property_identifier")}
    if not (_CHAIN_ID.search(src.text(cond)) or names & chain):
        return None
    if src.text(unwrap(no)) in _NONE:
        return yes
    if src.text(unwrap(yes)) in _NONE:
        return no
    return None


def _instructions_built(src: Source, obj: Node) -> tuple[Node, Node] | None:
    """(where the request passes its instructions, what builds them) when they are passed only
    at a chain's start."""
    chain: set[str] = set()
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == (
            "previous_response_id"
        ):
            v = p.child_by_field_name("value")
            if v is not None:
                chain |= {
                    src.text(x) for x in walk(v) if x.type in ("identifier", "property_identifier")
                }
    for p in obj.named_children:
        value: Node | None = None
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "instructions":
            value = p.child_by_field_name("value")
        elif p.type == "shorthand_property_identifier" and src.text(p) == "instructions":
            value = p
        elif p.type == "spread_element" and "instructions" in src.text(p):
            for x in walk(p):
                if x.type == "shorthand_property_identifier" and src.text(x) == "instructions":
                    value = x
                elif x.type == "pair" and key_name(src, x.child_by_field_name("key")) == (
                    "instructions"
                ):
                    value = x.child_by_field_name("value")
        if value is None:
            continue
        built = _guarded(src, value, frozenset(chain))
        if built is None and unwrap(value).type in ("identifier", "shorthand_property_identifier"):
            built = _guarded(src, declared_value(src, unwrap(value)), frozenset(chain))
        return (p, built) if built is not None else None
    return None


def _functions(src: Source) -> tuple[dict[str, Node], dict[str, list[Node]]]:
    """The functions of this file by name (declarations, methods, local arrows) and the calls
    by the name they call: gathered once a file, not a walk of the file per sink."""
    named: dict[str, Node] = {}
    calls: dict[str, list[Node]] = {}
    for n in walk(src.root):
        if n.type in ("method_definition", "function_declaration"):
            named[src.text(n.child_by_field_name("name"))] = n
        elif n.type == "variable_declarator":
            v = n.child_by_field_name("value")
            if v is not None and unwrap(v).type in FUNCTIONS:
                named[src.text(n.child_by_field_name("name"))] = unwrap(v)
        elif n.type == "call_expression":
            calls.setdefault(callee_name(src, n), []).append(n)
    return named, calls


def _builders(
    src: Source, start: Node, named: dict[str, Node], calls: dict[str, list[Node]]
) -> list[Node]:
    """The functions of this file the built value calls, followed through local arrows and
    `this.method()` calls (a few steps)."""
    found: list[tuple[str, Node]] = []  # (the name it is called by, the function)
    todo = [start]
    while todo and len(found) < 12:
        for x in walk(todo.pop()):
            if x.type == "call_expression":
                name = callee_name(src, x)
                fn = named.get(name)
                if fn is not None and all(fn.id != f.id for _, f in found):
                    found.append((name, fn))
                    todo.append(fn)
    # A builder another request also calls (a chat completion sent every turn) stays read:
    # keep only those called from the chain's start alone.
    kept = found
    while True:
        inside = [start, *(f for _, f in kept)]
        ok = [
            (name, f)
            for name, f in kept
            if all(
                _within(c, inside) or _reassigns_instructions(src, c) for c in calls.get(name, ())
            )
        ]
        if len(ok) == len(kept):
            return [f for _, f in kept]
        kept = ok


def _within(node: Node, regions: list[Node]) -> bool:
    return any(r.start_byte <= node.start_byte and node.end_byte <= r.end_byte for r in regions)


def _reassigns_instructions(src: Source, call: Node) -> bool:
    """`instructions = buildInstructions()` where a broken chain is started again."""
    p = call.parent
    return (
        p is not None
        and p.type == "assignment_expression"
        and src.text(p.child_by_field_name("left")) == "instructions"
    )


def drop_chain_start(src: Source, found: list[Finding]) -> list[Finding]:
    if "previous_response_id" not in src.text(src.root):
        return found
    sinks: list[Node] = []
    regions: list[Node] = []
    functions: tuple[dict[str, Node], dict[str, list[Node]]] | None = None
    for obj in walk(src.root):
        if obj.type != "object" or not any(
            key_name(src, p.child_by_field_name("key")) == "previous_response_id"
            or (p.type == "shorthand_property_identifier" and src.text(p) == "previous_response_id")
            for p in obj.named_children
        ):
            continue
        got = _instructions_built(src, obj)
        if got is not None:
            sinks.append(got[0])
            if functions is None:
                functions = _functions(src)
            regions += [got[1], *_builders(src, got[1], *functions)]
    if not sinks:
        return found
    lines = {src.pos(s)[0] for s in sinks}
    spans = [(src.pos(r)[0], r.end_point[0] + 1) for r in regions]

    def once(f: Finding) -> bool:
        if not f.code.startswith("PL1"):
            return False
        return f.line in lines or any(a <= f.line <= b for a, b in spans)

    return [f for f in found if not once(f)]
