"""The requests a Python value reaches (`policies/reach.py` says why it matters): each request
site of a function (a call given `messages=`, `input=` or `contents=`) is classified as a
conversation's or a one-shot request, and a finding inside a function is followed to the sites
of that function or, where it sends nothing itself, of its callers in the file. Findings whose
value reaches one-shot requests only, an assertion of a test function or a serialiser's record
are dropped, and so is a window (PL303) read or cut in a test function or in a function that
answers an HTTP GET and sends nothing itself: a page of stored rows goes back to the client,
not to a model. Pure: a syntax tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..findings import Finding
from ..reach import (
    CONVERSATION,
    ONE_SHOT,
    Site,
    decided_by_reach,
    is_test_name,
    keep,
    one_shot_only,
    records_only,
    sink_line,
)
from .syntax import walk_cached

if TYPE_CHECKING:
    from .projectreach import ProjectReach

_Fn = ast.FunctionDef | ast.AsyncFunctionDef

# Calls that may send a request the site test does not read (`agent.run(q)`, `chain.invoke(x)`,
# `llm(messages)`): a function holding one is not known to send only one-shot requests.
REQUEST_LIKE = frozenset(
    {
        "run",
        "arun",
        "run_sync",
        "invoke",
        "ainvoke",
        "stream",
        "astream",
        "chat",
        "achat",
        "send_message",
        "generate",
        "agenerate",
        "generate_content",
        "complete",
        "acomplete",
        "predict",
        "query",
        "ask",
        "step",
        "call",
        "llm",
        "completion",
        "acompletion",
    }
)
# The message classes and roles of a one-shot request's items.
_ONE_SHOT_MESSAGES = frozenset({"SystemMessage", "HumanMessage", "UserMessage", "DeveloperMessage"})
_ONE_SHOT_ROLES = frozenset({"system", "developer", "user"})
_DEPTH = 2  # callers followed up the file


def drop_unreached(
    tree: ast.Module, found: list[Finding], project: tuple[str, ProjectReach] | None = None
) -> list[Finding]:
    """`found` less the findings whose value reaches no conversation's request: here, by the
    file alone; with `project` (the file's path and the project's search), a window, a
    volatile or unordered value or the current request (PL303, PL1xx, PL2xx, PL304) whose
    function reaches no model request anywhere in the project (`pycheck.projectreach`)."""
    if not any(decided_by_reach(f.code) or f.code == "PL303" for f in found):
        return found
    index = _Index(tree)
    unsent = {
        i
        for i, f in enumerate(found)
        if decided_by_reach(f.code) and index.unsent(f.line, sink_line(f))
    }
    unsent |= {
        i
        for i, f in enumerate(found)
        if f.code == "PL303" and (index.made_text(f.line) or index.answers_only(f.line))
    }
    if project is not None:
        path, reach = project
        unsent |= {
            i
            for i, f in enumerate(found)
            if i not in unsent
            and f.code.startswith(_GATED)
            and all(
                (held := index.around(line)) is not None and reach.unreached(path, *held)
                for line in {f.line, sink_line(f) or f.line}
            )
        }
    return keep(found, unsent)


# The findings kept only where their value is seen to reach a model request, or where it goes
# cannot be seen: a window (PL303), a volatile or unordered value (PL1xx, PL2xx), the current
# request in a prompt (PL304).
_GATED = ("PL303", "PL1", "PL2", "PL304")


class _Index:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        # every function with the classes and functions around it, outermost first
        self.chains: list[tuple[_Fn, tuple[str, ...]]] = []
        self.by_name: dict[str, list[_Fn]] = {}
        self._collect(tree, ())
        self._sites: dict[int, list[Site]] = {}
        self._callees: dict[int, frozenset[str]] = {}

    def _collect(self, node: ast.AST, outer: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.chains.append((child, outer))
                self.by_name.setdefault(child.name, []).append(child)
                self._collect(child, (*outer, child.name))
            elif isinstance(child, ast.ClassDef):
                self._collect(child, (*outer, child.name))
            else:
                self._collect(child, outer)

    def around(self, line: int) -> tuple[_Fn, tuple[str, ...]] | None:
        """The innermost function holding `line`, with the names around it."""
        around = [
            (fn, outer)
            for fn, outer in self.chains
            if fn.lineno <= line <= (fn.end_lineno or fn.lineno)
        ]
        return max(around, key=lambda p: p[0].lineno) if around else None

    def unsent(self, line: int, sink: int | None) -> bool:
        """Whether a finding on `line` (its sink on `sink`) reaches no conversation's request."""
        held = self.around(line)
        if held is None:
            return False  # module level: read wherever the module is imported
        fn, outer = held
        if _in_test(fn, outer):
            return True  # a test function: the value reaches an assertion
        into = self.around(sink) if sink is not None else held
        if into is not None and records_only(into[0].name) and not self.sites(into[0]):
            return True  # a serialiser's copy of a prompt built and sent elsewhere
        return one_shot_only(self.reached(fn, 0, set()))

    def answers_only(self, line: int) -> bool:
        """A window on `line` in a test function (it reaches an assertion) or in a function
        registered for an HTTP GET that sends no request itself: what it reads is handed back
        to the client (a page of stored messages), and a request elsewhere reads its own."""
        held = self.around(line)
        if held is None:
            return False
        fn, outer = held
        if _in_test(fn, outer):
            return True
        return any(_get_route(d) for d in fn.decorator_list) and not self.sites(fn)

    def made_text(self, line: int) -> bool:
        """A window filled by a loop on `line` into a list its function returns joined into
        one text (`return "\\n\\n".join(parts)`): an excerpt of the recent turns for a side
        request, not the history a request sends as messages."""
        held = self.around(line)
        if held is None:
            return False
        loop = next(
            (
                n
                for n in _own_nodes(held[0])
                if isinstance(n, (ast.For, ast.While)) and n.lineno == line
            ),
            None,
        )
        if loop is None:
            return False
        filled = {
            n.func.value.id
            for n in walk_cached(loop)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("append", "insert", "extend", "appendleft")
            and isinstance(n.func.value, ast.Name)
        }
        returns = [r.value for r in _own_nodes(held[0]) if isinstance(r, ast.Return) and r.value]
        return (
            bool(filled)
            and all(_joined(r, filled) for r in returns if r is not None)
            and any(_joined(r, filled) for r in returns if r is not None)
        )

    def reached(self, fn: _Fn, depth: int, seen: set[int]) -> list[Site]:
        """The requests `fn`'s values reach: its own, else those of its callers in the file.
        A caller that cannot be followed is a conversation (keep the finding)."""
        seen.add(id(fn))
        own = self.sites(fn)
        if own:
            return own
        callers = [
            c
            for c, _ in self.chains
            if fn.name.startswith("_") and id(c) not in seen and fn.name in self.callees(c)
        ]
        if not fn.name.startswith("_") or not callers or depth >= _DEPTH:
            # Another module may call a public function; a function nobody here calls, or
            # one past the depth followed, reaches what the analysis does not see.
            return [Site(fn.lineno, CONVERSATION, "not followed")]
        out: list[Site] = []
        for c in callers:
            out += self.reached(c, depth + 1, seen)
        return out

    def callees(self, fn: _Fn) -> frozenset[str]:
        """The names `fn` itself calls, worked out once a function, not once a finding."""
        if id(fn) not in self._callees:
            self._callees[id(fn)] = frozenset(
                name
                for n in _own_nodes(fn)
                if isinstance(n, ast.Call) and (name := _callee(n)) is not None
            )
        return self._callees[id(fn)]

    def sites(self, fn: _Fn) -> list[Site]:
        if id(fn) not in self._sites:
            self._sites[id(fn)] = list(self._find_sites(fn))
        return self._sites[id(fn)]

    def _find_sites(self, fn: _Fn) -> list[Site]:
        out: list[Site] = []
        built = _request_objects(fn)
        for node in _own_nodes(fn):
            if not isinstance(node, ast.Call):
                continue
            kw = {k.arg: k.value for k in node.keywords if k.arg}
            sent = kw.get("messages") or kw.get("contents")
            if sent is None and "input" in kw and "model" in kw:
                sent = kw["input"]
            if sent is not None:
                if _marked_for_caching(node):
                    # A request that asks for its prefix to be cached means to send it again
                    # (a classifier per ticket): a value there breaks that reuse.
                    out.append(Site(node.lineno, CONVERSATION, "marked for caching"))
                elif "previous_response_id" in kw or "conversation" in kw:
                    out.append(Site(node.lineno, CONVERSATION, "chained on a response"))
                else:
                    kind = self._list_kind(sent, fn, 0)
                    out.append(Site(node.lineno, kind, "messages"))
            elif _callee(node) in REQUEST_LIKE and not (
                # `req = AIRequest(messages=[...])` then `provider.complete(req)`: the request
                # built above, whose messages are read there.
                len(node.args) == 1
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in built
            ):
                out.append(Site(node.lineno, CONVERSATION, "a call the analysis does not read"))
        return out

    def _list_kind(self, sent: ast.expr, fn: _Fn, depth: int) -> str:
        """ONE_SHOT for a fresh list of system and user messages (or one text), built here or
        returned by a function of the file; CONVERSATION for anything else."""
        if isinstance(sent, (ast.Constant, ast.JoinedStr)):
            return (
                ONE_SHOT
                if isinstance(sent, ast.JoinedStr) or isinstance(sent.value, str)
                else CONVERSATION
            )
        if isinstance(sent, ast.List):
            return (
                ONE_SHOT
                if sent.elts and all(_one_shot_item(x) for x in sent.elts)
                else CONVERSATION
            )
        if isinstance(sent, ast.Name):
            return self._local_kind(sent.id, fn, depth)
        if isinstance(sent, ast.Call) and depth < _DEPTH:
            return self._returned_kind(sent, depth)
        return CONVERSATION

    def _local_kind(self, name: str, fn: _Fn, depth: int) -> str:
        values: list[ast.expr] = []
        for node in _own_nodes(fn):
            if isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                    values.append(node.value)
                elif any(_names(t, name) for t in node.targets):
                    return CONVERSATION  # `messages[i] = ...`, unpacked into
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and _names(node.target, name):
                if isinstance(node, ast.AugAssign) or node.value is None:
                    return CONVERSATION
                values.append(node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if _names(node.func.value, name):
                    return CONVERSATION  # `messages.append(...)`: a list that grows
            elif isinstance(node, (ast.For, ast.comprehension)) and _names(node.target, name):
                return CONVERSATION
        if not values:
            return CONVERSATION  # a parameter or a global: handed in
        kinds = {self._list_kind(v, fn, depth) for v in values}
        return ONE_SHOT if kinds == {ONE_SHOT} else CONVERSATION

    def _returned_kind(self, call: ast.Call, depth: int) -> str:
        name = _callee(call)
        fns = self.by_name.get(name or "", [])
        if len(fns) != 1:
            return CONVERSATION
        fn = fns[0]
        returns = [r.value for r in _own_nodes(fn) if isinstance(r, ast.Return)]
        if not returns or any(r is None for r in returns):
            return CONVERSATION
        kinds = {self._list_kind(r, fn, depth + 1) for r in returns if r is not None}
        return ONE_SHOT if kinds == {ONE_SHOT} else CONVERSATION


def _in_test(fn: _Fn, outer: tuple[str, ...]) -> bool:
    return is_test_name(fn.name) or any(is_test_name(o) or o.startswith("Test") for o in outer)


def _get_route(dec: ast.expr) -> bool:
    """`@router.get("/path")`, or `@app.route("/path")` with no methods but GET: a handler
    registered for a path, which answers a read."""
    if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute)):
        return False
    path = dec.args[0] if dec.args else None
    if not (isinstance(path, ast.Constant) and str(path.value).startswith("/")):
        return False  # `@cache.get(key)`: no route
    if dec.func.attr == "get":
        return True
    if dec.func.attr != "route":
        return False
    methods = next((k.value for k in dec.keywords if k.arg == "methods"), None)
    if methods is None:
        return True  # Flask's default: GET
    return isinstance(methods, (ast.List, ast.Tuple)) and all(
        isinstance(m, ast.Constant) and str(m.value).upper() in ("GET", "HEAD")
        for m in methods.elts
    )


