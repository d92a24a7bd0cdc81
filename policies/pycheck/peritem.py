"""PL304 in Python: a system prompt written anew for each item of a loop that calls the model
(`for conflict in conflicts: system_prompt = f"... file: {conflict['file']}"` then
`await self.ask(prompt, system_prompt)`). Every call of the loop sends a system prompt of its
own, so none reads what an earlier call cached past the first differing byte: the item belongs
in the user message, after a system prompt that stays the same. A loop over agents, personas
or models (each with its own conversation) is not one of these. Pure: a syntax tree in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import names_party, names_prompt_start
from .context import Context
from .syntax import callee, walk_cached


def _names(target: ast.expr) -> set[str]:
    return {n.id for n in walk_cached(target) if isinstance(n, ast.Name)}


def _body_nodes(loop: ast.For | ast.AsyncFor) -> list[ast.AST]:
    """The loop's statements and what they hold, not the bodies of functions defined there."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(loop.body)
    while todo:
        n = todo.pop()
        out.append(n)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def check_per_item(tree: ast.Module, ctx: Context) -> None:
    for loop in walk_cached(tree):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        items = _names(loop.target)
        if not items or any(names_party(x) for x in items | _names(loop.iter)):
            continue
        body = _body_nodes(loop)
        for node in body:
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and names_prompt_start(node.targets[0].id)
                and isinstance(node.value, ast.JoinedStr)
            ):
                continue
            name = node.targets[0].id
            hole = next(
                (
                    v
                    for v in node.value.values
                    if isinstance(v, ast.FormattedValue) and _names(v.value) & items
                ),
                None,
            )
            if hole is None or not _sent_in_loop(body, name):
                continue
            item = sorted(_names(hole.value) & items)[0]
            ctx.findings.add(
                Finding(
                    ctx.path,
                    hole.value.lineno,
                    hole.value.col_offset + 1,
                    "PL304",
                    f"`{ast.unparse(hole.value)}` (the loop's current item `{item}`) is written "
                    f"into `{name}` (line {node.lineno}), the system prompt of a call the loop "
                    "makes for each item: every call has a system prompt of its own and none "
                    "reads another's cache past the first difference; keep one system prompt "
                    "and put the item in the user message",
                    source_line=ctx.line(hole.value.lineno),
                )
            )


def _sent_in_loop(body: list[ast.AST], name: str) -> bool:
    """Whether a call in the loop is handed `name` (`ask(prompt, system_prompt)`,
    `create(system=system_prompt)`)."""
    for n in body:
        if isinstance(n, ast.Call) and callee(n) in _NOT_SENT:
            continue  # `out.append(system_note)`, `logger.info(system)`: kept or logged
        if isinstance(n, ast.Call) and any(
            isinstance(a, ast.Name) and a.id == name
            for a in [*n.args, *(k.value for k in n.keywords)]
        ):
            return True
    return False


# Calls that keep, measure or log a value: none of them sends it to a model.
_NOT_SENT = frozenset(
    {"append", "extend", "insert", "add", "update", "write", "print", "len", "str", "join"}
    | {"debug", "info", "warning", "error", "log", "exception", "put", "set", "count_tokens"}
)
