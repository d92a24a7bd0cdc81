"""PL101/PL102 in a system template's own file: a clock slot (`Current time: {{time}}`) of an
exported system-prompt template that an importing file fills with a clock read
(`fillTemplateWith(DEFAULT_SYSTEM_TEMPLATE, { time: new Date().toLocaleString() })`, or any
`time: new Date()...` key of the values the importer hands its renderer). The template's own
module shows no filling (`slots.filled_here` says so, and stays quiet there); the importer's
fill is what puts today's time into the system prompt on each render, so the finding is placed
on the slot's line, naming the importer. Only a template named for the system prompt
(`DEFAULT_SYSTEM_TEMPLATE`, `SYSTEM_PROMPT`) and a key named exactly as the slot whose value
reads the clock (`new Date()`, `Date.now()`, or a call of a top-level function of the
importer whose body reads it: `today: formatToday()`) count: a settings form's default that no
file fills, or a slot filled with a fixed value, is no clock. The template is a string or an
array of lines joined into one (`[BASE, 'Today: {today}'].join('\\n')`). Pure: the importing
files come through the importers' search the engine passes.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import VOLATILE_CODES, kind_of_name, words
from .placedelsewhere import _MAX_IMPORTERS, _line_text, _shown
from .reach import Importers
from .sinks import _SLOT_IN_TEXT, _template_parts
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
            if name is None or value is None or not _template_parts(value):
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


def _clock_helpers(src: Source) -> frozenset[str]:
    """Top-level functions of `src` whose body reads the clock (`function formatToday() {
    const now = new Date(); return now.toLocaleDateString(...) }`, or the same as an arrow
    function): a call to one of them is a clock read. One level deep, no recursion."""
    names: set[str] = set()
    for stmt in src.root.named_children:
        node = stmt.child_by_field_name("declaration") if stmt.type == "export_statement" else stmt
        if node is None:
            continue
        if node.type == "function_declaration":
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if name is not None and body is not None and _reads_clock(src, body):
                names.add(src.text(name))
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for decl in node.named_children:
                if decl.type != "variable_declarator":
                    continue
                name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
                if (
                    name is not None
                    and value is not None
                    and value.type in ("arrow_function", "function_expression", "function")
                    and _reads_clock(src, value)
                ):
                    names.add(src.text(name))
    return frozenset(names)


def _calls_helper(src: Source, value: Node, helpers: frozenset[str]) -> bool:
    """`value` is a call of a clock helper (`formatToday()`), possibly chained on."""
    for n in walk(value):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "identifier" and src.text(fn) in helpers:
                return True
    return False


def _fill(other: Source, slot: str) -> tuple[int, str] | None:
    """The line and value where `other` hands a renderer `slot: <clock read>`."""
    want = slot.lower()
    helpers = _clock_helpers(other)
    for n in walk(other.root):
        if n.type != "pair":
            continue
        key, value = n.child_by_field_name("key"), n.child_by_field_name("value")
        if key is None or value is None:
            continue
        if other.text(key).strip("'\"").lower() == want and (
            _reads_clock(other, value) or _calls_helper(other, value, helpers)
        ):
            shown = other.text(value)
            return other.pos(n)[0], shown if len(shown) <= 40 else shown[:37] + "..."
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
                filled = _fill(parsed, m.group(1))
                if filled is None:
                    continue
                at, shown = filled
                line = src.pos(value)[0] + text[: m.start()].count("\n")
                out.append(
                    Finding(
                        src.path,
                        line,
                        0,
                        VOLATILE_CODES[kind],
                        f"the slot {m.group(0)} of `{name}`, a system prompt template, is filled "
                        f"with the clock (`{m.group(1)}: {shown}`, line {at} of "
                        f"{_shown(other.path, src.path)}) each time it is rendered: the system "
                        "prompt changes with the time and the whole history after it is sent "
                        "again uncached; put the time in the newest user message",
                        source_line=_line_text(src, line),
                    )
                )
                break
    return out
