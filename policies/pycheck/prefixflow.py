"""PL303 and PL304 by data flow, in Python: start at each request (a call given `messages=`),
follow the message list back to every write of it in the function, whatever its names, and
classify each write by where it lands (`..prefixflow`); follow the system prompt at the head of
that list, and every other message its literal puts before the history (`[system, {"role":
"system", "content": notes}, *history, user]`), back to every write of it and report what this
request brought into it.

The list: a copy of a history (`list(h)`, `h.copy()`, `h[:]`, `[*h]`, `copy.deepcopy(h)`), the
kept history itself (an attribute, `self.messages`, or a parameter), or a list built here
(a literal; `+= h`, `.extend(h)`, `*h`, a loop over the stored history that appends a
message a row add the history). Writes: `m[i] = v`, `m[i][k] = v`,
`m[i].k = v` (rewrite, not at `-1`), `m.insert(k, v)` (not at `len(m)`), `m.pop(0)`,
`del m[k]`, `m.sort()`, `m.reverse()`, `m = [x for x in m if c]` (filter).
What this request brings: the names written into its newest user message, and the history (a
local's name, or a field's path such as `request.messages`, not its owner; a pick of the
history's head seeds nothing); what changes per step: a loop's item around the request, an
answer bound in it, the parameters of a hook run before every model call. A local is made from
them when an assignment to it reads one (to a fixed point). Pure: a syntax tree in, findings
out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass

from ..findings import Finding
from ..meaning import HISTORY_WORDS, names_request, words
from ..prefixflow import Write, breaks, history_message, made_from, system_message
from .context import Context
from .syntax import callee, const_str, dict_get, last_name, walk_cached

Fn = ast.FunctionDef | ast.AsyncFunctionDef
_COPY_CALLS = frozenset({"list", "copy", "deepcopy", "tuple"})
_BUILTINS = frozenset(dir(builtins))
_SYSTEM_CLASSES = frozenset({"SystemMessage", "SystemChatMessage"})
_USER_CLASSES = frozenset({"HumanMessage", "UserMessage"})
# Decorators of hooks an agent framework calls before each model call (LangChain 1.x agent
# middleware: `before_model`, `wrap_model_call`, `dynamic_prompt`).
_PER_CALL_HOOKS = frozenset({"before_model", "wrap_model_call", "dynamic_prompt"})
# The keywords of a request that carry its system prompt.
_SYSTEM_KWARGS = frozenset({"system", "instructions", "system_prompt"})


def _names(node: ast.AST | None) -> set[str]:
    """The names a value reads (not the functions it calls by name)."""
    if node is None:
        return set()
    called = {id(n.func) for n in walk_cached(node) if isinstance(n, ast.Call)}
    return {
        n.id
        for n in walk_cached(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called
    }


def _body(fn: Fn) -> Iterator[ast.AST]:
    """The nodes of a function, not those of functions nested in it."""
    stack: list[ast.AST] = [
        s for s in fn.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.append(c)


def _role_of(node: ast.AST) -> tuple[str, ast.expr | None] | None:
    """(role, content) of a message written out: `{"role": r, "content": c}` or a framework's
    `SystemMessage(c)` / `HumanMessage(content=c)`."""
    if isinstance(node, ast.Dict):
        role = const_str(dict_get(node, "role"))
        return (role, dict_get(node, "content")) if role is not None else None
    if isinstance(node, ast.Call):
        name = callee(node)
        content = node.args[0] if node.args else None
        for k in node.keywords:
            if k.arg == "content":
                content = k.value
        if name in _SYSTEM_CLASSES:
            return "system", content
        if name in _USER_CLASSES:
            return "user", content
    return None


def _sources(value: ast.expr) -> set[str]:
    """The histories a value adds to a list: a local's name (what is computed from it is
    made from the history), or, for a field or a call's result (`request.messages`), its text:
    it makes the list a history but no other name read from its owner (`request.model`)."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.BinOp):
        return _sources(value.left) | _sources(value.right)
    if isinstance(value, (ast.List, ast.Tuple, ast.Constant)):
        return set()
    return {ast.unparse(value)}


