"""A history window cut by a helper of another module of the project: `import { lastOf } from
"./util"`, where `lastOf` returns a parameter's last items (`xs.slice(-n)`), and the call's
result sent after a system prompt here; or a helper (imported, or `require`d as a module's
`module.exports`) in whose body the window rules find a cut by a budget (the newest messages
kept while a token or character count lasts, the oldest dropped while over it), its result
sent as a request's `messages`. The helper's module sends nothing, so the cut is seen only
where it is called. Pure: the other module is read through the evaluator's loader.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import SIDE_WORDS, words
from .capwindows import check_cap_windows
from .reach import window_sent
from .structure import _WINDOW, _for_side_request, check_windows
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    callee_name,
    key_name,
    project_module,
    string_value,
    unwrap,
    walk,
)
from .values import Evaluator

_KEEP_ORDER = frozenset({"map", "filter"})


def check_imported_windows(src: Source, ev: Evaluator) -> list[Finding]:
    out: list[Finding] = []
    cuts: dict[str, list[int]] = {}  # the window lines found in each helper's module
    for call in walk(src.root):
        if call.type != "call_expression":
            continue
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "identifier":
            continue
        name = src.text(fn)
        spec, remote = ev.m.imports.get(name, ("", "*"))
        if remote == "*":
            spec, remote = _required(src, name), "module.exports"
        if not spec or not project_module(spec):
            continue
        other = ev.other(spec)
        if other is None:
            continue
        home: Evaluator | None = other
        helper: Node | None
        if remote == "module.exports":
            helper = _module_exports(other.src)
        else:
            home, _, helper = other.exported(remote)
        if home is None or helper is None or _for_side_request(src, call):
            continue
        if _returns_last_items(home.src, helper) and window_sent(
            src, call, aside=lambda c: _for_side_request(src, c)
        ):
            what = "the messages sent are cut to the last ones"
        elif (
            _returns(home.src, helper)
            and _budget_cut_in(home.src, helper, cuts)
            and any(
                window_sent(src, at, aside=lambda c: _for_side_request(src, c))
                or _sent_as_messages(src, at)
                for at in _converted(src, call)
            )
        ):
            what = "the messages sent are cut to a window"
        else:
            continue
        out.append(src.finding(call, "PL303", f"{what} by `{name}` (from {spec}): {_WINDOW}"))
    return out


def _converted(src: Source, call: Node) -> list[Node]:
    """The call, and the call that converts its result when it is that call's only argument
    (`messagesToOpenAIMessages(createAgentHistory(enc, model, 500, history))`): a list handed
    whole to a converter goes where the converter's result goes (not into a side request)."""
    out = [call]
    args = call.parent
    outer = args.parent if args is not None and args.type == "arguments" else None
    if (
        outer is not None
        and outer.type == "call_expression"
        and len(arguments(outer)) == 1
        and not set(words(callee_name(src, outer))) & SIDE_WORDS
        and not _for_side_request(src, outer)
    ):
        out.append(outer)
    return out


def _required(src: Source, name: str) -> str:
    """`const trim = require("./trim")`: the module a local is bound to whole (its
    `module.exports`), or "" when it is bound to no `require` of one."""
    for d in walk(src.root):
        if d.type != "variable_declarator" or src.text(d.child_by_field_name("name")) != name:
            continue
        value = d.child_by_field_name("value")
        value = unwrap(value) if value is not None else None
        if (
            value is not None
            and value.type == "call_expression"
            and callee_name(src, value) == "require"
            and arguments(value)
        ):
            return string_value(src, unwrap(arguments(value)[0])) or ""
    return ""


def _module_exports(src: Source) -> Node | None:
    """The function a CommonJS module exports whole: `module.exports = function f(...) {...}`,
    or `module.exports = f` for a function declared in the module."""
    for a in walk(src.root):
        if a.type != "assignment_expression":
            continue
        if "".join(src.text(a.child_by_field_name("left")).split()) != "module.exports":
            continue
        right = a.child_by_field_name("right")
        right = unwrap(right) if right is not None else None
        if right is not None and right.type in FUNCTIONS:
            return right
        if right is not None and right.type == "identifier":
            for f in walk(src.root):
                named = f.child_by_field_name("name")
                if f.type in FUNCTIONS and named is not None and src.text(named) == src.text(right):
                    return f
    return None


def _returns(src: Source, fn: Node) -> bool:
    """The helper hands back a value (a cut made in place and not returned is seen where the
    list lives)."""
    body = fn.child_by_field_name("body")
    if body is None:
        return False
    if body.type != "statement_block":
        return True
    return any(r.type == "return_statement" and r.named_children for r in walk(body))


def _budget_cut_in(src: Source, fn: Node, cuts: dict[str, list[int]]) -> bool:
    """Whether the window rules find a cut inside the helper's body in its own module: the
    newest messages kept while a budget lasts, the oldest dropped while over it. Each module's
    findings are made once a file."""
    if src.path not in cuts:
        found = check_windows(src) + check_cap_windows(src)
        cuts[src.path] = [f.line for f in found if f.code == "PL303"]
    first, last = fn.start_point[0] + 1, fn.end_point[0] + 1
    return any(first <= line <= last for line in cuts[src.path])


def _sent_as_messages(src: Source, call: Node) -> bool:
    """The call's result is a request's `messages`: the value of that key (`{ messages:
    trimHistory(h) }`), or a local bound to it that a later object of the function gives as
    its `messages` (`const trimmed = trimHistory(h)`, or `kept = trimHistory(h)` reassigning one,
    then `callLLM({ messages: trimmed })` or `return { messages: kept }`)."""
    holder = call.parent
    while holder is not None and holder.type in ("await_expression", "parenthesized_expression"):
        holder = holder.parent
    if holder is None:
        return False
    if holder.type == "pair":
        return key_name(src, holder.child_by_field_name("key")) == "messages"
    if holder.type == "variable_declarator":
        local = src.text(holder.child_by_field_name("name"))
    elif holder.type == "assignment_expression":
        # `let kept = messages; if (over) kept = trimHistory(messages)`: a local reassigned
        left = holder.child_by_field_name("left")
        if left is None or unwrap(left).type != "identifier":
            return False
        local = src.text(unwrap(left))
    else:
        return False
    scope = holder.parent
    while scope is not None and scope.type not in FUNCTIONS:
        scope = scope.parent
    for x in walk(scope) if scope is not None else ():
        if x.type == "pair" and key_name(src, x.child_by_field_name("key")) == "messages":
            value = x.child_by_field_name("value")
            if value is not None and src.text(unwrap(value)) == local:
                return True
        if x.type == "shorthand_property_identifier" and src.text(x) == local == "messages":
            return True
    return False


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
