"""PL101-PL106 in Python: a chat prompt template's slot bound to a callable that reads the clock
(or another volatile source). LangChain's `prompt.partial(time=lambda: datetime.now().isoformat())`
calls the callable each time the template is formatted, so the system text ahead of the
template's messages placeholder differs on every request. A value bound directly
(`partial(time=datetime.now().isoformat())`) is read once, at import, and is not reported here;
nor is a template without a messages placeholder (a one-shot prompt, no conversation to reuse).
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from .context import Context
from .syntax import const_str, walk_cached
from .taint import CODE_OF, VOLATILE, Evaluator

_BUILDERS = frozenset({"from_messages", "from_template"})
_WHY = (
    "the prompt's `{slot}` slot is bound to a callable that reads {what} each time the template "
    "is formatted, ahead of the conversation's messages: no two requests share the prefix; "
    "put the value in the newest user message, or bind it once per conversation"
)


def check_volatile_partials(tree: ast.Module, ctx: Context) -> None:
    if not any(".partial(" in line for line in ctx.lines):
        return  # the common case, without a walk
    funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    bound: dict[str, ast.expr] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs[stmt.name] = stmt
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            bound[stmt.targets[0].id] = stmt.value
    ev: Evaluator | None = None
    for node in walk_cached(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "partial"
            and node.keywords
            and _chat_template(node.func.value, bound)
        ):
            continue
        for kw in node.keywords:
            if kw.arg is None:
                continue
            body = _called_body(kw.value, funcs)
            if not body:
                continue
            ev = ev or Evaluator(ctx)
            found = {t.kind: t for b in body for t in ev.ev(b, {}) if t.kind in VOLATILE}
            for kind, t in sorted(found.items()):
                ctx.flag(kw.value, CODE_OF[kind], _WHY.format(slot=kw.arg, what=t.desc))


def _called_body(
    value: ast.expr, funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> list[ast.expr]:
    """What the callable bound to a slot evaluates: a lambda's body, or the returned values of
    a function of this module named by the slot."""
    if isinstance(value, ast.Lambda):
        return [value.body]
    if isinstance(value, ast.Name) and value.id in funcs:
        return [
            n.value
            for n in walk_cached(funcs[value.id])
            if isinstance(n, ast.Return) and n.value is not None
        ]
    return []


def _chat_template(node: ast.expr, bound: dict[str, ast.expr]) -> bool:
    """A chat prompt template that holds the conversation: `ChatPromptTemplate.from_messages([...,
    MessagesPlaceholder("messages")])` or `("placeholder", "{messages}")`, directly or by the
    module-level name it is bound to."""
    if isinstance(node, ast.Name) and node.id in bound:
        node = bound[node.id]
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _BUILDERS
    ):
        return False
    for n in walk_cached(node):
        if isinstance(n, ast.Call):
            f = n.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name == "MessagesPlaceholder":
                return True
        if isinstance(n, ast.Tuple) and len(n.elts) == 2 and const_str(n.elts[0]) == "placeholder":
            return True
    return False