# A helper named for the history's first message (`first_user_message_text(messages)`).
_FIRST = frozenset({"first", "initial", "opening"})
_SETTLED = frozenset(
    {"system", "instructions", "persona", "profile", "settings", "model", "tools", "functions"}
)


@dataclass(frozen=True)
class _Read:
    node: ast.expr
    text: str


def _read_from(value: ast.AST | None, made: set[str]) -> _Read | None:
    """The first read in a value of a made local, or of a history read by its field
    (`request.messages`, also inside `request.messages[-1].content`); None if none. The names
    of functions called by name are no read."""
    if value is None:
        return None
    called = {id(n.func) for n in walk_cached(value) if isinstance(n, ast.Call)}
    # `opts.system_prompt` beside `opts.user_message`: the caller's own setting for the whole
    # conversation, not content of this request.
    settled = {
        id(n.value)
        for n in walk_cached(value)
        if (isinstance(n, ast.Attribute) and set(words(n.attr)) & _SETTLED)
        # `msg["tools"]`: the tool list the request carries, passed on as it came
        or (isinstance(n, ast.Subscript) and set(words(const_str(n.slice) or "")) & _SETTLED)
    }
    keyed = any("[" in m for m in made)  # a history read by its key: `self.chats[cid]`
    for n in walk_cached(value):
        if id(n) in called or id(n) in settled:
            continue
        if isinstance(n, ast.Name) and n.id in made and n.id not in _BUILTINS:
            return _Read(n, n.id)
        if (isinstance(n, ast.Attribute) or (isinstance(n, ast.Subscript) and keyed)) and (
            text := ast.unparse(n)
        ) in made:
            return _Read(n, text)
    return None


def _mapped_history(value: ast.expr) -> ast.expr | None:
    """The history a comprehension maps message by message, keeping each one's role
    (`[{"role": m.role, "content": m.content} for m in history]`): a copy in the API's shape.
    A fixed role (`{"role": "user", ...} for q in questions`) makes new messages, no copy."""
    if not (isinstance(value, ast.ListComp) and isinstance(value.elt, ast.Dict)):
        return None
    role = dict_get(value.elt, "role")
    if role is None or const_str(role) is not None:
        return None
    return value.generators[0].iter


def _grown_part(n: ast.AST) -> tuple[str, ast.stmt] | None:
    """`parts.append(v)` / `parts.extend(v)` as a statement: the local grown, and the
    statement (its value, the call, reads what it adds)."""
    if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)):
        return None
    func = n.value.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in ("append", "extend")
        and isinstance(func.value, ast.Name)
    ):
        return func.value.id, n
    return None


def _per_call_hook(fn: Fn) -> bool:
    """Whether a function is a hook an agent framework runs before every model call
    (LangChain's `@before_model`, `@wrap_model_call`, `@dynamic_prompt`)."""
    for dec in fn.decorator_list:
        d = dec.func if isinstance(dec, ast.Call) else dec
        name = d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else ""
        if name in _PER_CALL_HOOKS:
            return True
    return False


def _head_pick(value: ast.expr, made: set[str]) -> bool:
    """Whether a value picks the head of a history (`h[0]`, `h[0]["content"]`, `next(m for m in
    h if ...)`): what was cached first, the same on every request, so nothing made from it."""
    while isinstance(value, (ast.Subscript, ast.Attribute)):
        if isinstance(value, ast.Subscript) and (
            (isinstance(value.value, ast.Name) and value.value.id in made)
            or ast.unparse(value.value) in made  # `self.messages[0]`: the kept history's
        ):
            return isinstance(value.slice, ast.Constant) and value.slice.value == 0
        value = value.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args:
        arg = value.args[0]
        if set(words(value.func.id)) & _FIRST:
            # `first_user_message_text(messages)`: a helper named for the head's text.
            return any(isinstance(a, ast.Name) and a.id in made for a in value.args)
        return (
            value.func.id == "next"
            and isinstance(arg, ast.GeneratorExp)
            and bool(_names(arg.generators[0].iter) & made)
        )
    return False


