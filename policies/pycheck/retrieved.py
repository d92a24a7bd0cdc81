"""PL304 in Python: what was retrieved for this reply written into the system prompt ahead of
the history, as in TypeScript. A local named for retrieved material (`context`, `memories`,
`documents`, `chunks`, `passages`, `results`, or first named for a memory: `memory_reference`;
not a `profile_context`) bound to a call's result (alone or unpacked from a tuple) and added to
the prompt (`system_prompt += f"\\nContext:\\n{context}"`) that a request sends as `system=` /
`system_prompt=` / `instructions=` beside a history (`messages=` not written as a literal), or
as the system message of a literal list with a history spread after it: the retrieval differs
per reply, so the prefix does, and the history after it is sent again uncached.
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import words
from .context import Context
from .syntax import walk_cached

_RETRIEVED = frozenset({"context", "results", "memories", "documents", "chunks", "passages"})
_SETTLED = frozenset({"profile", "persona", "system", "settings", "instructions"})
_MEMORY = frozenset({"memory", "memories", "recalled", "retrieved"})
_SYSTEM_KWARGS = frozenset({"system", "system_prompt", "instructions"})


def _retrieved_name(name: str) -> bool:
    ws = words(name)
    # `memory_reference`, `memory_text`: what a memory store gave back, whatever it is called
    named = bool(ws) and (ws[-1] in _RETRIEVED or ws[0] in _MEMORY)
    return named and not set(ws) & _SETTLED


def _sent_systems(fn: ast.AST) -> set[str]:
    """The names a request of `fn` sends as its system prompt beside a history."""
    out = set()
    for c in walk_cached(fn):
        if not isinstance(c, ast.Call):
            continue
        kws = {k.arg: k.value for k in c.keywords if k.arg}
        messages = kws.get("messages")
        if messages is None or isinstance(messages, (ast.List, ast.Tuple)):
            continue
        for k in _SYSTEM_KWARGS:
            v = kws.get(k)
            if isinstance(v, ast.Name):
                out.add(v.id)
    # `[{"role": "system", "content": system_prompt}, *history]`: a literal list whose system
    # message comes before a history spread into it
    for lst in walk_cached(fn):
        if not (isinstance(lst, ast.List) and len(lst.elts) >= 2):
            continue
        if not any(isinstance(e, ast.Starred) for e in lst.elts[1:]):
            continue
        content = _system_content(lst.elts[0])
        if isinstance(content, ast.Name):
            out.add(content.id)
    return out


def _system_content(node: ast.expr) -> ast.expr | None:
    """The content of `{"role": "system", "content": c}` or `SystemMessage(content=c)`."""
    if isinstance(node, ast.Dict):
        fields = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
        role = fields.get("role")
        if isinstance(role, ast.Constant) and role.value == "system":
            return fields.get("content")
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "SystemMessage"
    ):
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        return kw.get("content") or (node.args[0] if node.args else None)
    return None


def _fetched(fn: ast.AST, name: str) -> bool:
    """`name` is bound in `fn` to a call's result (awaited or not)."""
    for a in walk_cached(fn):
        if isinstance(a, ast.Assign) and any(
            isinstance(n, ast.Name) and n.id == name for t in a.targets for n in walk_cached(t)
        ):  # `ctx = search(q)` or `status, ids, ctx = await recall(q)`
            v = a.value.value if isinstance(a.value, ast.Await) else a.value
            if isinstance(v, ast.Call):
                return True
    return False


def check_retrieved_in_system(
    tree: ast.Module, ctx: Context, found: list[Finding]
) -> list[Finding]:
    """The findings to add to `found`: one a function, none where `found` already holds a
    PL304 in it (the retrieval reported where it is made)."""
    out: list[Finding] = []
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        systems = _sent_systems(fn)
        end = fn.end_lineno or fn.lineno
        if not systems or any(
            f.code == "PL304" and fn.lineno <= f.line <= end for f in found + out
        ):
            continue
        for a in walk_cached(fn):
            target: ast.expr
            if isinstance(a, ast.AugAssign) and isinstance(a.op, ast.Add):
                target, value = a.target, a.value
            elif isinstance(a, ast.Assign) and len(a.targets) == 1:
                target, value = a.targets[0], a.value
            else:
                continue
            if not (isinstance(target, ast.Name) and target.id in systems):
                continue
            hit = next(
                (
                    x
                    for x in walk_cached(value)
                    if isinstance(x, ast.Name) and _retrieved_name(x.id) and _fetched(fn, x.id)
                ),
                None,
            )
            if hit is None:
                continue
            out.append(
                Finding(
                    ctx.path,
                    a.lineno,
                    a.col_offset + 1,
                    "PL304",
                    f"`{hit.id}` (retrieved for this reply) is written into the system prompt "
                    "ahead of the conversation: each time it changes, the history after it is "
                    "sent again uncached; put it in the newest user message",
                    source_line=ctx.line(a.lineno),
                )
            )
            break
    return out
