"""What a function's code hands on, for the reach gate (`reach._Index.reaches_nothing`): the
names a file binds to the project's own modules (imported or required: what they do is not
read here, so a call of one may ask a model), whether a function writes state that outlives
its call (a field of `this`, a module's variable, an object it was handed: another function
may send what it keeps), and whether a call answers an HTTP client (`res.json(rows)`). Pure:
a parsed file in, names and verdicts out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..meaning import words
from .peritem import _idents
from .platform import project_imports
from .syntax import (
    FUNCTIONS,
    Source,
    callee_name,
    function_of,
    project_module,
    string_value,
    unwrap,
    walk,
)

# Calls that change the object they are called on: a list or a map kept by someone else.
_MUTATES = frozenset({"push", "unshift", "splice", "set", "add", "concat", "assign"})
# What writes an HTTP handler's answer (`res.json(rows)`, `c.json(...)`, `reply.send(...)`).
_ANSWERS = frozenset({"json", "send", "render", "end", "redirect", "status", "text", "html"})
# Words of a parameter that names the response object a framework hands a handler.
_RESPONSE = frozenset({"res", "response", "reply", "resp", "c", "ctx", "context"})
_RESPONSE_TYPES = frozenset({"NextResponse", "Response"})


def project_names(src: Source) -> frozenset[str]:
    """The names a file binds to the project's own modules: imported (`import { ask } from
    "./ai"`) or required (`const { ask } = require("./ai")`, `const ai = require("../ai")`)."""
    out = set(project_imports(src))
    for n in walk(src.root):
        if n.type != "variable_declarator":
            continue
        value = n.child_by_field_name("value")
        if value is None or not _requires_project(src, unwrap(value)):
            continue
        out |= _idents(src, n.child_by_field_name("name"))
    return frozenset(out)


def _requires_project(src: Source, value: Node) -> bool:
    while value.type == "member_expression":  # `require("./x").ask`
        obj = value.child_by_field_name("object")
        if obj is None:
            return False
        value = unwrap(obj)
    if value.type != "call_expression" or callee_name(src, value) != "require":
        return False
    args = value.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    spec = string_value(src, first) if first is not None else None
    return spec is not None and project_module(spec)


def parameters(src: Source, fn: Node) -> set[str]:
    """The names a function's parameters bind."""
    out: set[str] = set()
    params = fn.child_by_field_name("parameters")
    single = fn.child_by_field_name("parameter")  # `res => ...`
    for p in ([single] if single is not None else []) + (
        params.named_children if params is not None else []
    ):
        for i in walk(p):
            if i.type in ("identifier", "shorthand_property_identifier_pattern") and not any(
                a.type == "type_annotation" for a in _up(i, p)
            ):
                out.add(src.text(i))
    return out


def _up(node: Node, top: Node) -> list[Node]:
    out: list[Node] = []
    p = node.parent
    while p is not None and p.id != top.id:
        out.append(p)
        p = p.parent
    return out


def locals_of(src: Source, fn: Node) -> set[str]:
    """The names declared inside a function (its parameters, `const`/`let` names, inner
    functions): what it writes to any other name outlives the call."""
    out = parameters(src, fn)
    for n in walk(fn):
        if n.type == "variable_declarator":
            out |= _idents(src, n.child_by_field_name("name"))
        elif n.type in FUNCTIONS and n.id != fn.id:
            out |= parameters(src, n)
    return out


def _root(node: Node) -> Node:
    node = unwrap(node)
    while node.type in ("member_expression", "subscript_expression"):
        inner = node.child_by_field_name("object")
        if inner is None:
            break
        node = unwrap(inner)
    return node


def kept_in(src: Source, fn: Node, nodes: list[Node]) -> set[str]:
    """Where `fn` writes a value that outlives its call: `this` for a field of its object,
    else the names declared outside it (a module's variable) or handed in (an object of the
    caller's) whose fields it assigns or whose list or map it grows (`history.push(m)`,
    `state.messages = kept`, `cache.set(id, rows)`)."""
    own = locals_of(src, fn) - parameters(src, fn)
    out: set[str] = set()
    for n in nodes:
        target: Node | None = None
        if n.type in ("assignment_expression", "augmented_assignment_expression"):
            target = n.child_by_field_name("left")
        elif n.type == "call_expression" and callee_name(src, n) in _MUTATES:
            f = n.child_by_field_name("function")
            f = unwrap(f) if f is not None else None
            if f is not None and f.type == "member_expression":
                target = f.child_by_field_name("object")
        if target is None:
            continue
        root = _root(target)
        if root.type == "this":
            out.add("this")
        elif root.type == "identifier" and src.text(root) not in own:
            out.add(src.text(root))
    return out


def exported_name(src: Source, name: str) -> bool:
    """Whether a module-level name is exported (`export const queue = []`, `export { queue }`,
    `module.exports = { queue }`, `exports.queue = queue`): other files may read it."""
    for n in walk(src.root):
        if n.type == "export_statement" and any(
            i.type in ("identifier", "shorthand_property_identifier") and src.text(i) == name
            for i in walk(n)
        ):
            return True
        if n.type == "assignment_expression":
            left = src.text(n.child_by_field_name("left"))
            if left.startswith(("module.exports", "exports.")) and any(
                i.type in ("identifier", "shorthand_property_identifier") and src.text(i) == name
                for i in walk(n)
            ):
                return True
    return False


def answers_client(src: Source, call: Node) -> bool:
    """A call that writes an HTTP handler's answer on the response object it is handed
    (`res.json(rows)`, `reply.send(page)`): the value goes to the client, not to a model."""
    if callee_name(src, call) not in _ANSWERS:
        return False
    root = unwrap(call.child_by_field_name("function") or call)
    while root.type in ("member_expression", "call_expression"):  # `res.status(200).json`
        inner = root.child_by_field_name(
            "object" if root.type == "member_expression" else "function"
        )
        if inner is None:
            break
        root = unwrap(inner)
    if root.type != "identifier":
        return False
    name = src.text(root)
    holder = function_of(call)
    if name in _RESPONSE_TYPES:
        return True  # `NextResponse.json(rows)`, `Response.json(page)`
    return (
        holder is not None
        and name in parameters(src, holder)
        and bool(set(words(name)) & _RESPONSE)
    )


def module_bindings(src: Source) -> frozenset[str]:
    """The names a file binds at its top level: imported (from a package or the project) or
    declared (`const app = express()`, `const bus = new EventEmitter()`). A call on any other
    name (a global the file does not show) is not known to be a package's."""
    out: set[str] = set()
    for n in src.root.named_children:
        if n.type == "export_statement":
            n = n.child_by_field_name("declaration") or n
        if n.type == "import_statement":
            out |= {
                src.text(i)
                for i in walk(n)
                if i.type == "identifier"
                and i.parent is not None
                and i.parent.type in ("import_clause", "import_specifier", "namespace_import")
            }
        elif n.type in ("lexical_declaration", "variable_declaration"):
            for d in n.named_children:
                if d.type == "variable_declarator":
                    out |= _idents(src, d.child_by_field_name("name"))
    return frozenset(out)