def _copied(value: ast.expr) -> ast.expr | None:
    """The history a value copies: `list(h)`, `h.copy()`, `h[:]`, `[*h]`, `deepcopy(h)`."""
    if isinstance(value, ast.Call):
        f = value.func
        name = callee(value)
        if name in _COPY_CALLS and len(value.args) == 1:
            return value.args[0]
        if name == "copy" and isinstance(f, ast.Attribute) and not value.args:
            return f.value
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.slice, ast.Slice)
        and value.slice.lower is None
        and value.slice.upper is None
    ):
        return value.value
    if (
        isinstance(value, ast.List)
        and len(value.elts) == 1
        and isinstance(value.elts[0], ast.Starred)
    ):
        return value.elts[0].value
    return None


def _method(node: ast.AST, name: str) -> tuple[str, list[ast.expr]] | None:
    """The method a call on the list `name` makes and its arguments (`name.verb(*args)`)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == name
    ):
        return node.func.attr, node.args
    return None


def _is_first(index: ast.expr) -> bool:
    return isinstance(index, ast.Constant) and index.value == 0


def _is_last(index: ast.expr, name: str) -> bool:
    """`-1` or `len(m) - 1` / `len(m)`: the end of the list, where a write adds nothing earlier."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        return isinstance(index.operand, ast.Constant) and index.operand.value == 1
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "len"
        and _names(n) == {name}
        for n in walk_cached(index)
    )


