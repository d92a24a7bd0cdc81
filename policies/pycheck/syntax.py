"""Small readers of Python syntax trees that every analysis shares: a walk listed once per node,
dotted names, string literals, literal dict entries, a walk that stays out of nested
definitions, the names in a node, what an assignment writes to, the parts of a list written in
order, and the text of a prompt written as constants. Raises no rule."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator, Mapping

Function = ast.FunctionDef | ast.AsyncFunctionDef


def walk_cached(node: ast.AST) -> tuple[ast.AST, ...]:
    """The nodes `ast.walk(node)` yields (the node first, then breadth first), listed once per
    node and kept on it: the checks each walk the same module and the same functions, dozens of
    walks of one tree a file, and the trees are never changed after parsing."""
    cached: tuple[ast.AST, ...] | None = node.__dict__.get("_walked")
    if cached is None:
        cached = tuple(ast.walk(node))
        node.__dict__["_walked"] = cached
    return cached


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a name or attribute chain, with `()` after a call inside it (`f().x`)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = dotted(node.func)
        if inner is not None:
            parts.append(inner + "()")
            return ".".join(reversed(parts))
    return None


def last_name(node: ast.AST) -> str:
    """The last name of a name or attribute (`x` of `x`, `c` of `a.b.c`); "" for others."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def callee(call: ast.Call) -> str:
    """The last name of what a call calls (`f` of `f(x)`, `g` of `a.b.g(x)`); "" for others."""
    return last_name(call.func)


def count_from_end(index: ast.AST | None) -> int | None:
    """`-n` as n, for a constant integer n (an index or slice bound counted from the end);
    None for anything else."""
    if (
        isinstance(index, ast.UnaryOp)
        and isinstance(index.op, ast.USub)
        and isinstance(index.operand, ast.Constant)
        and type(index.operand.value) is int
    ):
        return index.operand.value
    return None


def const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def dict_get(d: ast.Dict, key: str) -> ast.expr | None:
    """The value of a literal dict's entry with the string key `key`."""
    for k, v in zip(d.keys, d.values, strict=True):
        if const_str(k) == key:
            return v
    return None


def dict_keys(d: ast.Dict) -> set[str]:
    return {s for k in d.keys if (s := const_str(k)) is not None}


def walk_no_defs(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what it contains, leaving out nested functions, classes and lambdas."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(c)


def names_in(node: ast.AST) -> set[str]:
    """Every plain name read or bound inside `node`."""
    return {n.id for n in walk_cached(node) if isinstance(n, ast.Name)}


def assigned(node: ast.AST) -> list[ast.expr]:
    """What an assignment statement writes to (`a = b = v`, `a += v`, `a: T = v`); none for any
    other node."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def operands(node: ast.expr) -> list[ast.expr] | None:
    """The parts of a list written in order: `a + b + c`, or the items of `[*a, *b, c]`; None
    for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = operands(node.left) or [node.left]
        return [*left, node.right]
    if isinstance(node, ast.List) and any(isinstance(e, ast.Starred) for e in node.elts):
        return [e.value if isinstance(e, ast.Starred) else e for e in node.elts]
    return None


def static_text(node: ast.expr | None, consts: Mapping[str, str]) -> str | None:
    """The text of a prompt written with literals and module-level string constants (`+`,
    `* n`, `.strip()`, a list of `{"text": ...}` blocks); None when any part of it is not."""
    if node is None:
        return None
    s = const_str(node)
    if s is not None:
        return s
    if isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = static_text(node.left, consts), static_text(node.right, consts)
        return None if a is None or b is None else a + b
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mult)
        and isinstance(node.right, ast.Constant)
        and isinstance(node.right.value, int)
    ):
        a = static_text(node.left, consts)
        return None if a is None else a * min(node.right.value, 10_000)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and (node.func.attr in ("strip", "lstrip", "rstrip"))
    ):
        return static_text(node.func.value, consts)
    if isinstance(node, ast.List):
        parts: list[str] = []
        for e in node.elts:
            t = static_text(dict_get(e, "text"), consts) if isinstance(e, ast.Dict) else None
            if t is None:
                return None
            parts.append(t)
        return "".join(parts)
    return None


def format_fields(text: str) -> frozenset[str] | None:
    """The names `str.format` fills in `text` (`"{a.b} {c[0]}"` -> {"a", "c"}; positional
    fields as their index, `"{}"` as ""); None where it cannot tell (a field inside a format
    spec, `"{x:{width}}"`, or text `str.format` rejects)."""
    out: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for _, name, spec, _ in parsed:
        if name is None:
            continue
        if spec and "{" in spec:
            return None
        out.add(re.split(r"[.\[]", name, maxsplit=1)[0])
    return frozenset(out)
