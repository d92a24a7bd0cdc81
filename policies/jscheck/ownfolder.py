"""Listings of the program's own folder (PL105, PL203) dropped: a directory listing whose
folder is found from the module's own location and fixed text (`readdirSync(resolve(__dirname,
"./custom-tools"))`, `path.join(path.dirname(fileURLToPath(import.meta.url)), "../agents")`)
lists files shipped with the code: the same names, in the same order, on every request of
the process's life, so the prompt built from them keeps its bytes. A folder found from the
working directory (`process.cwd()`), a parameter, a setting or the environment is the user's or
the agent's workspace and is still reported, as is one the same file writes into (a data
folder the program fills while it runs). Pure: a module and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from .nowhere import parameters
from .syntax import FUNCTIONS, Source, arguments, callee_name, scope_of, unwrap, walk
from .values import Module
from .valuesite import value_site

_CODES = frozenset({"PL105", "PL203"})
_LISTINGS = frozenset({"readdir", "readdirSync", "opendir", "opendirSync", "glob", "globSync"})
# Calls that make a path of their arguments, and what they keep of them.
_JOINS = frozenset({"join", "resolve"})
_PARTS = frozenset({"dirname", "fileURLToPath", "normalize"})
# The module's own location: CommonJS globals and ES modules' `import.meta`.
_HERE = frozenset({"__dirname", "__filename"})
# Calls that write into a folder: a folder written into is not fixed while the program runs.
_WRITES = frozenset(
    {
        "writeFile",
        "writeFileSync",
        "appendFile",
        "appendFileSync",
        "mkdir",
        "mkdirSync",
        "rename",
        "renameSync",
        "copyFile",
        "copyFileSync",
        "createWriteStream",
        "outputFile",
        "outputJson",
        "writeJson",
        "writeJSON",
    }
)
_DEPTH = 8

# What a path expression is made of: the module's own location (with fixed parts), fixed text
# only (relative to the working directory), or anything else.
_HERE_PATH, _FIXED, _OTHER = "here", "fixed", "other"


def drop_own_folder(module: Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code in _CODES for f in found):
        return found
    own: dict[str, bool] = {}
    out: list[Finding] = []
    for f in found:
        if f.code in _CODES:
            if f.message not in own:
                own[f.message] = _own_listing(module, f.message)
            if own[f.message]:
                continue
        out.append(f)
    return out


def _own_listing(module: Module, message: str) -> bool:
    site = value_site(module, message)
    if site is None:
        return False
    there, line = site
    src = there.src
    calls = [
        n
        for n in walk(src.root)
        if n.type == "call_expression"
        and n.start_point[0] + 1 == line
        and callee_name(src, n) in _LISTINGS
    ]
    if not calls:
        return False
    for call in calls:
        args = arguments(call)
        if not args or _kind(there, args[0], 0) != _HERE_PATH:
            return False
        if _written(src, args[0]):
            return False
    return True


def _kind(m: Module, node: Node, depth: int) -> str:
    src = m.src
    n = unwrap(node)
    if depth > _DEPTH:
        return _OTHER
    if n.type == "string":
        return _FIXED
    if n.type == "template_string":
        parts = [
            _kind(m, s.named_children[0], depth + 1)
            for s in n.named_children
            if s.type == "template_substitution" and s.named_children
        ]
        return _combined(parts, leading=_leads_with_substitution(n))
    if n.type == "member_expression":
        return _HERE_PATH if src.text(n).startswith("import.meta.") else _OTHER
    if n.type == "identifier":
        return _name_kind(m, n, depth)
    if n.type == "binary_expression":
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        op = n.child_by_field_name("operator")
        if left is None or right is None or op is None or src.text(op) != "+":
            return _OTHER
        first, rest = _kind(m, left, depth + 1), _kind(m, right, depth + 1)
        if first == _HERE_PATH and rest == _FIXED:
            return _HERE_PATH
        return _FIXED if first == rest == _FIXED else _OTHER
    if n.type == "new_expression":
        # `new URL("../agents", import.meta.url)`: a path beside the module
        ctor = n.child_by_field_name("constructor")
        given = n.child_by_field_name("arguments")
        items = given.named_children if given is not None else []
        if (
            ctor is not None
            and src.text(ctor) == "URL"
            and len(items) == 2
            and _kind(m, items[0], depth + 1) == _FIXED
        ):
            return _kind(m, items[1], depth + 1)
        return _OTHER
    if n.type == "call_expression":
        name = callee_name(src, n)
        pieces = arguments(n)
        if name in _PARTS and len(pieces) == 1:
            return _kind(m, pieces[0], depth + 1)
        if name in _JOINS and pieces:
            kinds = [_kind(m, a, depth + 1) for a in pieces]
            if kinds[0] == _HERE_PATH and all(k == _FIXED for k in kinds[1:]):
                return _HERE_PATH
            return _FIXED if all(k == _FIXED for k in kinds) else _OTHER
    return _OTHER


def _leads_with_substitution(n: Node) -> bool:
    inner = [c for c in n.children if c.type not in ("`",)]
    return bool(inner) and inner[0].type == "template_substitution"


def _combined(parts: list[str], leading: bool) -> str:
    if not parts:
        return _FIXED
    if leading and parts[0] == _HERE_PATH and all(p == _FIXED for p in parts[1:]):
        return _HERE_PATH
    return _FIXED if all(p == _FIXED for p in parts) else _OTHER


def _name_kind(m: Module, ident: Node, depth: int) -> str:
    """What every value a name is bound to makes (its declaration and each later assignment,
    in its own function or an enclosing one up to the module); a name bound nowhere is the
    module's location where it is `__dirname` or `__filename`, else not known."""
    name = m.src.text(ident)
    scope: Node | None = scope_of(ident)
    while scope is not None:
        if scope.type in FUNCTIONS and name in parameters(m.src, scope):
            return _OTHER  # handed in by a caller
        values = m.values.get((scope.id, name))
        if values is not None:
            if not values:
                return _OTHER
            kinds = {_kind(m, v, depth + 1) for v in values}
            return kinds.pop() if len(kinds) == 1 else _OTHER
        scope = scope_of(scope) if scope.parent is not None else None
    return _HERE_PATH if name in _HERE else _OTHER


def _written(src: Source, folder: Node) -> bool:
    """Whether the file writes into the listed folder: a writing call whose path argument
    names the folder's expression or the name that holds it."""
    held = src.text(unwrap(folder))
    for n in walk(src.root):
        if n.type != "call_expression" or callee_name(src, n) not in _WRITES:
            continue
        args = arguments(n)
        if args and held in src.text(args[0]):
            return True
    return False