def _base(node: ast.expr) -> tuple[str, ast.expr] | None:
    """(list name, index) of `m[i]`, `m[i][k]`, `m[i].k`."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        inner = node.value
        if (
            isinstance(node, ast.Subscript)
            and isinstance(inner, ast.Name)
            and not isinstance(node.slice, ast.Slice)
        ):
            return inner.id, node.slice
        node = inner
    return None


class _Function:
    """One function's requests, the list each sends and the writes of that list."""

    def __init__(self, fn: Fn, ctx: Context) -> None:
        self.fn = fn
        self.ctx = ctx
        self.nodes = list(_body(fn))
        self.params = {
            a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
        } - {"self", "cls"}
        self.assigned: dict[str, list[ast.stmt]] = {}
        # What feeds each local: its assignments and the parts it is grown with
        # (`sys_parts.append(ctx_str)`: a list of parts joined into a prompt later).
        self.fed: dict[str, list[ast.stmt]] = {}
        self.loop_vars: set[str] = set()
        for n in self.nodes:
            for t in self._targets(n):
                self.assigned.setdefault(t, []).append(n)  # type: ignore[arg-type]
                self.fed.setdefault(t, []).append(n)  # type: ignore[arg-type]
            grown = _grown_part(n)
            if grown is not None:
                self.fed.setdefault(grown[0], []).append(grown[1])
            if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                self.loop_vars |= {x.id for x in walk_cached(n.target) if isinstance(x, ast.Name)}

    @staticmethod
    def _targets(n: ast.AST) -> list[str]:
        if isinstance(n, ast.Assign):
            ts: list[ast.expr] = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            ts = [n.target]
        else:
            return []
        return [x.id for t in ts for x in walk_cached(t) if isinstance(x, ast.Name)]

    def requests(self) -> Iterator[tuple[ast.Call | ast.Return, ast.expr]]:
        """Each call given `messages=`, with what it is given; and each return of a message
        list built here (a builder's result is sent by its caller)."""
        for n in self.nodes:
            if isinstance(n, ast.Call):
                for k in n.keywords:
                    if k.arg == "messages":
                        yield n, k.value
            elif isinstance(n, ast.Return) and n.value is not None and self.builds(n.value):
                yield n, n.value

    def builds(self, value: ast.expr) -> bool:
        """Whether a value is a message list written here: a list literal with a message in
        it, or a local bound to one."""
        lists: list[ast.expr | None] = [value]
        if isinstance(value, ast.Name):
            lists = [getattr(st, "value", None) for st in self.assigned.get(value.id, [])]
        return any(
            isinstance(v, ast.List) and any(_role_of(e) is not None for e in v.elts) for v in lists
        )

    # -- the message list ----------------------------------------------------------------

    def origin(self, name: str) -> tuple[bool, set[str]]:
        """(kept, history names): whether the list is the kept history itself (an attribute or
        a parameter bound to it, no copy), and the histories it holds."""
        kept = name in self.params and name not in self.assigned
        history: set[str] = {name} if kept else set()
        for st in self.assigned.get(name, []):
            value = getattr(st, "value", None)
            if isinstance(st, ast.Assign) and value is not None:
                src = _copied(value)
                if src is not None:
                    history |= _sources(src)
                elif isinstance(value, ast.Attribute):
                    kept = True
                    history.add(name)
                elif isinstance(value, ast.Name) and value.id in self.params:
                    kept = True
                    history.add(value.id)
                elif isinstance(value, (ast.Call, ast.Await)):
                    history.add(name)  # fetched from elsewhere (a store, a loader): a history
                elif (mapped := _mapped_history(value)) is not None:
                    history |= _sources(mapped)
                for e in getattr(value, "elts", []):
                    if isinstance(e, ast.Starred):
                        history |= _sources(e.value)
                if isinstance(value, ast.BinOp):
                    history |= _sources(value) - {name}
            elif isinstance(st, ast.AugAssign) and value is not None:
                history |= _sources(value)
        for n in self.nodes:
            if (m := _method(n, name)) is not None and m[0] == "extend":
                history |= _sources(m[1][0]) if m[1] else set()
        return kept, history

    def writes(self, name: str) -> Iterator[tuple[ast.AST, Write, ast.AST | None]]:
        """(node, kind, what it writes or keeps by) of each write to the list before its end."""
        for n in self.nodes:
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    b = _base(t)
                    if b is not None and b[0] == name and not _is_last(b[1], name):
                        yield n, Write.REWRITE, n.value
                if (
                    any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
                    and isinstance(n.value, ast.ListComp)
                    and any(g.ifs and name in _names(g.iter) for g in n.value.generators)
                ):
                    conds = [c for g in n.value.generators for c in g.ifs]
                    yield n, Write.FILTER, ast.Tuple(elts=conds, ctx=ast.Load())
            elif isinstance(n, ast.Delete):
                for t in n.targets:
                    if (
                        isinstance(t, ast.Subscript)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == name
                        and not (not isinstance(t.slice, ast.Slice) and _is_last(t.slice, name))
                    ):
                        yield n, Write.DROP, None
            elif (m := _method(n, name)) is not None:
                verb, args = m
                if verb == "insert" and len(args) == 2 and not _is_last(args[0], name):
                    once = _is_first(args[0]) and self._guarded_by_head(n, name)
                    yield n, Write.HEAD if once else Write.INSERT, args[1]
                elif verb == "pop" and args and not _is_last(args[0], name):
                    yield n, Write.DROP, None
                elif verb in ("sort", "reverse"):
                    yield n, Write.REORDER, None

    def _guarded_by_head(self, write: ast.AST, name: str) -> bool:
        """Whether `write` runs only under an `if` that reads the list's first item (`if
        m[0].role != "system":`): a head put in once, not before every request."""
        return any(
            isinstance(n, ast.If)
            and any(w is write for stmt in n.body for w in walk_cached(stmt))
            and any(
                isinstance(t, ast.Subscript)
                and isinstance(t.value, ast.Name)
                and t.value.id == name
                and _is_first(t.slice)
                for t in walk_cached(n.test)
            )
            for n in self.nodes
        )

    # -- what the request brings -----------------------------------------------------------

    def brought(self, name: str, history: set[str]) -> set[str]:
        """The names this request brings (its user message's, the history's) and the locals made
        from them, to a fixed point."""
        seeds = set(history)
        # A user message put at the head (`insert(0, ...)`) is no newest message.
        at_head = {
            id(n.args[-1])
            for n in self.nodes
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "insert"
            and n.args
        }
        for n in self.nodes:
            r = _role_of(n)
            if r is not None and r[0] == "user" and id(n) not in at_head:
                seeds |= _names(r[1])
        # The list itself is a seed only where it comes from outside (not built here).
        seeds -= {"self"} if name in history else {"self", name}
        return self.closure(seeds, name)

    def asked(self, name: str) -> set[str]:
        """The parameters named for the current request (`user_message`, `query`) and the
        locals made from them: what this request asks, also where no user message is written
        out here."""
        return self.closure({p for p in self.params if names_request(p)}, name)

    def per_step(self, call: ast.AST) -> set[str]:
        """What changes on each pass of a loop around a request: the loop's item and what a
        request's answer is bound to inside the loop."""
        line = getattr(call, "lineno", 0)
        # A hook the agent framework calls before each model call is the body of its loop:
        # its parameters (the agent's state, this call's request) are that pass's.
        out: set[str] = set(self.params) if _per_call_hook(self.fn) else set()
        for n in self.nodes:
            if not isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
                continue
            if not n.lineno <= line <= (n.end_lineno or n.lineno):
                continue
            if isinstance(n, (ast.For, ast.AsyncFor)):
                out |= {x.id for x in walk_cached(n.target) if isinstance(x, ast.Name)}
            for st in walk_cached(n):
                value = getattr(st, "value", None)
                if isinstance(st, ast.Assign) and value is not None and self.answers(value):
                    out |= {
                        x.id for t in st.targets for x in walk_cached(t) if isinstance(x, ast.Name)
                    }
        return out

    def grows_around(self, call: ast.AST, name: str) -> bool:
        """Whether a loop around a request appends to the list it sends."""
        line = getattr(call, "lineno", 0)
        for n in self.nodes:
            if isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and (
                n.lineno <= line <= (n.end_lineno or n.lineno)
            ):
                for c in walk_cached(n):
                    if (
                        isinstance(c, ast.Call)
                        and isinstance(c.func, ast.Attribute)
                        and isinstance(c.func.value, ast.Name)
                        and c.func.value.id == name
                        and c.func.attr in ("append", "extend")
                    ):
                        return True
        return False

    def answers(self, value: ast.expr) -> bool:
        """Whether a value is a request's answer (a call given `messages=`, awaited or not)."""
        if isinstance(value, ast.Await):
            value = value.value
        return isinstance(value, ast.Call) and any(k.arg == "messages" for k in value.keywords)

    def closure(self, seeds: set[str], name: str) -> set[str]:
        """The seeds and the locals made from them, to a fixed point."""

        def fed(st: ast.stmt, made: set[str]) -> bool:
            src = getattr(st, "iter", None) or getattr(st, "value", None)
            if isinstance(src, ast.Await):
                src = src.value
            if src is not None and _head_pick(src, made):
                return False
            return _read_from(src, made) is not None

        return made_from(seeds, self.fed, name, fed)

    def system_writes(self, name: str) -> Iterator[ast.expr]:
        """The values written into the system prompt the request's list starts with: the
        content of a system message in the list's literal or inserted at its head, and every
        assignment of a local that content names."""
        contents: list[ast.expr] = []
        for st in self.assigned.get(name, []):
            value = getattr(st, "value", None)
            elts = getattr(value, "elts", None) if isinstance(st, ast.Assign) else None
            if elts:
                r = _role_of(elts[0])
                if r is not None and r[0] == "system" and r[1] is not None:
                    contents.append(r[1])
        for n in self.nodes:
            m = _method(n, name)
            if m is not None and m[0] == "insert" and len(m[1]) == 2 and _is_first(m[1][0]):
                r = _role_of(m[1][1])
                if r is not None and r[0] == "system" and r[1] is not None:
                    contents.append(r[1])
        for c in contents:
            yield from self.values_of(c)

    def ahead_writes(self, name: str, history: set[str]) -> Iterator[ast.expr]:
        """The values written into the messages but the head system one that the list's literal
        puts before its history (`[system, {"role": "system", "content": notes}, *history, user]`):
        whatever their role, they come before every message sent before."""
        contents: list[ast.expr] = []
        for st in self.assigned.get(name, []):
            value = getattr(st, "value", None)
            if isinstance(st, ast.Assign) and isinstance(value, (ast.List, ast.BinOp)):
                contents += _ahead_of_history(value, history)
        contents += self._appended_ahead(name, history)
        for c in contents:
            yield from self.values_of(c)

    def _appended_ahead(self, name: str, history: set[str]) -> list[ast.expr]:
        """The contents of the messages but system ones appended to the list before the
        statement that adds the history to it (`m.append(context_msg)`, then `m += history` or
        `m.extend(history)`, or a loop that replays the stored history one message a row): an
        appended system message is read as the system prompt's."""
        adds = [
            n.lineno
            for n in self.nodes
            if isinstance(n, (ast.For, ast.AsyncFor)) and _replays(n, name, history)
        ] + [
            getattr(n, "lineno", 0)
            for n in self.nodes
            if (
                (m := _method(n, name)) is not None
                and m[0] == "extend"
                and m[1]
                and _reads_history(m[1][0], history)
            )
            or (
                isinstance(n, ast.AugAssign)
                and isinstance(n.target, ast.Name)
                and n.target.id == name
                and _reads_history(n.value, history)
            )
        ]
        if not adds:
            return []
        out = []
        for n in self.nodes:
            m = _method(n, name)
            late = getattr(n, "lineno", 0) >= min(adds)
            if m is None or m[0] != "append" or len(m[1]) != 1 or late:
                continue
            r = _role_of(m[1][0])
            if r is not None and r[0] != "system" and r[1] is not None:
                out.append(r[1])
        return out

    def values_of(self, c: ast.expr) -> list[ast.expr]:
        """The values a system prompt is written with: a local's every assignment, else the
        expression itself."""
        if not isinstance(c, ast.Name):
            return [c]
        values = [getattr(st, "value", None) for st in self.assigned.get(c.id, [])]
        return [v for v in values if v is not None]


