"""A mode fixed per agent instance is no mode switch (PL302). A tool list or prompt chosen by
`this.mode`, where the class sets `mode` only in its constructor, is the same for every request
the instance makes: one agent, one tool list, for the conversation it holds. The PL302
findings chosen by such a field are dropped. Pure: a tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from .syntax import FUNCTIONS, Source, walk

_CHOSEN_BY = re.compile(r"is chosen by `(?:this\.)?(\w+)`")


def _spans(src: Source, kinds: frozenset[str] | set[str]) -> list[tuple[int, int, Node]]:
    """(first line, last line, node) of every node of `kinds`, in the walk's order: gathered
    once a file, not a walk of the file per finding."""
    return [
        (n.start_point[0] + 1, n.end_point[0] + 1, n) for n in walk(src.root) if n.type in kinds
    ]


def _innermost(spans: list[tuple[int, int, Node]], line: int) -> Node | None:
    best = None
    for a, b, n in spans:
        if a <= line <= b:
            best = n  # walk goes outside in: the last one spanning the line is the innermost
    return best


def _this_field(src: Source, n: Node, name: str) -> bool:
    return (
        n.type == "member_expression"
        and src.text(n.child_by_field_name("object")) == "this"
        and src.text(n.child_by_field_name("property")) == name
    )


def _set_at_construction_only(src: Source, cls: Node, name: str) -> bool:
    """Every write of `this.<name>` in the class is in its constructor (at least one is)."""
    writes = 0
    for n in walk(cls):
        if n.type not in ("assignment_expression", "augmented_assignment_expression"):
            continue
        left = n.child_by_field_name("left")
        if left is None or not _this_field(src, left, name):
            continue
        p = n.parent
        while p is not None and p.type != "method_definition":
            p = p.parent
        if p is None or src.text(p.child_by_field_name("name")) != "constructor":
            return False
        writes += 1
    return writes > 0


def _fixed(src: Source, cls: Node, name: str, known: dict[tuple[int, str], bool]) -> bool:
    """`_set_at_construction_only`, asked once a class and field."""
    key = (cls.id, name)
    if key not in known:
        known[key] = _set_at_construction_only(src, cls, name)
    return known[key]


def drop_instance_modes(src: Source, found: list[Finding]) -> list[Finding]:
    chosen = [_CHOSEN_BY.search(f.message) if f.code == "PL302" else None for f in found]
    if not any(chosen):
        return found
    functions = _spans(src, FUNCTIONS)
    classes = _spans(src, {"class_declaration", "class"})
    fixed: dict[tuple[int, str], bool] = {}  # (class, field) -> set at construction only
    out = []
    for f, m in zip(found, chosen, strict=True):
        if m is not None:
            name = m.group(1)
            fn = _innermost(functions, f.line)
            cls = _innermost(classes, f.line)
            stmt = _statement_at(src, fn, f.line) if fn is not None else None
            if (
                cls is not None
                and stmt is not None
                and any(_this_field(src, x, name) for x in walk(stmt))
                and _fixed(src, cls, name, fixed)
            ):
                continue
        out.append(f)
    return out


def _statement_at(src: Source, fn: Node, line: int) -> Node | None:
    """The statement of `fn` that starts on `line`: where the finding's value is written."""
    for n in walk(fn):
        if n.type.endswith(("statement", "declaration")) and n.start_point[0] + 1 == line:
            return n
    return None
