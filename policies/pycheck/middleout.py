"""PL303 in Python: a conversation cut out of its middle to fit a budget. A helper named for it
(`middle_out_filter(messages)`) or OpenRouter's `"transforms": ["middle-out"]` (the provider
drops the middle of a prompt that overflows the context): once the budget is passed the first
message after the kept head changes at every request, and the cache misses from there on. Pure:
a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import MIDDLE_OUT_TEXT, is_middle_out_name
from .context import Context
from .syntax import callee, walk_cached


def _middle_out_transform(value: ast.expr) -> bool:
    return isinstance(value, (ast.List, ast.Tuple)) and any(
        isinstance(e, ast.Constant) and e.value == "middle-out" for e in value.elts
    )


def _asks_middle_out(n: ast.AST) -> bool:
    """`transforms=["middle-out"]` or `{"transforms": ["middle-out"]}` (`extra_body`)."""
    if isinstance(n, ast.Call):
        return any(k.arg == "transforms" and _middle_out_transform(k.value) for k in n.keywords)
    if isinstance(n, ast.Dict):
        return any(
            isinstance(k, ast.Constant) and k.value == "transforms" and _middle_out_transform(v)
            for k, v in zip(n.keys, n.values, strict=True)
        )
    return False


def check_middle_out(tree: ast.Module, ctx: Context) -> None:
    if not any("middle" in line.lower() for line in ctx.lines):
        return  # neither shape can be in the file: skip the walk
    for n in walk_cached(tree):
        if not isinstance(n, (ast.Call, ast.Dict)):
            continue
        what = ""
        if isinstance(n, ast.Call) and n.args and is_middle_out_name(callee(n)):
            what = f"the conversation is cut out of its middle (`{callee(n)}`)"
        elif _asks_middle_out(n):
            what = "the provider drops the middle of an overflowing prompt (`middle-out`)"
        if what:
            ctx.flag(n, "PL303", f"{what}: {MIDDLE_OUT_TEXT}")