def _ahead_of_history(lst: ast.List | ast.BinOp, history: set[str]) -> list[ast.expr]:
    """The contents of the messages a list literal puts before its first spread part
    (`*history`), or a sum of lists before its first part that is no literal (`[system,
    notes] + history + [user]`), but a head system message: nothing where no such part is."""
    if isinstance(lst, ast.BinOp):
        parts: list[ast.expr] = []
        stack: list[ast.expr] = [lst]
        while stack:
            e = stack.pop()
            if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
                stack += [e.right, e.left]
            else:
                parts.append(e)
        lead: list[ast.expr] = []
        for e in parts:
            if not isinstance(e, ast.List):
                if not _reads_history(e, history):
                    return []  # the first part added is not the history
                break
            lead += e.elts
        else:
            return []
        elts = lead
    else:
        first = next((i for i, e in enumerate(lst.elts) if isinstance(e, ast.Starred)), 0)
        spread = lst.elts[first] if first else None
        if not (isinstance(spread, ast.Starred) and _reads_history(spread.value, history)):
            return []  # nothing, or not the history, spread first
        elts = lst.elts[:first]
    out = []
    for i, e in enumerate(elts):
        r = _role_of(e)
        if r is not None and r[1] is not None and not (i == 0 and r[0] == "system"):
            out.append(r[1])  # the head system message is the system prompt's, read apart
    return out


