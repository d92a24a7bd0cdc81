"""PL303 in Python: a conversation cut out of its middle to fit a budget. A helper named for it
(`middle_out_filter(messages)`) or OpenRouter's `"transforms": ["middle-out"]` (the provider
drops the middle of a prompt that overflows the context): once the budget is passed the first
message after the kept head changes at every request, and the cache misses from there on. Pure:
a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import itertools

from ..findings import Finding
from ..meaning import words
from .context import Context

_TAIL = (
    "once the budget is passed the message after the kept head changes every turn, and every "
    "request misses the cache from there on; summarise the middle in one step instead"
)


# Verbs that make a middle-out name a cut (`middleOutFiltering`, `apply_middle_out`), not a
# checker or a helper about the strategy (`check_middle_out`, `middle_out_transform`).
_CUTS = frozenset(
    {"filter", "filtering", "trim", "trimming", "truncate", "truncation", "cut", "compress"}
    | {"compression", "prune", "pruning", "strategy", "apply", "shrink"}
)


def _middle_out(name: str) -> bool:
    ws = words(name)
    return any(
        a == "middle" and b == "out" and set(ws[max(0, i - 1) : i] + ws[i + 2 :]) & _CUTS
        for i, (a, b) in enumerate(itertools.pairwise(ws))
    )


def _callee(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


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
    for n in ast.walk(tree):
        if not isinstance(n, (ast.Call, ast.Dict)):
            continue
        what = ""
        if isinstance(n, ast.Call) and n.args and _middle_out(_callee(n)):
            what = f"the conversation is cut out of its middle (`{_callee(n)}`)"
        elif _asks_middle_out(n):
            what = "the provider drops the middle of an overflowing prompt (`middle-out`)"
        if what:
            ctx.findings.add(
                Finding(
                    ctx.path,
                    n.lineno,
                    n.col_offset + 1,
                    "PL303",
                    f"{what}: {_TAIL}",
                    source_line=ctx.line(n.lineno),
                )
            )
