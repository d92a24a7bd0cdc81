"""The Python source fixes: what a finding's fix edits in the code.

Safe fixes (`taint_fix`): wrap an unordered iteration in sorted() (PL201 when the iteration
joins strings, PL203 directory listings; unsafe for other PL201 orders) and add sort_keys=True
to json.dumps (PL202). The unsafe move fix (`MoveFix`) takes each line of a system prompt that
holds a volatile value (PL101-PL106) to the front of the newest user message of the same call,
and rewrites both as f-strings; `PromptText` reads the prompt as text pieces and values for it,
from an f-string, `.format`, a `+` chain, `"sep".join([...])` or `%`. Raises no rule itself:
`sinks` attaches these fixes to its findings.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import string
from typing import TypeAlias

from ..findings import Edit, Fix
from .context import Context
from .syntax import Function, const_str, dict_get, walk_no_defs
from .taint import ORDER, VOLATILE, Evaluator, Taint, Taints, kinds

# A prompt read as text pieces and values (ast.FormattedValue), in order.
Atom: TypeAlias = ast.expr | str
Prompt: TypeAlias = tuple[list[Atom], list[str]]  # and notes on where the rebuilt code differs
_FORMATTER = string.Formatter()
# Where a prompt rebuilt as an f-string may behave differently from the original: said in the
# fix's description.
_NOTE_CONCAT = (
    "operands of + not known to be str become {x}: the same text for any str, while "
    "a value that + refused (TypeError) is now printed"
)
_NOTE_JOIN = (
    "join items not known to be str become {x}: the same text for any str, while a "
    "value that join refused (TypeError) is now printed"
)
_NOTE_PERCENT_D = (
    "%d becomes {int(x)}: the same text for any number, while a str that %d "
    "refused is now converted"
)
_NOTE_PERCENT_ONE = (
    "the single value after % becomes one field: a tuple there, which % "
    "unpacked, is now printed whole"
)


def taint_fix(t: Taint) -> Fix | None:
    """The fix of an order or json taint, made where the taint arises."""
    if t.kind in ORDER and t.fix_span is not None:
        l1, c1, l2, c2 = t.fix_span
        return Fix(
            (Edit(l1, c1, l1, c1, "sorted("), Edit(l2, c2, l2, c2, ")")),
            safe=t.kind == "listing" or t.fix_join,
            description="wrap in sorted(...)",
        )
    if t.kind == "json":
        # Insert before the closing parenthesis of the json.dumps call.
        return Fix(
            (Edit(t.end_line, t.end_col - 1, t.end_line, t.end_col - 1, ", sort_keys=True"),),
            safe=True,
            description="add sort_keys=True",
        )
    return None


# --- the prompt as atoms ----------------------------------------------------------------------


class PromptText:
    """Reads a prompt expression as atoms: literal text and values, in order."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def atoms(self, node: ast.expr, env: dict[str, Taints]) -> Prompt | None:
        """The prompt's text as literal pieces and values (ast.FormattedValue) in order, when
        it is written in a form whose code the fix can rebuild as an f-string: an f-string,
        `"...".format(...)`, a `+` chain, `"sep".join([...])` or `"..." % values`. With notes
        on where the rebuilt code may behave differently (none for an f-string)."""
        if isinstance(node, ast.JoinedStr):
            return _fstring_atoms(node), []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            template = const_str(node.func.value)
            if template is not None and node.func.attr == "format":
                return _format_atoms(template, node)
            if template is not None and node.func.attr == "join":
                return self._join_atoms(template, node, env)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            template = const_str(node.left)
            return None if template is None else self._percent_atoms(template, node.right, env)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._concat_atoms(node, env)
        return None

    def _is_text(self, node: ast.expr, env: dict[str, Taints]) -> bool:
        """`node` certainly evaluates to a str: a literal, an f-string, str()/repr(), a
        `.format`/`.join`/`%` on a string literal, or a module-level string constant that is
        not rebound locally."""
        if const_str(node) is not None or isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.Name):
            ctx = self.ctx
            return node.id in ctx.consts and not (ctx.scope.in_function and node.id in env)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in ("str", "repr") and len(node.args) == 1
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return node.func.attr in ("format", "join") and const_str(node.func.value) is not None
        return (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and const_str(node.left) is not None
        )

    def _concat_atoms(self, node: ast.BinOp, env: dict[str, Taints]) -> Prompt | None:
        operands: list[ast.expr] = []
        stack: list[ast.expr] = [node]
        while stack:  # flattened left to right; a long chain is a deep tree
            n = stack.pop()
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
                stack += [n.right, n.left]
            else:
                operands.append(n)
        if not any(self._is_text(o, env) for o in operands):
            return None  # maybe not text at all
        found = self._items(operands, "", (ast.Constant,), env)  # `"a" + 1` raises
        return None if found is None else (found[0], [_NOTE_CONCAT] if found[1] else [])

    def _join_atoms(self, sep: str, call: ast.Call, env: dict[str, Taints]) -> Prompt | None:
        if (
            call.keywords
            or len(call.args) != 1
            or not isinstance(call.args[0], (ast.List, ast.Tuple))
        ):
            return None  # a generator, a name, ...: the items are not visible
        # A starred item is not visible; a constant that is not a str makes the join raise.
        found = self._items(call.args[0].elts, sep, (ast.Starred, ast.Constant), env)
        return None if found is None else (found[0], [_NOTE_JOIN] if found[1] else [])

    def _items(
        self,
        items: list[ast.expr],
        sep: str,
        refused: tuple[type[ast.expr], ...],
        env: dict[str, Taints],
    ) -> tuple[list[Atom], bool] | None:
        """The atoms of `items` put together with `sep` between them, and whether any item is
        not known to be a str; None when an item other than a str literal is `refused`."""
        atoms: list[Atom] = []
        unknown = False
        for i, e in enumerate(items):
            if i and sep:
                atoms.append(sep)
            if isinstance(e, ast.JoinedStr):
                atoms += _fstring_atoms(e)
            elif (s := const_str(e)) is not None:
                atoms.append(s)
            elif isinstance(e, refused):
                return None
            else:
                atoms.append(_value(e))
                unknown = unknown or not self._is_text(e, env)
        return atoms, unknown

    def _percent_atoms(
        self, template: str, right: ast.expr, env: dict[str, Taints]
    ) -> Prompt | None:
        values = list(right.elts) if isinstance(right, ast.Tuple) else [right]
        if any(isinstance(v, ast.Starred) for v in values):
            return None
        atoms: list[Atom] = []
        notes: list[str] = []
        text: list[str] = []
        pos = n = 0
        while (j := template.find("%", pos)) >= 0:
            text.append(template[pos:j])
            c = template[j + 1 : j + 2]
            pos = j + 2
            if c == "%":
                text.append("%")
                continue
            if c not in ("s", "d", "r") or n == len(values):
                return None  # flags, widths, mapping keys, other conversions; or % raises
            v = values[n]
            n += 1
            atoms.append("".join(text))
            text = []
            if c == "r":
                atoms.append(_value(v, ord("r")))
            elif c == "s":
                atoms.append(_value(v) if self._is_text(v, env) else _value(v, ord("s")))
            elif isinstance(v, ast.Constant) and type(v.value) is int:
                atoms.append(_value(v))
            else:
                # %d prints int(x) for every number it accepts (floats are truncated).
                atoms.append(_value(ast.Call(ast.Name("int", ast.Load()), [v], [])))
                notes.append(_NOTE_PERCENT_D)
        text.append(template[pos:])
        atoms.append("".join(text))
        if n != len(values):
            return None  # % raises: not all arguments converted
        if not isinstance(right, ast.Tuple) and not (
            self._is_text(right, env) or isinstance(right, ast.Constant)
        ):
            notes.append(_NOTE_PERCENT_ONE)
        return atoms, sorted(set(notes))