def _replays(loop: ast.For | ast.AsyncFor, name: str, history: set[str]) -> bool:
    """Whether a loop replays the stored history into the list: it runs over the history (or
    over what is named for one: `conversation_history`, `past_messages`) and appends, for each
    stored row, a message made from that row (`m.append({"role": r, "content": row["text"]})`).
    Those messages are the history itself, and what is appended after the loop comes after it."""
    named = any(set(words(last_name(x))) & HISTORY_WORDS for x in walk_cached(loop.iter))
    if not (named or _reads_history(loop.iter, history)):
        return False
    # The row, and the locals each pass makes (`name = row.get("customer_name")`).
    rows = {
        x.id for x in walk_cached(loop) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)
    }
    return any(
        (m := _method(n, name)) is not None
        and m[0] == "append"
        and len(m[1]) == 1
        and isinstance(m[1][0], ast.Dict)
        and bool(rows & _names(m[1][0]))
        for n in walk_cached(loop)
    )


def _reads_history(value: ast.expr, history: set[str]) -> bool:
    """The value is, or is cut or copied from, one of the histories (`history`,
    `self.history[-10:]`, `list(past)`)."""
    return any(
        isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))
        and ast.unparse(n) in history
        and not ast.unparse(n).isupper()  # a module's constant list: fixed examples
        for n in walk_cached(value)
    )


