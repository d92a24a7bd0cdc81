"""Whether a value is a stored record rather than prompt text: a dict, or a call of a model
class, with an `id` and a creation or update stamp (`{"id": ..., "content": ...,
"created_at": now}`, `SystemPrompt(id=..., created_at=now)`), or a local bound to one. A
function named for a system prompt that returns such a record (`create_system_prompt(...)` in a
settings store) saves the user's configuration; it builds no request. Pure: a syntax tree in, a
yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .syntax import const_str, walk_cached

_STAMPS = frozenset({"created_at", "updated_at", "createdAt", "updatedAt"})


def _record(node: ast.AST) -> bool:
    if isinstance(node, ast.Dict):
        keys = {const_str(k) for k in node.keys if k is not None}
    elif isinstance(node, ast.Call):
        keys = {k.arg for k in node.keywords}
    else:
        return False
    return "id" in keys and bool(keys & _STAMPS)


def is_record(value: ast.expr, fn: ast.AST | None) -> bool:
    """`value`, returned from `fn`: a record or a local of `fn` bound to one."""
    if _record(value):
        return True
    if not isinstance(value, ast.Name) or fn is None:
        return False
    return any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)
        and _record(n.value)
        for n in walk_cached(fn)
    )