def _value(expr: ast.expr, conversion: int = -1, spec: str = "") -> Atom:
    """An f-string field for `expr`; a str or int literal printed as is becomes text."""
    if (
        isinstance(expr, ast.Constant)
        and type(expr.value) in (str, int)
        and not spec
        and conversion in (-1, ord("s"))
    ):
        return str(expr.value)
    return ast.FormattedValue(
        expr, conversion, ast.JoinedStr([ast.Constant(spec)]) if spec else None
    )


def _fstring_atoms(node: ast.JoinedStr) -> list[Atom]:
    return [v if isinstance(v, ast.FormattedValue) else (const_str(v) or "") for v in node.values]


def _format_atoms(template: str, call: ast.Call) -> Prompt | None:
    """`template.format(...)` with simple fields ({}, {0}, {name}, with !conversion and a
    constant :spec): str.format formats each as an f-string field does."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None  # *args / **kwargs: the fields' values are not visible
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError:
        return None
    named = {k.arg: k.value for k in call.keywords if k.arg is not None}
    uses: dict[int, int] = {}
    atoms: list[Atom] = []
    auto: bool | None = None  # automatic ({}) or manual ({0}) numbering; Python refuses both
    index = 0
    for literal, name, spec, conv in parsed:
        if literal:
            atoms.append(literal)
        if name is None:
            continue
        value: ast.expr | None
        if name == "" or (name.isascii() and name.isdigit()):
            if auto is (name != ""):
                return None
            auto = name == ""
            n = index if auto else int(name)
            index += auto
            value = call.args[n] if n < len(call.args) else None
        elif name.isidentifier():
            value = named.get(name)
        else:
            return None  # attribute or index fields ({0.name}, {x[0]})
        spec = spec or ""
        if value is None or conv not in (None, "s", "r", "a") or "{" in spec or "}" in spec:
            return None  # a missing argument, a bad conversion or a nested field
        uses[id(value)] = uses.get(id(value), 0) + 1
        atoms.append(_value(value, -1 if conv is None else ord(conv), spec))
    # Each argument is evaluated once by .format(); the f-string evaluates it once per field.
    # Only names and constants may be used twice or not at all.
    if any(
        uses.get(id(v), 0) != 1 and not isinstance(v, (ast.Name, ast.Constant))
        for v in [*call.args, *named.values()]
    ):
        return None
    return atoms, []


# --- the move fix ------------------------------------------------------------------------------


class MoveFix:
    """The unsafe fix that moves the volatile lines of a request's system prompt to its newest
    user message."""

    def __init__(self, ctx: Context, ev: Evaluator) -> None:
        self.ctx = ctx
        self.ev = ev
        self.text: PromptText = PromptText(ctx)

    def build(self, kw: dict[str, ast.expr], env: dict[str, Taints]) -> Fix | None:
        """The fix for a request given as call keywords or body-dict entries, if it has one."""
        ctx = self.ctx
        if not ctx.reporting:
            return None  # only the reporting pass attaches fixes to findings
        system = kw.get("system", kw.get("instructions"))
        msgs = kw.get("messages", kw.get("input"))
        # A prompt or message list built in a local variable used only here is edited where
        # it is built.
        if isinstance(system, ast.Name) or isinstance(msgs, ast.Name):
            scope = ctx.scope
            if scope.single_use is None:
                scope.single_use = _single_use(scope.fn) if scope.fn is not None else {}
            if isinstance(system, ast.Name):
                system = scope.single_use.get(system.id, system)
            if isinstance(msgs, ast.Name):
                msgs = scope.single_use.get(msgs.id, msgs)
        if (
            not isinstance(system, (ast.JoinedStr, ast.Call, ast.BinOp))
            or not isinstance(msgs, ast.List)
            or not msgs.elts
        ):
            return None
        if (
            msgs is not kw.get("messages", kw.get("input"))
            and (msgs.end_lineno or msgs.lineno) < system.lineno
        ):
            return None  # the list is built first: a moved value may not be bound there yet
        last = msgs.elts[-1]
        if not isinstance(last, ast.Dict) or const_str(dict_get(last, "role")) != "user":
            return None
        content = dict_get(last, "content")
        if not isinstance(content, (ast.Constant, ast.JoinedStr, ast.Name, ast.BinOp)):
            return None
        prompt = self.text.atoms(system, env)
        if prompt is None:
            return None
        atoms, notes = prompt
        return self._move_lines(system, content, atoms, notes, env)

    def _move_lines(
        self,
        system: ast.expr,
        content: ast.expr,
        atoms: list[Atom],
        notes: list[str],
        env: dict[str, Taints],
    ) -> Fix | None:
        """Split the prompt's atoms into lines, move the lines that hold a volatile value to
        the front of the newest user message, and rewrite both as f-strings."""
        lines: list[list[Atom]] = [[]]
        for a in atoms:
            if not isinstance(a, str):
                lines[-1].append(a)
                continue
            *done, tail = a.split("\n")
            for part in done:
                lines[-1].append(part + "\n")
                lines.append([])
            if tail:
                lines[-1].append(tail)
        keep: list[Atom] = []
        moved: list[Atom] = []
        for ln in lines:
            volatile = any(
                isinstance(a, ast.FormattedValue) and kinds(self.ev.ev(a, env)) & VOLATILE
                for a in ln
            )
            (moved if volatile else keep).extend(ln)

        def static(atoms: list[Atom]) -> int:
            return sum(len(a) for a in atoms if isinstance(a, str))

        # Only a line of a longer prompt moves; a one-line prompt is rewritten by hand.
        if not moved or not keep or static(moved) >= static(keep):
            return None
        if not (isinstance(moved[-1], str) and moved[-1].endswith("\n")):
            moved.append("\n")
        try:
            new_system = ast.unparse(_build(keep))
            new_content = ast.unparse(ast.BinOp(_build(moved), ast.Add(), content))
            for text in (new_system, new_content):
                ast.parse(text, mode="eval")
        except (ValueError, SyntaxError):
            # An expression this Python cannot write inside an f-string (a backslash before
            # 3.12, quotes of every kind): left for a person.
            return None
        description = "move the volatile line into the newest user message"
        if notes:
            description += " (" + "; ".join(notes) + ")"
        return Fix(
            (_replace(system, new_system), _replace(content, new_content)),
            safe=False,
            description=description,
        )


def _single_use(fn: Function) -> dict[str, ast.expr]:
    """A function's local names bound once by `name = value` and read once, with their value."""
    stores: dict[str, list[ast.expr | None]] = {}
    loads: dict[str, int] = {}
    for stmt in fn.body:
        for n in walk_no_defs(stmt):
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Load):
                    loads[n.id] = loads.get(n.id, 0) + 1
                else:
                    stores.setdefault(n.id, []).append(None)  # for, with, augmented, ...
            elif (
                isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name)
            ):
                stores.setdefault(n.targets[0].id, []).append(n.value)
    # An `x = value` statement is seen twice above: as the Assign and as its Store name.
    return {
        name: vals[0]
        for name, vals in stores.items()
        if len(vals) == 2 and vals[0] is not None and loads.get(name) == 1
    }


def _build(atoms: list[Atom]) -> ast.expr:
    vals: list[ast.expr] = []
    for a in atoms:
        if isinstance(a, str):
            if vals and isinstance(vals[-1], ast.Constant):
                vals[-1] = ast.Constant(str(vals[-1].value) + a)
            else:
                vals.append(ast.Constant(a))
        else:
            vals.append(a)
    if all(isinstance(x, ast.Constant) for x in vals):
        return ast.Constant("".join(str(x.value) for x in vals if isinstance(x, ast.Constant)))
    return ast.JoinedStr(vals)


def _replace(node: ast.expr, text: str) -> Edit:
    return Edit(
        node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0, text
    )
