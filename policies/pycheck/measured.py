"""PL303 findings inside a function named for estimating or measuring what it builds are
dropped (`policies/measured.py` says why). Pure: a syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..measured import drop_within, measures_only
from .syntax import walk_cached


def drop_measured(tree: ast.Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code == "PL303" for f in found):
        return found
    spans = [
        (fn.lineno, fn.end_lineno or fn.lineno)
        for fn in walk_cached(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and measures_only(fn.name)
    ]
    return drop_within(found, spans)
