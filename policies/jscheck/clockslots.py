"""PL101/PL102 in a system template's own file: a clock slot (`Current time: {{time}}`) of an
exported system-prompt template that an importing file fills with a clock read
(`fillTemplateWith(DEFAULT_SYSTEM_TEMPLATE, { time: new Date().toLocaleString() })`, or any
`time: new Date()...` key of the values the importer hands its renderer). The template's own
module shows no filling (`slots.filled_here` says so, and stays quiet there); the importer's
fill is what puts today's time into the system prompt on each render, so the finding is placed
on the slot's line, naming the importer. Only a template named for the system prompt
(`DEFAULT_SYSTEM_TEMPLATE`, `SYSTEM_PROMPT`) and a key named exactly as the slot whose value
reads the clock (`new Date()`, `Date.now()`) count: a settings form's default that no file
fills, or a slot filled with a fixed value, is no clock. Pure: the importing files come
through the importers' search the engine passes.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import VOLATILE_CODES, kind_of_name, words
from .placedelsewhere import _MAX_IMPORTERS, _line_text, _shown
from .reach import Importers
from .sinks import _SLOT_IN_TEXT
from .slots import filled_here
from .syntax import Source, parse, walk

_SYSTEM = frozenset({"system", "instructions", "preamble"})
_TEXT = frozenset({"template", "prompt", "instructions", "preamble", "message"})


def _exported_templates(src: Source) -> list[tuple[str, Node]]:
    """`export const NAME = "...{{time}}..."` named for the system prompt."""
    out: list[tuple[str, Node]] = []
    for stmt in src.root.named_children:
        if stmt.type != "export_statement":
            continue
        for decl in walk(stmt):
            if decl.type != "variable_declarator":
                continue
            name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
            if name is None or value is None or value.type not in ("string", "template_string"):
                continue
            ws = set(words(src.text(name)))
            if ws & _SYSTEM and ws & _TEXT:
                out.append((src.text(name), value))
    return out


def _reads_clock(src: Source, value: Node) -> bool:
    for n in walk(value):
        if n.type == "new_expression":
            ctor = n.child_by_field_name("constructor")
            args = n.child_by_field_name("arguments")
            if (
                ctor is not None
                and src.text(ctor) == "Date"
                and (args is None or not args.named_children)
            ):
                return True
        elif (
            n.type == "call_expression"
            and src.text(n.child_by_field_name("function")) == "Date.now"
        ):
            return True
    return False


def _fill(other: Source, slot: str) -> int | None:
    """The line where `other` hands a renderer `slot: <clock read>`."""
    want = slot.lower()
    for n in walk(other.root):
        if n.type != "pair":
            continue
        key, value = n.child_by_field_name("key"), n.child_by_field_name("value")
        if key is None or value is None:
            continue
        if other.text(key).strip("'\"").lower() == want and _reads_clock(other, value):
            return other.pos(n)[0]
    return None


def check_clock_slots_elsewhere(src: Source, importers: Importers | None) -> list[Finding]:
    if importers is None:
        return []
    out: list[Finding] = []
    for name, value in _exported_templates(src):
        text = src.text(value)
        slots = [
            (m, kind)
            for m in _SLOT_IN_TEXT.finditer(text)
            if (kind := kind_of_name(m.group(1))) in ("time", "date")
            and not filled_here(src, value, m.group(1))
        ]
        if not slots:
            continue
        found = importers(src.path, name)
        if len(found) > _MAX_IMPORTERS:
            continue
        for m, kind in slots:
            for other, local in found:
                if not local:
                    continue
                parsed = parse(other.path, other.data.decode("utf-8", "replace"))
                at = _fill(parsed, m.group(1))
                if at is None:
                    continue
                line = src.pos(value)[0] + text[: m.start()].count("\n")
                out.append(
                    Finding(
                        src.path,
                        line,
                        0,
                        VOLATILE_CODES[kind],
                        f"the slot {m.group(0)} of `{name}`, a system prompt template, is filled "
                        f"with the clock (`{m.group(1)}: new Date()...`, line {at} of "
                        f"{_shown(other.path, src.path)}) each time it is rendered: the system "
                        "prompt changes with the time and the whole history after it is sent "
                        "again uncached; put the time in the newest user message",
                        source_line=_line_text(src, line),
                    )
                )
                break
    return out
