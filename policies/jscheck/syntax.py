"""TypeScript/JavaScript syntax trees: tree-sitter's grammars chosen by file suffix, and the
few node helpers the checks share (text, position, scope, names).

tree-sitter is a maintained incremental parser with published grammars for TypeScript, TSX and
JavaScript (JSX included); it recovers from syntax errors, so a file with one bad line is still
read around it.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from ..findings import Finding, source_lines
from ..meaning import words

JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"})

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
# Wrappers that leave their operand's value as it is.
TRANSPARENT = frozenset(
    {
        "parenthesized_expression",
        "await_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
        "type_assertion",
        "spread_element",
    }
)


@functools.cache
def _language(kind: str) -> Language:
    if kind == "tsx":
        return Language(tree_sitter_typescript.language_tsx())
    if kind == "ts":
        return Language(tree_sitter_typescript.language_typescript())
    return Language(tree_sitter_javascript.language())


def grammar_of(path: str) -> str:
    low = path.lower()
    if low.endswith(".tsx"):
        return "tsx"
    if low.endswith((".ts", ".mts", ".cts")):
        return "ts"
    return "js"


@dataclass
class Source:
    """One parsed file: its path, bytes and tree, and byte offsets of its lines."""

    path: str
    data: bytes
    root: Node
    line_starts: list[int]

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def pos(self, node: Node) -> tuple[int, int]:
        """1-based line and column (in characters) of a node's start."""
        row, col = node.start_point
        start = self.line_starts[row] if row < len(self.line_starts) else 0
        return row + 1, len(self.data[start : start + col].decode("utf-8", "replace")) + 1

    @functools.cached_property
    def lines(self) -> list[str]:
        """The file's lines, as findings quote them (split once, for every check)."""
        return source_lines(self.data.decode("utf-8", "replace"))

    def finding(self, node: Node, code: str, message: str) -> Finding:
        """A finding at `node`'s start, quoting its line."""
        line, col = self.pos(node)
        quoted = self.lines[line - 1] if line <= len(self.lines) else ""
        return Finding(self.path, line, col, code, message, source_line=quoted)


def parse(path: str, text: str) -> Source:
    data = text.encode("utf-8")
    tree = Parser(_language(grammar_of(path))).parse(data)
    starts = [0]
    for i, b in enumerate(data):
        if b == 10:
            starts.append(i + 1)
    return Source(path, data, tree.root_node, starts)


def walk(node: Node) -> Iterator[Node]:
    """Every node below `node` (itself included), in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def bindings(src: Source, last_word: str) -> Iterator[tuple[Node, Node]]:
    """Each `const <name> = value` and `{ <name>: value }` whose name ends in the word
    `last_word` (`tools`, `activeTools`; `model`), as (the declarator or pair, its value)."""
    for n in walk(src.root):
        if n.type == "variable_declarator":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
        elif n.type == "pair":
            name, value = n.child_by_field_name("key"), n.child_by_field_name("value")
        else:
            continue
        if name is not None and value is not None and words(src.text(name))[-1:] == [last_word]:
            yield n, value


def scope_of(node: Node) -> Node:
    """The function (or the program) whose body holds `node`."""
    p = node.parent
    while p is not None:
        if p.type in FUNCTIONS or p.parent is None:
            return p
        p = p.parent
    return node


def function_of(node: Node) -> Node | None:
    """The function whose body holds `node`; None at the top level (unlike `scope_of`)."""
    p = node.parent
    while p is not None and p.type not in FUNCTIONS:
        p = p.parent
    return p


def declared_value(src: Source, at: Node, name: str | None = None) -> Node | None:
    """The value the local `name` (by default `at`'s own text: an identifier) is declared with
    in the function around `at` (the first `const`/`let`/`var` of that name there), or None."""
    name = src.text(at) if name is None else name
    fn = function_of(at)
    for d in walk(fn) if fn is not None else ():
        if d.type == "variable_declarator" and src.text(d.child_by_field_name("name")) == name:
            return d.child_by_field_name("value")
    return None


def local_uses(src: Source, scope: Node, declarator: Node) -> list[Node]:
    """The identifiers in `scope` that read the local a `variable_declarator` declares (its own
    name node left out)."""
    name_node = declarator.child_by_field_name("name")
    if name_node is None:
        return []
    name = src.text(name_node)
    return [
        x
        for x in walk(scope)
        if x.type == "identifier" and src.text(x) == name and x.id != name_node.id
    ]


def project_module(spec: str) -> bool:
    """Whether an import names a file of the project (relative, by a `src`, `@/` or `~/` alias,
    or a package.json `#` subpath), not an installed package."""
    return spec.startswith((".", "/", "@/", "~/", "src/", "#"))


def unwrap(node: Node) -> Node:
    while node.type in TRANSPARENT and node.named_child_count:
        node = node.named_children[0]
    return node


def string_value(src: Source, node: Node | None) -> str | None:
    """The text of a string literal, or of a template literal without substitutions."""
    if node is None:
        return None
    node = unwrap(node)
    if node.type == "string" or (
        node.type == "template_string"
        and not any(c.type == "template_substitution" for c in node.children)
    ):
        return src.text(node)[1:-1]
    return None


def key_name(src: Source, node: Node | None) -> str | None:
    """The name of a property key (`system:`, `"system":`, `["system"]` as a literal)."""
    if node is None:
        return None
    if node.type in ("property_identifier", "identifier", "private_property_identifier"):
        return src.text(node)
    return string_value(src, node)


def object_pairs(src: Source, obj: Node) -> dict[str, Node]:
    """The properties of an object literal by key (`{ messages }` maps to its identifier)."""
    out: dict[str, Node] = {}
    for c in obj.named_children:
        if c.type == "pair":
            k = key_name(src, c.child_by_field_name("key"))
            v = c.child_by_field_name("value")
            if k is not None and v is not None:
                out[k] = v
        elif c.type == "shorthand_property_identifier":
            out[src.text(c)] = c
    return out


def function_name(src: Source, fn: Node) -> str:
    """A function's name, or that of the variable it is assigned to (`const f = () => ...`);
    "" for an anonymous one."""
    name = fn.child_by_field_name("name")
    if name is None and fn.parent is not None and fn.parent.type == "variable_declarator":
        name = fn.parent.child_by_field_name("name")
    return src.text(name)


def value_name(src: Source, node: Node) -> str:
    """The last name a value is read by: `props.messageSliceId` -> `messageSliceId`,
    `startIndex`, `{ messages }`; "" for anything else (a call, a literal)."""
    node = unwrap(node)
    if node.type == "member_expression":
        return src.text(node.child_by_field_name("property"))
    if node.type in ("identifier", "shorthand_property_identifier"):
        return src.text(node)
    return ""


def callee_name(src: Source, call: Node) -> str:
    """The last name of what a call or `new` calls: `execSync`, `toISOString`, `Date`."""
    fn = call.child_by_field_name("function") or call.child_by_field_name("constructor")
    if fn is None:
        return ""
    fn = unwrap(fn)
    if fn.type == "member_expression":
        return src.text(fn.child_by_field_name("property"))
    if fn.type in ("identifier", "property_identifier"):
        return src.text(fn)
    return ""


def arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "arguments":
        return []
    return [a for a in args.named_children if a.type != "comment"]
