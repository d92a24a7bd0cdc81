"""PL303: history rewritten in place. A loop over the conversation (`history`, `messages`...)
that overwrites an earlier message's content only for some messages, chosen by their position
(`idx`, `i < keep_last`) or by what later messages hold (a set filled in the same loop): as the
window slides, a message that was sent as written is sent rewritten, and every request from then
on misses the cache from that message to the end.

A rewrite applied to every message alike (a format conversion that depends only on the message
itself) gives the same bytes every time and is not flagged. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..meaning import words
from .context import Context
from .syntax import assigned, callee, last_name, names_in, walk_cached, walk_no_defs

_HISTORY_WORDS = frozenset(
    {"history", "messages", "conversation", "transcript", "turns", "msgs", "chat"}
)
_CONTENT_KEYS = frozenset({"content", "text"})
# Words of an attribute that holds what a message shows the model (`observations_images`).
_CONTENT_WORDS = frozenset(
    {
        "content",
        "text",
        "observation",
        "observations",
        "image",
        "images",
        "screenshot",
        "screenshots",
    }
)
# Words of an item attribute that give its place in the conversation (`step.step_number`).
_POSITION_WORDS = frozenset({"step", "number", "index", "idx", "turn", "position", "seq"})
_COPIES = frozenset({"copy", "deepcopy", "dict"})
_MUTATORS = frozenset({"add", "append", "update", "extend", "insert", "discard", "remove"})


def _history_iter(node: ast.expr, derived: dict[str, ast.expr]) -> tuple[ast.expr, bool]:
    """The collection a `for` iterates (through enumerate/reversed/list/slices, `cast`, and a
    local list comprehension drawn from it), and whether it is enumerated."""
    enumerated = False
    seen: set[str] = set()
    while True:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.args
            and (node.func.id in ("enumerate", "reversed", "list", "tuple", "zip", "cast"))
        ):
            enumerated = enumerated or node.func.id == "enumerate"
            # cast(T, value) keeps the value; the others take their first argument
            node = node.args[-1] if node.func.id == "cast" else node.args[0]
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)) and node.generators:
            node = node.generators[0].iter  # the parts of each message are the message's
        elif isinstance(node, ast.Name) and node.id in derived and node.id not in seen:
            seen.add(node.id)
            node = derived[node.id]
        else:
            return node, enumerated


def _derived_lists(tree: ast.AST) -> dict[str, ast.expr]:
    """Local names bound once to a comprehension (possibly under `cast`/`list`): a list of
    messages or message parts drawn from another collection."""
    out: dict[str, ast.expr] = {}
    for node in walk_cached(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            value = node.value
            while (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and (value.func.id in ("cast", "list"))
                and value.args
            ):
                value = value.args[-1]
            if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
                out[node.targets[0].id] = value
    return out


def _name_of(node: ast.expr) -> str | None:
    return last_name(node) or None


def _root(node: ast.expr) -> str | None:
    """The name a subscript/attribute chain starts from (`data["content"][0]` -> data)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


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
    for t in assigned(stmt):
        if (
            isinstance(t, ast.Subscript)
            and isinstance(t.slice, ast.Constant)
            and (t.slice.value in _CONTENT_KEYS)
            and _root(t.value) in aliases
        ):
            return t
        if (
            isinstance(t, ast.Attribute)
            and (t.attr in _CONTENT_KEYS or set(words(t.attr)) & _CONTENT_WORDS)
            and _root(t.value) in aliases
        ):
            return t
    return None


