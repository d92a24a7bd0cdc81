"""Volatile findings (PL101-PL106) dropped where a value is read once for a conversation the
function starts itself, as `jscheck.runonce` does for TypeScript: the function binds a fresh
message list with a system message first and nothing from elsewhere (`messages =
[SystemMessage(prompt), HumanMessage(task)]`, no history spread or appended into it), and reads
the value outside its loops. Every request of that conversation (sent from the function's loop
or from the graph it hands the list to) carries the same bytes; a value read inside a loop is
still reported, and so is one written into a list that also carries an earlier conversation.
Pure: a syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import HISTORY_WORDS, VOLATILE_CODES, words
from ..reach import sink_line
from .syntax import callee, dict_get, walk_cached

_VOLATILE = frozenset(VOLATILE_CODES.values())
_Fn = ast.FunctionDef | ast.AsyncFunctionDef
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SYSTEM_CLASSES = frozenset({"SystemMessage", "SystemMessagePromptTemplate"})
_GROWS = frozenset({"extend", "insert", "__iadd__"})


def drop_run_once(tree: ast.Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code in _VOLATILE for f in found):
        return found
    # each starting function's span, its loops' spans and the lines that feed its fresh
    # list's system message, worked out once a file
    starts = []
    for fn in _functions(tree):
        fed = starts_conversation(fn)
        if fed:
            starts.append(((fn.lineno, fn.end_lineno or fn.lineno), _loops(fn), fed))
    if not starts:
        return found
    out = []
    for f in found:
        sink = sink_line(f)
        held = next((x for x in starts if x[0][0] <= f.line <= x[0][1]), None)
        if (
            f.code in _VOLATILE
            and held is not None
            and sink is not None
            and sink in held[2]
            and not any(a <= line <= b for a, b in held[1] for line in (f.line, sink))
        ):
            continue
        out.append(f)
    return out


def _functions(tree: ast.Module) -> list[_Fn]:
    return [n for n in walk_cached(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def starts_conversation(fn: _Fn) -> set[int]:
    """Where `fn` binds a fresh message list, system message first, that nothing from
    elsewhere joins (no history spread into it, extended onto it or appended to it by name):
    the lines that make its system message (the list's own, and those binding a name its
    system message reads); empty when it binds none."""
    fresh: set[str] = set()
    fed: set[int] = set()
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    read: set[str] = set()
    binds: dict[str, list[ast.Assign]] = {}
    for node in _own(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    binds.setdefault(t.id, []).append(node)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _fresh(node.value)
        ):
            fresh.add(node.targets[0].id)
            fed |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            first = (_items(node.value) or [node.value])[0]
            read |= {n.id for n in walk_cached(first) if isinstance(n, ast.Name)}
    if not fresh:
        return set()
    local = set(binds) - fresh  # names the function binds: a reply, a tool call
    for name in read:
        for a in binds.get(name, []):
            fed |= set(range(a.lineno, (a.end_lineno or a.lineno) + 1))
    # `for m in history: messages.append({"role": m["role"], ...})`: a loop over something
    # other than a count copies an earlier conversation in, message by message.
    copying = [
        (n.lineno, n.end_lineno or n.lineno)
        for n in _own(fn)
        if isinstance(n, (ast.For, ast.AsyncFor))
        and not (
            isinstance(n.iter, ast.Call)
            and isinstance(n.iter.func, ast.Name)
            and n.iter.func.id == "range"
        )
        # `for call in reply.tool_calls:` walks this run's own reply, not an earlier one
        and not _made_here(n.iter, params, local)
    ]
    for node in _own(fn):
        if isinstance(node, ast.AugAssign) and _named(node.target, fresh):
            return set()
        if (
            isinstance(node, ast.Assign)
            and any(_named(t, fresh) for t in node.targets)
            and not _fresh(node.value)
            and not _remade(node.value, fresh)
        ):
            return set()  # rebound to something else (`messages = history + [...]`)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _named(node.func.value, fresh)
        ):
            if node.func.attr in _GROWS:
                return set()
            if node.func.attr == "append" and (
                not all(_message(a) or _made_here(a, params, local) for a in node.args)
                or any(a <= node.lineno <= b for a, b in copying)
            ):
                return set()  # `messages.append(m)` for each `m` of an earlier history
    return fed


def _fresh(value: ast.expr) -> bool:
    """A literal list of messages (or a sum of them), a system message first."""
    items = _items(value)
    return (
        items is not None and bool(items) and _system(items[0]) and all(_message(i) for i in items)
    )


def _remade(value: ast.expr, fresh: set[str]) -> bool:
    """A call that makes the list anew from itself (`messages = compact(client, messages,
    limit)`, a compaction or a trim): the fresh list is one of its arguments, and no other
    argument is named for a conversation (`merge(messages, history)` brings another one in).
    Its messages are still this conversation's, under the system message read once."""
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call):
        return False
    args = [*value.args, *(k.value for k in value.keywords)]
    if not any(_named(a, fresh) for a in args):
        return False
    for a in args:
        if _named(a, fresh) or isinstance(a, ast.Constant):
            continue
        if isinstance(a, ast.Starred) or any(_conversation(n) for n in walk_cached(a)):
            return False
    return True


