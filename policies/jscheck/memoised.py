"""Volatile and order findings (PL1xx, PL20x) dropped where the value is read in a memoised
function: one that returns a module-level cache when it is filled (`if (cachedGitStatus) return
cachedGitStatus;`, `if (cache.has(cwd)) return cache.get(cwd);`, or a local read from it) and
fills it itself (`cachedGitStatus = ...`, `cache.set(cwd, ...)`). The value is read on the
first call and the same bytes are sent after it, for the life of the process or until the cache
is cleared between sessions. Pure: a tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from .syntax import FUNCTIONS, Source, unwrap, walk

_VALUE_LINE = re.compile(
    r" (?:value|listing|collection) \(.*?, line (\d+)\) (?:that reaches|into) "
)
# Volatile values (PL1xx) and the order of a listing or a set (PL20x): both fixed by the cache.
_CACHED_CODES = ("PL1", "PL20")


def _module_names(src: Source) -> set[str]:
    """Names a `let`, `var` or `const` at the top of the module binds."""
    out: set[str] = set()
    for st in src.root.named_children:
        if st.type == "export_statement" and st.named_children:
            st = st.named_children[0]
        if st.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for d in st.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None and name.type == "identifier":
                out.add(src.text(name))
    return out


def _cache_read(src: Source, value: Node, module: set[str]) -> str | None:
    """`cached` or `cache.get(key)` for a module-level `cached` or `cache`."""
    v = unwrap(value)
    if v.type == "identifier" and src.text(v) in module:
        return src.text(v)
    if v.type == "call_expression":
        f = v.child_by_field_name("function")
        if f is not None and f.type == "member_expression":
            obj = f.child_by_field_name("object")
            prop = src.text(f.child_by_field_name("property"))
            if prop == "get" and obj is not None and src.text(obj) in module:
                return src.text(obj)
    return None


def _local_value(src: Source, fn: Node, value: Node) -> Node:
    """What a local of `fn` returned by name was declared as (`const cached = cache.get(mode);
    if (cached) return cached;`), else `value` itself."""
    v = unwrap(value)
    if v.type != "identifier":
        return value
    name = src.text(v)
    for d in walk(fn):
        if d.type == "variable_declarator" and src.text(d.child_by_field_name("name")) == name:
            init = d.child_by_field_name("value")
            return init if init is not None else value
    return value


def _fills(src: Source, fn: Node, cache: str) -> bool:
    for n in walk(fn):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and src.text(left) == cache:
                return True
        elif n.type == "call_expression":
            f = n.child_by_field_name("function")
            if (
                f is not None
                and f.type == "member_expression"
                and src.text(f.child_by_field_name("object")) == cache
                and src.text(f.child_by_field_name("property")) == "set"
            ):
                return True
    return False


def _memoised(src: Source, fn: Node, module: set[str]) -> bool:
    body = fn.child_by_field_name("body")
    if body is None or body.type != "statement_block":
        return False
    for st in body.named_children[:3]:  # the cache is checked first
        if st.type != "if_statement":
            continue
        for r in walk(st.child_by_field_name("consequence") or st):
            if r.type == "return_statement" and r.named_children:
                cache = _cache_read(src, _local_value(src, fn, r.named_children[0]), module)
                if cache is not None and _fills(src, fn, cache):
                    return True
    return False


def drop_memoised(src: Source, found: list[Finding]) -> list[Finding]:
    lines = {
        int(m.group(1)): f
        for f in found
        if f.code.startswith(_CACHED_CODES) and (m := _VALUE_LINE.search(f.message))
    }
    if not lines:
        return found
    module = _module_names(src)
    cached: set[int] = set()
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS or not _memoised(src, fn, module):
            continue
        first, last = fn.start_point[0] + 1, fn.end_point[0] + 1
        cached |= {line for line in lines if first <= line <= last}
    return [
        f
        for f in found
        if not (
            f.code.startswith(_CACHED_CODES)
            and (m := _VALUE_LINE.search(f.message))
            and int(m.group(1)) in cached
        )
    ]
