"""Volatile and order findings (PL1xx, PL20x) dropped where a value is read once for a run
that owns its conversation: a function that starts the message list itself (`const messages =
[{ role: "user", content: prompt }]`) and then sends its requests from a loop, with the value
read in that function before the loop (`const frozenBlock = render(tree)` ahead of `for (turn...)`).
Every request of that conversation carries the same bytes, so the prefix stays cached; a value
read inside the loop is still reported. Dropped too: a system prompt built before that loop into a
fresh list the function assigns (`messages = [{ role: "system", content: prompt }, task]`),
and with the values the order of a listing or a set (PL20x), or a value read in another module
(it enters this one where the finding stands).

Likewise a value fixed for the life of the process (`process.cwd()`, `os.hostname()`) written
into the system message of a conversation the process starts itself (`this.messages = [{ role:
"system", ... }]`, or `messages[0] = {...}` replacing it): no request of that conversation can
see another value. Where the list also carries messages from elsewhere (`...restored`), a
conversation saved by an earlier run goes on under this run's value, and that is reported.
Pure: a tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .syntax import FUNCTIONS, Source, function_of, unwrap, walk

_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_CONVERSATION = frozenset({"messages", "history", "conversation", "msgs", "transcript"})
# "... is a date value (new Date(), line 18) that reaches `system` (line 22), ...": the line
# the value is read on and the line of the prompt it reaches.
_VALUE_AND_SINK = re.compile(
    r" (?:value|listing|collection) \(.*?, line (\d+)\) (?:that reaches|into) .*?\(line (\d+)\)"
)
# "... (fs.readdirSync(dir), line 93 of src/x.ts) that reaches `p` (line 180)": read elsewhere.
_AWAY_AND_SINK = re.compile(
    r" (?:value|listing|collection) \(.*?, line \d+ of [^)]*\) "
    r"(?:that reaches|into) .*?\(line (\d+)\)"
)
# Volatile values (PL1xx) and the order of a listing or a set (PL20x): read once, each is the
# same for every request of the run.
_READ_ONCE = ("PL1", "PL20")
# Reads whose value is fixed while the process runs.
_PROCESS_LIFE = re.compile(
    r" value \((process\.cwd|os\.hostname|os\.homedir|os\.platform|os\.userInfo)\(\), line \d+\)"
)


def _span(node: Node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1


def drop_read_once_per_run(src: Source, found: list[Finding]) -> list[Finding]:
    if not any(f.code.startswith(_READ_ONCE) for f in found):
        return found
    # Each function that starts its own conversation: the line it starts it on, and the spans
    # of the loops directly in it.
    starts: dict[int, int] = {}
    loops: dict[int, list[tuple[int, int]]] = {}
    spans: dict[int, tuple[int, int]] = {}
    # Lines of message objects in a list this file starts (True) or one that also takes
    # messages from elsewhere (False).
    started: dict[int, bool] = {}
    # Functions that assign a fresh list to their conversation (`messages = [system, task]`).
    fresh: set[int] = set()
    for n in walk(src.root):
        if n.type == "object" and n.parent is not None:
            p = n.parent
            if p.type == "array":
                started[src.pos(n)[0]] = not any(
                    c.type == "spread_element" for c in p.named_children
                )
            elif p.type == "assignment_expression" and p.child_by_field_name("right") == n:
                left = p.child_by_field_name("left")
                started[src.pos(n)[0]] = left is not None and left.type == "subscript_expression"
        if n.type in _LOOPS:
            fn = function_of(n)
            if fn is not None:
                loops.setdefault(fn.id, []).append(_span(n))
                spans[fn.id] = _span(fn)
        elif n.type == "assignment_expression":
            # `messages = [{ role: "system", ... }, { role: "user", ... }]` after `let messages`:
            # a fresh list (nothing spread in) started here, in one branch or another.
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is None or right is None or left.type != "identifier":
                continue
            if not set(words(src.text(left))) & _CONVERSATION or unwrap(right).type != "array":
                continue
            if any(c.type == "spread_element" for c in unwrap(right).named_children):
                continue
            fn = function_of(n)
            if fn is not None and fn.type in FUNCTIONS:
                line = src.pos(n)[0]
                starts[fn.id] = min(starts.get(fn.id, line), line)
                fresh.add(fn.id)
                spans[fn.id] = _span(fn)
        elif n.type == "variable_declarator":
            name = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if name is None or value is None or name.type != "identifier":
                continue
            if not set(words(src.text(name))) & _CONVERSATION or unwrap(value).type != "array":
                continue
            fn = function_of(n)
            if fn is not None and fn.type in FUNCTIONS:
                line = src.pos(n)[0]
                starts[fn.id] = min(starts.get(fn.id, line), line)
                spans[fn.id] = _span(fn)

    def once(f: Finding) -> bool:
        if not f.code.startswith(_READ_ONCE):
            return False
        m = _VALUE_AND_SINK.search(f.message)
        away = _AWAY_AND_SINK.search(f.message) if m is None else None
        if m is not None:
            value, sink = int(m.group(1)), int(m.group(2))
        elif away is not None:
            # read in another module: it enters this one where the finding stands
            value, sink = f.line, int(away.group(1))
        else:
            return False
        if _PROCESS_LIFE.search(f.message) and started.get(sink, False):
            return True
        for fid, start in starts.items():
            lo, hi = spans[fid]
            if not (lo <= value <= hi and lo <= sink <= hi):
                continue
            for a, b in loops.get(fid, []):
                if start < a and value < a and a <= sink <= b:
                    return True
                if fid in fresh and start < a and value < a and start >= sink >= lo:
                    # the system prompt of the fresh list, built before the loop that sends
                    # every request of the run: the same bytes for each of them
                    return True
        return False

    return [f for f in found if not once(f)]
