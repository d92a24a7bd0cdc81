"""PL304 in TypeScript/JavaScript: state that the reply itself moves, written ahead of the
history. A function handed the conversation and a figure of the exchange (`affectionLevel`)
whose reply returns a change of that same figure (`affectionDelta` in its result) writes the
figure, or a local worked out from it, into its system prompt: the caller applies the change
after each turn, so the text before the history differs from one request to the next and the
whole history is sent again uncached. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .sinks import prefix_name
from .syntax import FUNCTIONS, Source, key_name, scope_of, walk

# The last word of a result's field that is a change to apply (`affectionDelta`, `moodChange`).
_CHANGE = re.compile(r"\b([a-z][A-Za-z0-9]*?)_?(?:Delta|Change|delta|change)\b")


def _changed_stems(src: Source, fn: Node) -> set[tuple[str, ...]]:
    """The words of each figure the function's result carries a change of: from its declared
    return type, and from the keys of the objects it returns."""
    texts: list[str] = []
    ret = fn.child_by_field_name("return_type")
    if ret is not None:
        texts.append(src.text(ret))
    for n in walk(fn):
        if n.type == "return_statement" and scope_of(n).id == fn.id:
            for p in walk(n):
                if p.type == "pair":
                    texts.append(key_name(src, p.child_by_field_name("key")) or "")
                elif p.type == "shorthand_property_identifier":
                    texts.append(src.text(p))
    return {tuple(words(m.group(1))) for t in texts for m in _CHANGE.finditer(t) if m.group(1)}


def _params(src: Source, fn: Node) -> list[str]:
    params = fn.child_by_field_name("parameters")
    out: list[str] = []
    for p in params.named_children if params is not None else []:
        pat = p.child_by_field_name("pattern") or p
        if pat.type == "identifier":
            out.append(src.text(pat))
    return out


def _derived(src: Source, fn: Node, names: set[str]) -> set[str]:
    """`names` and the locals of `fn` bound to an expression that reads one of them
    (`const stage = level < 40 ? "low" : "high"`)."""
    out = set(names)
    for d in walk(fn):
        if d.type != "variable_declarator" or scope_of(d).id != fn.id:
            continue
        name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
        if name is None or value is None or name.type != "identifier":
            continue
        if any(n.type == "identifier" and src.text(n) in names for n in walk(value)):
            out.add(src.text(name))
    return out


def check_moved_state(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        params = _params(src, fn)
        if not any(set(words(p)) & HISTORY_WORDS for p in params):
            continue
        stems = _changed_stems(src, fn)
        if not stems:
            continue
        figures = {
            p
            for p in params
            for s in stems
            if set(s) <= set(words(p))
            and not _CHANGE.search(p)
            and not set(words(p)) & HISTORY_WORDS
        }
        if not figures:
            continue
        moved = _derived(src, fn, figures)
        hit = _first_in_system(src, fn, moved)
        if hit is None:
            continue
        sub, sink, figure = hit
        out.append(
            src.finding(
                sub,
                "PL304",
                f"`{figure}` is written into `{sink}` ahead of the conversation history, and "
                "this request's reply returns a change to it: the text before the history "
                "differs once the change is applied, and the whole history is sent again "
                "uncached; state it in the newest user message instead",
            )
        )
    return out


def _first_in_system(src: Source, fn: Node, moved: set[str]) -> tuple[Node, str, str] | None:
    """The first `${...}` of a system prompt of `fn` (a local named for one) reading a name of
    `moved`, with the prompt's name and that name."""
    for d in walk(fn):
        if d.type != "variable_declarator" or scope_of(d).id != fn.id:
            continue
        name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
        if name is None or value is None or value.type != "template_string":
            continue
        sink = src.text(name)
        if not prefix_name(sink) or not {"system", "persona"} & set(words(sink)):
            continue
        for sub in value.named_children:
            if sub.type != "template_substitution":
                continue
            for n in walk(sub):
                if n.type == "identifier" and src.text(n) in moved:
                    return sub, sink, src.text(n)
    return None
