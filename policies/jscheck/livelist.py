"""PL304 in TypeScript/JavaScript: the user's live list (todos, tasks, events, a schedule) written
into a system prompt that heads the conversation. A system-prompt builder handed the list
(`generateTodoSystemPrompt(todos)`), its text pushed as a system message into a list that the
module later puts ahead of the history (`[...systemMessages, ...messages]`): the list is read
again for each request, so every edit to it between turns changes the prefix and the whole
history after it is sent uncached. Pure: a tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .structure import is_history
from .syntax import (
    Source,
    arguments,
    callee_name,
    function_of,
    key_name,
    string_value,
    unwrap,
    walk,
)

# The last word of a name for what the user keeps changing between turns.
_LIVE = frozenset(
    {"todos", "tasks", "events", "schedule", "calendar", "agenda", "reminders", "appointments"}
)


def _system_builder(name: str) -> bool:
    ws = set(words(name))
    return "system" in ws and bool(ws & {"prompt", "message", "instructions"})


def _live_arg(src: Source, call: Node) -> Node | None:
    for a in arguments(call):
        a = unwrap(a)
        if a.type in ("identifier", "member_expression"):
            name = src.text(a.child_by_field_name("property") if a.type != "identifier" else a)
            ws = words(name)
            if ws and ws[-1] in _LIVE:
                return a
    return None


def _system_lists(src: Source, fn: Node) -> set[str]:
    """The lists in `fn` that a `{ role: "system", ... }` message is pushed into."""
    out: set[str] = set()
    for n in walk(fn):
        if n.type != "call_expression" or callee_name(src, n) not in ("push", "unshift"):
            continue
        if not any(_is_system_message(src, unwrap(a)) for a in arguments(n)):
            continue
        f = n.child_by_field_name("function")
        obj = f.child_by_field_name("object") if f is not None else None
        if obj is not None and obj.type == "identifier":
            out.add(src.text(obj))
    return out


def _is_system_message(src: Source, obj: Node) -> bool:
    if obj.type != "object":
        return False
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "role":
            return string_value(src, p.child_by_field_name("value")) == "system"
    return False


def _ahead_of_history(src: Source, names: set[str]) -> bool:
    """An array in the module spreading one of `names` and then a history:
    `[...systemMessages, ...messages]`."""
    for n in walk(src.root):
        if n.type != "array":
            continue
        spread = [c.named_children[0] for c in n.named_children if c.type == "spread_element"]
        for i, s in enumerate(spread):
            if (
                s.type == "identifier"
                and src.text(s) in names
                and any(is_history(src, later) for later in spread[i + 1 :])
            ):
                return True
    return False


def check_live_list_in_system(src: Source) -> list[Finding]:
    out: list[Finding] = []
    low = src.data.lower()
    if b"system" not in low or not any(w[:-1].encode() in low for w in _LIVE):
        return out  # no system prompt or no live list named in the file: skip the walk
    for n in walk(src.root):
        if n.type != "call_expression" or not _system_builder(callee_name(src, n)):
            continue
        live = _live_arg(src, n)
        fn = function_of(n)
        if live is None or fn is None:
            continue
        if not _ahead_of_history(src, _system_lists(src, fn)):
            continue
        out.append(
            src.finding(
                n,
                "PL304",
                f"`{callee_name(src, n)}` writes `{src.text(live)}`, the user's live list read "
                "for this request, into a system message ahead of the conversation history: "
                "each edit to it between turns changes the prefix and the whole history is "
                "sent again uncached; put the list in the newest user message",
            )
        )
    return out
