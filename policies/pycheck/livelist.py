"""PL304 in Python: the user's live list (todos, tasks, events, a schedule) written into a system
prompt that heads the conversation. A system-prompt builder handed the list
(`build_todo_system_prompt(todos)`) in a function that puts a system message ahead of the
history (`[{"role": "system", ...}, *history]`, `[system] + messages`): the list is read again
for each request, so every edit to it between turns changes the prefix and the whole history
after it is sent uncached. Also, whatever its name, a value the request function takes per call
and a builder of this module dumps whole into that system message (`json.dumps(state)`). Pure:
a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import words
from .context import Context
from .syntax import callee, const_str, dict_get, walk_cached
from .windows import _is_history as is_history

# The last word of a name for what the user keeps changing between turns.
_LIVE = frozenset(
    {"todos", "tasks", "events", "schedule", "calendar", "agenda", "reminders", "appointments"}
)


def _system_builder(name: str) -> bool:
    ws = set(words(name))
    return "system" in ws and bool(ws & {"prompt", "message", "instructions"})


def _live_arg(call: ast.Call) -> ast.expr | None:
    for a in [*call.args, *(k.value for k in call.keywords)]:
        name = a.id if isinstance(a, ast.Name) else a.attr if isinstance(a, ast.Attribute) else ""
        ws = words(name)
        if ws and ws[-1] in _LIVE:
            return a
    return None


def _system_dict(node: ast.AST) -> bool:
    return isinstance(node, ast.Dict) and const_str(dict_get(node, "role")) == "system"


def _system_ahead_of_history(fn: ast.AST) -> bool:
    for n in walk_cached(fn):
        if (
            isinstance(n, ast.List)
            and any(_system_dict(e) for e in n.elts)
            and any(isinstance(e, ast.Starred) and is_history(e.value) for e in n.elts)
        ):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and is_history(n.right):
            left = n.left
            if isinstance(left, ast.List) and any(_system_dict(e) for e in left.elts):
                return True
    return False


def check_live_list_in_system(tree: ast.Module, ctx: Context) -> None:
    text = "\n".join(ctx.lines).lower()
    if "system" not in text or not any(w[:-1] in text for w in _LIVE):
        return  # no system prompt or no live list named in the file: skip the walk
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if not _system_ahead_of_history(fn):
            continue
        for n in walk_cached(fn):
            if not (isinstance(n, ast.Call) and _system_builder(callee(n))):
                continue
            live = _live_arg(n)
            if live is None:
                continue
            ctx.flag(
                n,
                "PL304",
                f"`{callee(n)}` writes `{ast.unparse(live)}`, the user's live list read "
                "for this request, into a system message ahead of the conversation "
                "history: each edit to it between turns changes the prefix and the whole "
                "history is sent again uncached; put the list in the newest user message",
            )


_DUMPED = ", handed in with each request, is dumped whole into the system prompt"


def drop_order_of_dumped_state(found: list[Finding]) -> list[Finding]:
    """A dump reported as per-request state (above) is no key-order finding (PL202) as well:
    its content changes between requests whatever the order of its keys, and the advice is to
    move it, not to sort it."""
    moved = {(f.path, f.line) for f in found if f.code == "PL304" and _DUMPED in f.message}
    return [f for f in found if not (f.code == "PL202" and (f.path, f.line) in moved)]


def check_state_dumped_in_system(tree: ast.Module, ctx: Context) -> None:
    """A value handed in with every request and dumped whole into the system prompt: a function
    that sends a system message ahead of a history (a parameter it loops over into the list
    sent, or a history spread after the system message) takes the system text from a builder
    of this module, called with one of its own parameters, which the builder serialises
    (`json.dumps(state_snapshot)`). Each request brings its own value, so the prefix changes
    whenever it does and the history after it is sent again uncached. Not a value the function
    does not take per call (a setting on `self`, a module constant), and not one the builder
    only formats (`mode.upper()`)."""
    if "dumps" not in "\n".join(ctx.lines):
        return  # nothing serialised here: skip the walk
    builders = {
        n.name: n
        for n in walk_cached(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    told: set[int] = set()
    for fn in builders.values():
        params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        heads = _heads_of_history(fn, params)
        if not heads:
            continue
        for call in _builder_calls(fn, heads):
            builder = builders.get(callee(call))
            if builder is None:
                continue
            bparams = [a.arg for a in [*builder.args.posonlyargs, *builder.args.args]]
            if bparams[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute):
                bparams = bparams[1:]
            handed = {
                bparams[i]
                for i, a in enumerate(call.args)
                if i < len(bparams) and isinstance(a, ast.Name) and a.id in params
            } | {
                k.arg
                for k in call.keywords
                if k.arg and isinstance(k.value, ast.Name) and k.value.id in params
            }
            for n in walk_cached(builder):
                if not (
                    isinstance(n, ast.Call)
                    and callee(n) == "dumps"
                    and n.args
                    and isinstance(n.args[0], ast.Name)
                    and n.args[0].id in handed
                    and n.lineno not in told
                ):
                    continue
                told.add(n.lineno)
                ctx.flag(
                    n,
                    "PL304",
                    f"`{n.args[0].id}`{_DUMPED} built by `{builder.name}` ahead of the "
                    "conversation history: whenever it changes between turns the prefix "
                    "changes and the whole history is sent again uncached; put it in the "
                    "newest user message",
                )


def _heads_of_history(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> set[str]:
    """Names of the system text heading a list that `fn` grows from a parameter it loops over
    (`for turn in history: messages.append(...)`) or spreads a history into."""
    lists: dict[str, ast.List] = {}
    for n in walk_cached(fn):
        if (
            isinstance(n, (ast.Assign, ast.AnnAssign))
            and isinstance(n.value, ast.List)
            and n.value.elts
            and _system_dict(n.value.elts[0])
        ):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Name):
                    lists[t.id] = n.value
    heads: set[str] = set()
    for name, lst in lists.items():
        grown = any(
            isinstance(loop, (ast.For, ast.AsyncFor))
            and isinstance(loop.iter, ast.Name)
            and loop.iter.id in params
            and any(
                isinstance(c, ast.Call)
                and isinstance(c.func, ast.Attribute)
                and c.func.attr in {"append", "extend"}
                and isinstance(c.func.value, ast.Name)
                and c.func.value.id == name
                for c in walk_cached(loop)
            )
            for loop in walk_cached(fn)
        ) or any(isinstance(e, ast.Starred) and is_history(e.value) for e in lst.elts)
        content = dict_get(lst.elts[0], "content") if isinstance(lst.elts[0], ast.Dict) else None
        if grown and isinstance(content, ast.Name):
            heads.add(content.id)
    return heads


def _builder_calls(fn: ast.FunctionDef | ast.AsyncFunctionDef, heads: set[str]) -> list[ast.Call]:
    """The calls whose result `fn` binds to one of `heads`."""
    return [
        n.value
        for n in walk_cached(fn)
        if isinstance(n, (ast.Assign, ast.AnnAssign))
        and isinstance(n.value, ast.Call)
        and any(
            isinstance(t, ast.Name) and t.id in heads
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
    ]
