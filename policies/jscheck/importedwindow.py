"""A history window cut by a helper of another module of the project: `import { lastOf } from
"./util"`, where `lastOf` returns a parameter's last items (`xs.slice(-n)`), and the call's
result sent after a system prompt here. The helper's module sends nothing, so the cut is seen
only where it is called. Pure: the other module is read through the evaluator's loader.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from .reach import window_sent
from .structure import _for_side_request
from .syntax import FUNCTIONS, Source, callee_name, project_module, unwrap, walk
from .values import Evaluator

_WHY = (
    "once the window is full its first message changes every turn, and every request misses "
    "the cache from the system prompt on; summarise or cut the history in large steps instead"
)
_KEEP_ORDER = frozenset({"map", "filter"})


def check_imported_windows(src: Source, ev: Evaluator) -> list[Finding]:
    out: list[Finding] = []
    for call in walk(src.root):
        if call.type != "call_expression":
            continue
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "identifier":
            continue
        name = src.text(fn)
        spec, remote = ev.m.imports.get(name, ("", "*"))
        if remote == "*" or not project_module(spec):
            continue
        other = ev.other(spec)
        home, _, helper = other.exported(remote) if other is not None else (None, None, None)
        if home is None or helper is None or not _returns_last_items(home.src, helper):
            continue
        if _for_side_request(src, call) or not window_sent(
            src, call, aside=lambda c: _for_side_request(src, c)
        ):
            continue
        out.append(
            src.finding(
                call,
                "PL303",
                f"the messages sent are cut to the last ones by `{name}` (from {spec}): {_WHY}",
            )
        )
    return out


def _returns_last_items(src: Source, fn: Node) -> bool:
    """Whether every value `fn` returns is a cut of one of its parameters from the end
    (`xs.slice(-n)`, `list.slice(-max).map(toModel)`), not the newest item alone (`-1`)."""
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    names = {src.text(x) for x in walk(params) if x.type == "identifier"} if params else set()
    body = fn.child_by_field_name("body")
    if body is None or not names:
        return False
    if body.type == "statement_block":
        returned = [
            r.named_children[0]
            for r in walk(body)
            if r.type == "return_statement"
            and r.named_children
            and _owner(r) is not None
            and _owner(r).id == fn.id  # type: ignore[union-attr]
        ]
    else:
        returned = [body]
    return bool(returned) and all(_last_items_of(src, unwrap(v), names) for v in returned)


def _owner(n: Node) -> Node | None:
    p = n.parent
    while p is not None and p.type not in FUNCTIONS:
        p = p.parent
    return p


def _last_items_of(src: Source, value: Node, params: set[str]) -> bool:
    while value.type == "call_expression" and callee_name(src, value) in _KEEP_ORDER:
        f = value.child_by_field_name("function")
        obj = f.child_by_field_name("object") if f is not None else None
        if obj is None:
            return False
        value = unwrap(obj)
    if value.type != "call_expression" or callee_name(src, value) != "slice":
        return False
    f = value.child_by_field_name("function")
    obj = f.child_by_field_name("object") if f is not None else None
    args = value.child_by_field_name("arguments")
    kids = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    if obj is None or unwrap(obj).type != "identifier" or src.text(unwrap(obj)) not in params:
        return False
    if len(kids) != 1:
        return False
    first = "".join(src.text(kids[0]).split())
    return first.startswith("-") and first not in ("-1", "(-1)")