def _request_objects(fn: _Fn) -> set[str]:
    """The local names bound once, to a call given `messages=` (a request object built here)."""
    bound: dict[str, int] = {}
    built: set[str] = set()
    for node in _own_nodes(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound[t.id] = bound.get(t.id, 0) + 1
                    if isinstance(node.value, ast.Call) and any(
                        k.arg == "messages" for k in node.value.keywords
                    ):
                        built.add(t.id)
    return {n for n in built if bound[n] == 1}


def _one_shot_item(item: ast.expr) -> bool:
    if isinstance(item, ast.Dict):
        for k, v in zip(item.keys, item.values, strict=True):
            if isinstance(k, ast.Constant) and k.value == "role":
                return isinstance(v, ast.Constant) and v.value in _ONE_SHOT_ROLES
        return False
    if isinstance(item, ast.Call):
        role = next((k.value for k in item.keywords if k.arg == "role"), None)
        if isinstance(role, ast.Constant):
            # `AIMessage(role="system", content=...)`: a message class told its role.
            return role.value in _ONE_SHOT_ROLES
        return _callee(item) in _ONE_SHOT_MESSAGES
    return False


_CACHE_MARKS = frozenset(
    {"cache_control", "prompt_cache_key", "prompt_cache_breakpoint", "prompt_cache_options"}
)


def _marked_for_caching(call: ast.Call) -> bool:
    """`cache_control=` or `prompt_cache_key=` given, or a block with a `cache_control` key."""
    if any(k.arg in _CACHE_MARKS for k in call.keywords):
        return True
    return any(isinstance(n, ast.Constant) and n.value in _CACHE_MARKS for n in walk_cached(call))


def _joined(value: ast.expr, names: set[str]) -> bool:
    """`"\\n".join(parts)` of one of `names`."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "join"
        and isinstance(value.func.value, ast.Constant)
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Name)
        and value.args[0].id in names
    )


def _callee(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def _names(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk_cached(node))


def _own_nodes(fn: _Fn) -> list[ast.AST]:
    """The nodes of `fn`'s body, not those of the functions and classes defined in it."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            ):
                todo.append(child)
    return out