class _Loop:
    """One loop over a history: its item aliases, its index, the names it accumulates."""

    def __init__(self, loop: ast.For | ast.AsyncFor, enumerated: bool) -> None:
        target = loop.target
        self.index: set[str] = set()
        item: ast.expr = target
        if enumerated and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self.index = names_in(target.elts[0])
            item = target.elts[1]
        self.aliases = names_in(item)
        self.accumulated: set[str] = set()
        # A budget counted down across messages (`to_remove -= 1`): the tests that read it
        # pick messages by how many came before, wherever in the loop they stand.
        self.budget: set[str] = set()
        for sub in walk_cached(loop):
            if (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and sub.func.attr in _MUTATORS
                and isinstance(sub.func.value, ast.Name)
            ):
                self.accumulated.add(sub.func.value.id)
            elif (
                isinstance(sub, ast.AugAssign)
                and isinstance(sub.target, ast.Name)
                and (
                    isinstance(sub.op, ast.Sub)
                    or (isinstance(sub.value, ast.Constant) and isinstance(sub.value.value, int))
                )
            ):
                self.budget.add(sub.target.id)  # a counter, not text being built
        self.budget_tests = [
            sub.test
            for sub in walk_cached(loop)
            if isinstance(sub, ast.If)
            and any(
                isinstance(c, ast.Compare) and names_in(c) & self.budget
                for c in walk_cached(sub.test)
            )
        ]

    def writes(
        self, body: list[ast.stmt], conditions: list[ast.expr]
    ) -> Iterator[tuple[ast.expr, list[ast.expr]]]:
        """Content writes to the loop's message (or a copy of it, or a part of it), with the
        `if` tests that decide whether each runs."""
        for stmt in body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and _is_copy_of(stmt.value, self.aliases)
            ):
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
                    self.aliases |= names_in(stmt.target)  # the parts of the message
                yield from self.writes(stmt.body, conditions)
            elif isinstance(stmt, (ast.With, ast.AsyncWith, ast.While, ast.Try)):
                yield from self.writes(stmt.body, conditions)

    def selective(self, conditions: list[ast.expr]) -> bool:
        """Whether a test picks messages by position or by what other messages hold."""
        chooser = self.index | (self.accumulated - self.aliases)
        if self.budget_tests:
            return True
        for c in conditions:  # `step.step_number <= current - 2`: the item's own place
            for n in walk_cached(c):
                if isinstance(n, ast.Compare) and any(
                    isinstance(a, ast.Attribute)
                    and _root(a) in self.aliases
                    and set(words(a.attr)) & _POSITION_WORDS
                    for a in walk_cached(n)
                ):
                    return True
        return any(names_in(c) & chooser for c in conditions) or any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
            for c in conditions
            for n in walk_cached(c)
        )


def _memory_steps(node: ast.expr) -> bool:
    """`agent.memory.steps`: an agent's memory of its steps is its conversation."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "steps"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "memory"
    )


def _loops(
    tree: ast.Module,
) -> Iterator[tuple[ast.For | ast.AsyncFor, dict[str, ast.expr], ast.AST]]:
    """Every `for` loop, with the derived lists of the function it stands in, and that
    function (the module for a loop at module level)."""
    scopes: list[ast.AST] = [
        tree,
        *(n for n in walk_cached(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
    ]
    for scope in scopes:
        derived = _derived_lists(scope) if scope is not tree else {}
        for node in walk_no_defs(scope):  # a nested function is a scope of its own
            if isinstance(node, (ast.For, ast.AsyncFor)):
                yield node, derived, scope


def check_history(tree: ast.Module, ctx: Context) -> None:
    for node, derived, scope in _loops(tree):
        coll, enumerated = _history_iter(node.iter, derived)
        name = _name_of(coll)
        if name is None or not (set(words(name)) & _HISTORY_WORDS or _memory_steps(coll)):
            continue
        loop = _Loop(node, enumerated)
        for target, conditions in loop.writes(node.body, []):
            if loop.selective(conditions):
                ctx.flag(
                    target,
                    "PL303",
                    f"an earlier message of `{name}` is rewritten in place, chosen by "
                    "its position or by later messages: once rewritten, every request "
                    "misses the cache from that message on",
                )
                for call in _called_per_request(tree, scope, coll):
                    ctx.flag(
                        call,
                        "PL303",
                        f"`{callee(call)}(...)` rewrites earlier messages in place (line "
                        f"{target.lineno}) on each pass of the loop that sends them: every "
                        "request after a rewrite misses the cache from the first message it "
                        "changed",
                    )
                break


def _param_index(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> int | None:
    """The position of parameter `name` among those a caller passes (after `self`/`cls`)."""
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    return params.index(name) if name in params else None


def _called_per_request(tree: ast.Module, scope: ast.AST, coll: ast.expr) -> Iterator[ast.Call]:
    """The calls of the function `scope`, whose parameter `coll` it rewrites, that hand it a
    list which a request in the same loop then sends (`while True: _filter(messages, n)` ...
    `client.messages.create(messages=messages)`): the rewrite runs on every turn."""
    if not (
        isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(coll, ast.Name)
    ):
        return
    at = _param_index(scope, coll.id)
    seen: set[int] = set()  # a call in nested loops is one call
    for loop in walk_cached(tree):
        if not isinstance(loop, (ast.While, ast.For, ast.AsyncFor)):
            continue
        for call in walk_no_defs(loop):
            if not (isinstance(call, ast.Call) and callee(call) == scope.name):
                continue
            given = next((k.value for k in call.keywords if k.arg == coll.id), None)
            if given is None and at is not None and at < len(call.args):
                given = call.args[at]
            if isinstance(given, ast.Name) and _sent_in(loop, given.id) and id(call) not in seen:
                seen.add(id(call))
                yield call


def _sent_in(loop: ast.AST, name: str) -> bool:
    """A call in `loop` gives the list `name` as its `messages=`."""
    return any(
        isinstance(k, ast.keyword)
        and k.arg == "messages"
        and isinstance(k.value, ast.Name)
        and k.value.id == name
        for k in walk_no_defs(loop)
    )
