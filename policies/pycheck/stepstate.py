"""PL304 in Python: where a procedure or workflow stands now written into the system prompt. A
system prompt builder handed the current step (`build_system_prompt(sop, current_step_id)`)
writes it, or what it derives from it, into the prompt; the step advances within the
conversation, so the prefix changes with it. The words read and the message given are in
`policies/stepstate.py`. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..stepstate import is_progress, is_prompt_text, is_system_builder, step_state_message
from .context import Context
from .syntax import walk_cached


def _names(node: ast.AST | None) -> set[str]:
    return (
        {x.id for x in walk_cached(node) if isinstance(x, ast.Name)} if node is not None else set()
    )


def _derived(fn: ast.FunctionDef | ast.AsyncFunctionDef, seed: set[str]) -> set[str]:
    """The locals bound from the step, to a fixed point."""
    binds = [
        (t.id, a.value)
        for a in walk_cached(fn)
        if isinstance(a, ast.Assign)
        for t in a.targets
        if isinstance(t, ast.Name)
    ]
    names = set(seed)
    grew = True
    while grew:
        grew = False
        for left, right in binds:
            if left not in names and _names(right) & names:
                names.add(left)
                grew = True
    return names


def _written(x: ast.AST) -> ast.expr | None:
    """The text a statement adds to the prompt: `prompt += v`, `prompt = v`, `return v`."""
    if isinstance(x, ast.AugAssign):
        return x.value if isinstance(x.op, ast.Add) else None
    if isinstance(x, ast.Assign):
        named = any(isinstance(t, ast.Name) and is_prompt_text(t.id) for t in x.targets)
        return x.value if named else None
    return x.value if isinstance(x, ast.Return) else None


def _prompt_writes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """What the builder writes into its text: `prompt += ...`, a prompt-named local's value,
    an item appended to a list of parts, and what it returns."""
    out: list[ast.expr] = []
    for x in walk_cached(fn):
        value = _written(x)
        if value is not None:
            out.append(value)
        elif (
            isinstance(x, ast.Call)
            and isinstance(x.func, ast.Attribute)
            and x.func.attr in ("append", "extend")
        ):
            out += x.args
    return [w for w in out if not isinstance(w, ast.Name)]


def check_step_state(tree: ast.Module, ctx: Context) -> None:
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if not is_system_builder(fn.name):
            continue
        args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        seed = {a.arg for a in args if is_progress(a.arg)}
        if not seed:
            continue
        names = _derived(fn, seed)
        for write in sorted(_prompt_writes(fn), key=lambda n: (n.lineno, n.col_offset)):
            hit = next(
                (x for x in walk_cached(write) if isinstance(x, ast.Name) and x.id in names), None
            )
            if hit is None:
                continue
            ctx.flag(hit, "PL304", step_state_message(hit.id))
            break
