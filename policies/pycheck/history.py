"""PL303: history rewritten in place. A loop over the conversation (`history`, `messages`...)
that overwrites an earlier message's content only for some messages, chosen by their position
(`idx`, `i < keep_last`) or by what later messages hold (a set filled in the same loop): as the
window slides, a message that was sent as written is sent rewritten, and every request from then
on misses the cache from that message to the end.

A rewrite applied to every message alike (a format conversion that depends only on the message
itself) gives the same bytes every time and is not flagged. Pure: a syntax tree in, findings out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..meaning import words
from .context import Context

_HISTORY_WORDS = frozenset({"history", "messages", "conversation", "transcript", "turns",
                            "msgs", "chat"})
_CONTENT_KEYS = frozenset({"content", "text"})
_COPIES = frozenset({"copy", "deepcopy", "dict"})
_MUTATORS = frozenset({"add", "append", "update", "extend", "insert", "discard", "remove"})


def _history_iter(node: ast.expr) -> tuple[ast.expr, bool]:
    """The collection a `for` iterates (through enumerate/reversed/list/slices), and whether
    it is enumerated."""
    enumerated = False
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and (
                node.func.id in ("enumerate", "reversed", "list", "tuple", "zip")):
            enumerated = enumerated or node.func.id == "enumerate"
            node = node.args[0]
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return node, enumerated


def _name_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _root(node: ast.expr) -> str | None:
    """The name a subscript/attribute chain starts from (`data["content"][0]` -> data)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_copy_of(value: ast.expr, aliases: set[str]) -> bool:
    """`entry.copy()`, `dict(entry)`, `copy.deepcopy(entry)`, or `entry` itself."""
    if isinstance(value, ast.Name):
        return value.id in aliases
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in _COPIES:
        if not value.args:
            return _root(func.value) in aliases
        return any(_root(a) in aliases for a in value.args[:1])
    if isinstance(func, ast.Name) and func.id in _COPIES:
        return any(_root(a) in aliases for a in value.args[:1])
    return False


def _content_write(stmt: ast.stmt, aliases: set[str]) -> ast.expr | None:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    for t in targets:
        if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and (
                t.slice.value in _CONTENT_KEYS) and _root(t.value) in aliases:
            return t
        if isinstance(t, ast.Attribute) and t.attr in _CONTENT_KEYS and _root(t.value) in aliases:
            return t
    return None


class _Loop:
    """One loop over a history: its item aliases, its index, the names it accumulates."""

    def __init__(self, loop: ast.For | ast.AsyncFor, enumerated: bool) -> None:
        target = loop.target
        self.index: set[str] = set()
        item: ast.expr = target
        if enumerated and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self.index = _names(target.elts[0])
            item = target.elts[1]
        self.aliases = _names(item)
        self.accumulated: set[str] = set()
        for sub in ast.walk(loop):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr in _MUTATORS and isinstance(sub.func.value, ast.Name)):
                self.accumulated.add(sub.func.value.id)

    def writes(self, body: list[ast.stmt], conditions: list[ast.expr]) -> Iterator[
            tuple[ast.expr, list[ast.expr]]]:
        """Content writes to the loop's message (or a copy of it, or a part of it), with the
        `if` tests that decide whether each runs."""
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name) and _is_copy_of(stmt.value, self.aliases):
                self.aliases.add(stmt.targets[0].id)
                continue
            target = _content_write(stmt, self.aliases)
            if target is not None:
                yield target, conditions
            if isinstance(stmt, ast.If):
                yield from self.writes(stmt.body, [*conditions, stmt.test])
                yield from self.writes(stmt.orelse, [*conditions, stmt.test])
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                if _root(stmt.iter) in self.aliases:
                    self.aliases |= _names(stmt.target)  # the parts of the message
                yield from self.writes(stmt.body, conditions)
            elif isinstance(stmt, (ast.With, ast.AsyncWith, ast.While, ast.Try)):
                yield from self.writes(stmt.body, conditions)

    def selective(self, conditions: list[ast.expr]) -> bool:
        """Whether a test picks messages by position or by what other messages hold."""
        chooser = self.index | (self.accumulated - self.aliases)
        return any(_names(c) & chooser for c in conditions) or any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
            for c in conditions for n in ast.walk(c))


def check_history(tree: ast.Module, ctx: Context) -> None:
    for node in ast.walk(tree):
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        coll, enumerated = _history_iter(node.iter)
        name = _name_of(coll)
        if name is None or not set(words(name)) & _HISTORY_WORDS:
            continue
        loop = _Loop(node, enumerated)
        for target, conditions in loop.writes(node.body, []):
            if loop.selective(conditions):
                ctx.flag(target, "PL303",
                         f"an earlier message of `{name}` is rewritten in place, chosen by "
                         "its position or by later messages: once rewritten, every request "
                         "misses the cache from that message on")
                break
