"""PL303 in TypeScript: the newest messages of the conversation written as text into the system
prompt (Python's `pycheck/windowtext.py`). A function that reads the recent messages to a count
(`getRecentMessages({ conversationId, limit: 10 })`, `history.slice(-8)`), renders them as text
(`recent.map((m) => `${m.role}: ${m.content}`).join("\\n")`) and writes that text into a
system prompt (`systemPrompt += `## Previous conversation\\n${historyText}``) changes the system
prompt itself with every message: once the conversation is longer than the count its start
moves too, and every request misses the cache from the head of the system prompt.

Read in one function: the list is named for the conversation (`messages`, `history`...), it is
read to a count by its newest items (a `limit`/`last`/`take` number past one in a read whose
names say recent, latest, last or newest, or a `.slice(-n)`), or derived from such a list
(`recent.filter(...)`, any name); the text is its `.map(...).join(...)`; the target's name says
`system`.
Text that goes into a user message, the first messages and a whole history are not matched.
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .syntax import FUNCTIONS, Source, arguments, callee_name, function_of, key_name, unwrap, walk

_NEWEST = frozenset({"recent", "latest", "last", "newest"})
# Calls that keep a list's items as they are (`recent.filter(...)`): their result is the window.
_KEEPS = frozenset({"filter", "slice", "reverse", "toReversed", "concat"})
_COUNT_KEYS = frozenset({"limit", "last", "take", "count", "n"})
_WHY = (
    "the system prompt changes with every message, and once the conversation is longer than "
    "the count its start moves on too, so every request misses the cache from the head of the "
    "system prompt; send the history as messages after a fixed system prompt, whole, and cut "
    "it in large steps"
)


def _names(src: Source, node: Node) -> set[str]:
    return {
        w
        for n in walk(node)
        if n.type in ("identifier", "property_identifier", "shorthand_property_identifier")
        for w in words(src.text(n))
    }


def _counted(src: Source, init: Node) -> bool:
    """A read of the newest items to a count: `{ limit: 10 }` in a read named for recent items,
    or `.slice(-n)`."""
    for n in walk(init):
        if n.type == "pair":
            key = key_name(src, n.child_by_field_name("key")) or ""
            value = n.child_by_field_name("value")
            v = unwrap(value) if value is not None else None
            if (
                key in _COUNT_KEYS
                and v is not None
                and v.type == "number"
                and src.text(v).isdigit()
                and int(src.text(v)) > 1
            ):
                return True
        elif n.type == "call_expression" and callee_name(src, n) == "slice":
            args = arguments(n)
            if (
                len(args) == 1
                and unwrap(args[0]).type == "unary_expression"
                and src.text(unwrap(args[0])).startswith("-")
            ):
                return True
    return False


def _receiver(src: Source, call: Node) -> Node | None:
    fn = call.child_by_field_name("function")
    if fn is None or unwrap(fn).type != "member_expression":
        return None
    return unwrap(fn).child_by_field_name("object")


def _rendered(src: Source, init: Node, windows: set[str]) -> str | None:
    """`w.map(...).join(...)` of a window `w`: the window's name, else None."""
    init = unwrap(init)
    if init.type != "call_expression" or callee_name(src, init) != "join":
        return None
    inner = _receiver(src, init)
    if inner is None or unwrap(inner).type != "call_expression":
        return None
    inner = unwrap(inner)
    if callee_name(src, inner) != "map":
        return None
    owner = _receiver(src, inner)
    if owner is None or unwrap(owner).type != "identifier":
        return None
    name = src.text(unwrap(owner))
    return name if name in windows else None


def _own(node: Node, fn: Node) -> bool:
    return function_of(node) == fn


def check_window_text_in_system(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        decls: list[tuple[str, Node]] = []
        for d in walk(fn):
            if d.type != "variable_declarator" or not _own(d, fn):
                continue
            named, value = d.child_by_field_name("name"), d.child_by_field_name("value")
            if named is not None and named.type == "identifier" and value is not None:
                decls.append((src.text(named), value))
        windows: set[str] = set()
        for name, init in decls:  # in source order: a derived list follows its source
            ws = set(words(name))
            if ws & HISTORY_WORDS and _counted(src, init) and (ws | _names(src, init)) & _NEWEST:
                windows.add(name)
            elif unwrap(init).type == "call_expression" and callee_name(src, unwrap(init)) in (
                _KEEPS
            ):
                owner = _receiver(src, unwrap(init))
                if owner is not None and src.text(unwrap(owner)) in windows:
                    windows.add(name)  # `recent.filter(...)`: still the window
        if not windows:
            continue
        texts: dict[str, str] = {}
        for name, init in decls:
            if (made := _rendered(src, init, windows)) is not None:
                texts[name] = made
        if not texts:
            continue
        for n in walk(fn):
            if not _own(n, fn):
                continue
            target: Node | None
            if n.type in ("assignment_expression", "augmented_assignment_expression"):
                target, value = n.child_by_field_name("left"), n.child_by_field_name("right")
            elif n.type == "variable_declarator":
                target, value = n.child_by_field_name("name"), n.child_by_field_name("value")
            else:
                continue
            if target is None or value is None or "system" not in words(src.text(target)):
                continue
            used = [
                x
                for x in walk(value)
                if x.type == "identifier" and src.text(x) in texts and _own(x, fn)
            ]
            if used:
                text = src.text(used[0])
                what = (
                    f"the newest messages (`{texts[text]}`, read to a count) are written as "
                    f"text (`{text}`) into the system prompt (`{src.text(target)}`)"
                )
                out.append(src.finding(n, "PL303", f"{what}: {_WHY}"))
    return out
