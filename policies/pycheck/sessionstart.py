"""A prompt built only where a conversation is constructed is fixed for that conversation. A
function (or method) whose every call in the file lies inside the arguments of a session,
conversation or thread object's construction (`ChatSession(options=ChatSessionOptions(
messages=self.get_preset(p)))`) runs once per conversation: the clock or machine state it reads
is the same on every request the conversation makes, so its volatile findings (PL101-PL106) are
dropped. A function never called in the file is kept as it is (its callers are unknown). Pure: a
syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import VOLATILE_CODES, words
from .syntax import walk_cached

_VOLATILE = frozenset(VOLATILE_CODES.values())
# Words of a class whose instance is one conversation (`ChatSession`, `ConversationState`).
_SESSION = frozenset({"session", "conversation", "thread"})


def drop_session_starts(tree: ast.Module, found: list[Finding], lines: list[str]) -> list[Finding]:
    if not any(f.code in _VOLATILE for f in found) or not any(
        w in line for line in lines for w in ("Session", "Conversation", "Thread")
    ):
        return found  # the common case, without a walk
    spans: dict[str, tuple[int, int]] = {}
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A name defined twice is ambiguous: keep its findings.
            spans[fn.name] = (-1, -1) if fn.name in spans else (fn.lineno, fn.end_lineno or 0)
    calls: dict[str, list[bool]] = {}  # name -> for each call, inside a session construction
    _visit(tree, calls)
    once = [
        spans[name]
        for name, inside in calls.items()
        if name in spans and spans[name][0] > 0 and inside and all(inside)
    ]
    if not once:
        return found
    return [
        f for f in found if not (f.code in _VOLATILE and any(a <= f.line <= b for a, b in once))
    ]


def _visit(tree: ast.AST, calls: dict[str, list[bool]]) -> None:
    """One walk of the file (a stack, not recursion: long expressions nest deep), knowing
    whether each call lies in a session construction's arguments."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name:
                calls.setdefault(name, []).append(inside)
            inside = inside or (name[:1].isupper() and bool(set(words(name)) & _SESSION))
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))
