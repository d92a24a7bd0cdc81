"""PL302 in Python: the model chosen by the step of an agent loop (`model = THINKING if turn ==
0 else BASE` inside a `for` or `while`). Each model has a cache of its own, so the steps after
the switch read nothing the earlier ones wrote. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import words
from .context import Context
from .syntax import walk_cached

# A step counter of an agent loop: `turn_count`, `step`, `iteration`.
_STEP = frozenset({"turn", "step", "steps", "iteration", "iter", "round", "attempt"})


def _step_in(test: ast.expr) -> str | None:
    for n in walk_cached(test):
        name = n.id if isinstance(n, ast.Name) else (n.attr if isinstance(n, ast.Attribute) else "")
        if name and set(words(name)) & _STEP:
            return name
    return None


def _chosen(value: ast.expr | None) -> str | None:
    return _step_in(value.test) if isinstance(value, ast.IfExp) else None


def _model_value(n: ast.AST) -> ast.expr | None:
    """The value given to a model: `model=...` or `model = ...`."""
    if isinstance(n, ast.keyword) and n.arg == "model":
        return n.value
    if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and words(t.id)[-1:] == ["model"] for t in n.targets
    ):
        return n.value
    return None


def check_model_per_step(tree: ast.Module, ctx: Context) -> None:
    loops = [n for n in walk_cached(tree) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]
    seen: set[int] = set()
    for loop in loops:
        for n in walk_cached(loop):
            if id(n) in seen:
                continue
            seen.add(id(n))
            node = _model_value(n)
            step = _chosen(node)
            if node is None or step is None:
                continue
            ctx.flag(
                node,
                "PL302",
                f"the model is chosen by the loop's step (`{step}`): each model has a cache "
                "of its own, so the steps after the switch read nothing the earlier ones "
                "wrote; keep one model for the whole loop",
            )