def _ahead_message(name: str) -> str:
    return (
        f"`{name}` is made from what this request brings (its newest message or the history) "
        "and written into a message placed before the conversation history: the prefix "
        "changes there on every request and the whole history is sent again uncached; put it "
        "in the newest user message"
    )


def _reaches(line: int, requests: list[int], loops: list[tuple[int, int]]) -> bool:
    """Whether a write on `line` reaches a request: one comes after it, or a loop around it
    also holds one (the next iteration sends it)."""
    return any(r > line for r in requests) or any(
        a <= line <= b and any(a <= r <= b for r in requests) for a, b in loops
    )


def _finding(ctx: Context, node: ast.AST, code: str, message: str) -> Finding:
    line = getattr(node, "lineno", 1)
    col = getattr(node, "col_offset", 0) + 1
    return Finding(ctx.path, line, col, code, message, source_line=ctx.line(line))


def check_prefix_flow(tree: ast.Module, ctx: Context) -> list[Finding]:
    """The writes that break the prefix of the lists and system prompts sent."""
    out: list[Finding] = []
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        f = _Function(fn, ctx)
        requests = list(f.requests())
        sent: dict[str, list[int]] = {}
        for call, given in requests:
            if isinstance(given, ast.Name):
                sent.setdefault(given.id, []).append(call.lineno)
        loops = [
            (n.lineno, n.end_lineno or n.lineno)
            for n in f.nodes
            if isinstance(n, (ast.For, ast.AsyncFor, ast.While))
        ]
        for name, at in sent.items():
            kept, history = f.origin(name)
            if not history and any(
                isinstance(g, ast.Name) and g.id == name and f.grows_around(c, name)
                for c, g in requests
            ):
                # Built here, but each pass of a loop sends it and adds to it: the history
                # kept between those requests.
                history, kept = {name}, True
            if not history:
                continue  # built here: nothing in it was sent before
            # On a copy, a write breaks where what it writes is made from this request (or
            # from what changes per pass of a loop around the request).
            made = f.brought(name, history)
            for call, given in requests:
                if isinstance(given, ast.Name) and given.id == name:
                    made |= f.closure(f.per_step(call), name)
            own = {name} | f.loop_vars
            for node, write, value in f.writes(name):
                if not _reaches(getattr(node, "lineno", 0), at, loops):
                    continue  # written after the last request: this function sends it no more
                varies = _read_from(value, made - own) is not None
                if breaks(write, kept=kept, varies=varies):
                    code = ast.unparse(node).split("\n")[0][:60]
                    message = history_message(write, code, kept=kept)
                    out.append(_finding(ctx, node, "PL303", message))
        for call, given in requests:
            out += _system_from_request(ctx, f, call, given)
    return out


