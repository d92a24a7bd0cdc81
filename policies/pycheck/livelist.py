"""PL304 in Python: the user's live list (todos, tasks, events, a schedule) written into a system
prompt that heads the conversation. A system-prompt builder handed the list
(`build_todo_system_prompt(todos)`) in a function that puts a system message ahead of the
history (`[{"role": "system", ...}, *history]`, `[system] + messages`): the list is read again
for each request, so every edit to it between turns changes the prefix and the whole history
after it is sent uncached. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import words
from .context import Context
from .syntax import callee, const_str, dict_get
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
    for n in ast.walk(fn):
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
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if not _system_ahead_of_history(fn):
            continue
        for n in ast.walk(fn):
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