def _conversation(node: ast.AST) -> bool:
    """A name or attribute named for a conversation (`history`, `self.chat_messages`)."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return bool(set(words(name)) & HISTORY_WORDS)


def _made_here(item: ast.expr, params: set[str], local: set[str]) -> bool:
    """A message the function made itself from this run's reply (`messages.append(
    to_dict(response.choices[0].message))`): it reads a name the function binds (the reply),
    none of its parameters (a message handed in) and no name for a conversation
    (`messages.append(history[i])`), the functions it calls and the objects whose methods it
    calls aside (`load_previous()` reads nothing of the run: not made here)."""
    skip: set[int] = set()
    reads = False
    for n in walk_cached(item):
        if isinstance(n, ast.Call):
            skip.add(id(n.func))
            if isinstance(n.func, ast.Attribute):
                skip.add(id(n.func.value))
    for n in walk_cached(item):
        if id(n) in skip:
            continue
        if isinstance(n, ast.Starred):
            return False
        if (isinstance(n, ast.Name) and n.id in params) or _conversation(n):
            return False
        reads = reads or (isinstance(n, ast.Name) and n.id in local)
    return reads


def _items(value: ast.expr) -> list[ast.expr] | None:
    if isinstance(value, ast.List):
        return list(value.elts)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left, right = _items(value.left), _items(value.right)
        return None if left is None or right is None else left + right
    return None


def _message(item: ast.expr) -> bool:
    """A message written out here: a role dict or a message class's call (either branch of
    a conditional one), not a name or a spread that brings one from elsewhere."""
    if isinstance(item, ast.IfExp):
        return _message(item.body) and _message(item.orelse)
    if isinstance(item, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" for k in item.keys)
    return isinstance(item, ast.Call) and callee(item).endswith("Message")


def message_role(item: ast.expr, roles: tuple[str, ...], classes: frozenset[str]) -> bool:
    """A message of one of `roles` written out here: a dict whose constant role is one of them,
    or a call of one of `classes` (their message classes)."""
    if isinstance(item, ast.Dict):
        role = dict_get(item, "role")
        return isinstance(role, ast.Constant) and role.value in roles
    return isinstance(item, ast.Call) and callee(item) in classes


def _system(item: ast.expr) -> bool:
    return message_role(item, ("system", "developer"), _SYSTEM_CLASSES)


def _named(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _loops(fn: _Fn) -> list[tuple[int, int]]:
    return [(n.lineno, n.end_lineno or n.lineno) for n in _own(fn) if isinstance(n, _LOOPS)]


def _own(fn: _Fn) -> list[ast.AST]:
    """The nodes of `fn`'s body, not those of the functions and classes defined in it."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(
            c
            for c in ast.iter_child_nodes(node)
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        )
    return out