def _system_from_request(
    ctx: Context, f: _Function, call: ast.Call | ast.Return, given: ast.expr
) -> list[Finding]:
    """PL304 for one request: what it brings, written into the system prompt before its
    history (the list's head system message, or `system=` beside it)."""
    name = given.id if isinstance(given, ast.Name) else ""
    ahead: list[ast.expr] = []
    if name:
        history = f.origin(name)[1]
        heads = list(f.system_writes(name))
        ahead = list(f.ahead_writes(name, history))
    else:
        # A list written out in the call: `[*history, ...]`, `[m for m in history if ...]`.
        inner = {
            x.id
            for g in walk_cached(given)
            if isinstance(g, ast.comprehension)
            for x in walk_cached(g.target)
            if isinstance(x, ast.Name)
        }
        history = {
            x
            for e in walk_cached(given)
            if isinstance(e, (ast.Starred, ast.comprehension))
            for x in _sources(e.value if isinstance(e, ast.Starred) else e.iter)
        } - inner
        if isinstance(given, (ast.Attribute, ast.Subscript)):
            # `messages=self.messages`, `messages=self.histories[chat_id]`: the history kept on
            # the object, sent as it is; what is made from it (`extract(self.messages)`) grows
            # with it.
            history = {ast.unparse(given)}
        heads = []
        if isinstance(given, ast.List) and given.elts:
            r = _role_of(given.elts[0])
            if r is not None and r[0] == "system" and r[1] is not None:
                heads += f.values_of(r[1])
            ahead = [v for c in _ahead_of_history(given, history) for v in f.values_of(c)]
    for k in call.keywords if isinstance(call, ast.Call) else []:
        if k.arg in _SYSTEM_KWARGS:
            heads += f.values_of(k.value)
    if not history and name and f.grows_around(call, name):
        history = {name}  # built here, but each pass of the loop adds to it: a history
    if not history:
        return []  # a one-off request: nothing cached after its system prompt
    made = f.brought(name, history) | f.asked(name)
    stepped = f.closure(f.per_step(call), name)
    out = []
    for value in heads:
        if _head_pick(value, made):
            continue  # the history's own first message, passed on
        hit = _read_from(value, made | stepped)
        if hit:
            message = system_message(hit.text, per_step=hit.text not in made)
            out.append(_finding(ctx, hit.node, "PL304", message))
    for value in ahead:
        if _head_pick(value, made):
            continue
        hit = _read_from(value, made)
        if hit:
            out.append(_finding(ctx, hit.node, "PL304", _ahead_message(hit.text)))
    if isinstance(call, ast.Call):
        out += _tools_from_request(ctx, f, call, made)
    return out


_TOOLS_PICKED = (
    "the tool list is picked by what this request brings (`{}`): tool definitions are the "
    "first part of the prefix, so every request after a change misses the cache from its "
    "first byte and the whole history is sent again uncached; send the same tools every turn "
    "and let a tool refuse what this request should not do"
)


def _tools_from_request(
    ctx: Context, f: _Function, call: ast.Call, made: set[str]
) -> list[Finding]:
    """PL302 for a request sent with its history: its `tools=` picked by what the request
    brings (a test, a filter or a call that reads its newest message or the history:
    `select_tools(user_message)`, `[t for t in TOOLS if t.name in intent]`), also a list
    grown under such a test (`if "search" in query: tools.append(SEARCH)`)."""
    given = next((k.value for k in call.keywords if k.arg in ("tools", "functions")), None)
    if given is None:
        return []
    for value in f.values_of(given):
        hit = _read_from(value, made)
        if hit:
            return [_finding(ctx, hit.node, "PL302", _TOOLS_PICKED.format(hit.text))]
    if isinstance(given, ast.Name):
        for n in f.nodes:
            if (
                isinstance(n, ast.If)
                and n.lineno < call.lineno
                and any(_method(b, given.id) is not None for s in n.body for b in walk_cached(s))
                and (hit := _read_from(n.test, made))
            ):
                return [_finding(ctx, hit.node, "PL302", _TOOLS_PICKED.format(hit.text))]
    return []
