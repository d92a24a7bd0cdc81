"""Whether a value read in a Python function can reach a model request anywhere in its project.

A window cut from a history (PL303), a volatile value (PL1xx) or the current request written
into a prompt (PL304) breaks a cache only where it is sent to a model. `pycheck.reach` follows
a value through its own file; this follows it through the project: a function reaches a
request where it sends one itself (a call given `messages=`, `contents=`, `prompt=`,
`system=`, ..., a call named for a model, a request body with a model and its messages) or
calls a function of the project that does; else its value goes to its callers, found by name
in every file of the project (a method called through an instance, `self.store.window(...)`,
as a module's function), and reaches what one of them reaches. A value reaches no request
where every caller is a test, a web route or a command handler that sends nothing (what it
gets goes back to a client or a terminal), a module's code that sends nothing, or where a
private function has no caller at all. Unknown, and so reached (the finding stays): a
function named as a value anywhere (a callback, a tool list, `getattr` by its name), one a
decorator hands to a model (`@tool`, `@mcp.prompt()`), one that keeps its value on an object
(`self.window = ...`) or in a global, a public function nobody in the project calls (its
callers are outside), a project the engine cannot search, and a chain of callers longer than
the depth followed. Pure: syntax trees in (the engine finds the files,
`policies/pycallers.py`), a verdict out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Callable

from ..meaning import words
from .callers import ONE_USER, SERVERS, hosts_server, main_guard, one_user
from .reach import REQUEST_LIKE
from .syntax import assigned, walk_cached

_Fn = ast.FunctionDef | ast.AsyncFunctionDef
# A call of a function: the function it is made in (None: a module's own code), the names
# around it, and whether it calls a bare name (`build()`, not `self.build()`).
_Call = tuple[_Fn | None, tuple[str, ...], bool]
# The names around a call made by a script's `if __name__ == "__main__":` code.
_SCRIPT = ("__main__",)
# (file, word) -> the project's files whose text holds the word (or that define a function of
# that name), each as (normalised path, syntax tree); None where not known (a file linted on
# its own, a project too large to search, a file of it that does not parse).
Files = Callable[[str, str], list[tuple[str, ast.Module]] | None]

# A request's arguments: a call given one of them sends what it is given to a model, unless
# the call presents it (`render_template(..., messages=rows)`, `jsonify(history=...)`).
_SENT_KEYWORDS = frozenset(
    {"messages", "contents", "prompt", "system", "instructions", "system_prompt"}
    | {"system_message", "system_instruction", "chat_history", "history", "conversation"}
    | {"previous_response_id", "input", "message", "query", "question", "user_prompt"}
)
# Words of a call that presents, records or returns what it is given, not a request.
_PRESENTS = frozenset(
    {"render", "template", "response", "jsonify", "json", "dumps", "print", "log", "logger"}
    | {"debug", "info", "warning", "warn", "error", "echo", "display", "emit", "write"}
    | {"markdown", "table", "panel", "metric", "span", "trace", "audit", "format", "dict"}
)
# A call the project does not define, named for asking a model (`chat_completion`,
# `ollama.chat`, `ask_llm`): sent. A function of the project is read instead.
_ASKS = frozenset(
    {"llm", "chat", "completion", "completions", "generate", "ask", "invoke", "agent"}
    | {"gpt", "claude", "openai", "anthropic", "gemini", "ollama", "groq", "openrouter"}
    | {"deepseek", "mistral", "litellm", "respond"}
)
_SEND_CALLS = REQUEST_LIKE | frozenset({"create", "acreate", "post", "apost", "request"})
# Keys of a request body written as a dict (`{"model": m, "messages": history}`).
_BODY_KEYS = frozenset({"messages", "contents", "prompt", "input", "system"})
# Methods that keep what they are given on the object they are called on.
_STORES = frozenset(
    {"append", "extend", "insert", "appendleft", "add", "update", "put", "set", "push"}
    | {"setdefault", "save", "store", "add_message", "add_messages", "put_nowait"}
)
# Decorators that change nothing of where a function's value goes.
_PLAIN = frozenset(
    {"staticmethod", "classmethod", "property", "cached_property", "lru_cache", "cache"}
    | {"wraps", "abstractmethod", "override", "setter", "getter", "contextmanager"}
    | {"asynccontextmanager", "retry", "timeit", "timed", "traceable", "observe"}
)
# Words of a decorator that hands the function to a model (a tool, an MCP prompt or resource,
# an agent's skill or action): its value is read by a model.
_TO_MODEL = frozenset(
    {"tool", "tools", "function", "prompt", "resource", "skill", "action", "kernel", "agent"}
)
# Words of a decorator that registers an entry point a framework calls (a web route, a CLI
# command, a chat platform's handler): what it returns goes back to a client or a terminal.
_ENTRY = frozenset(
    {"get", "post", "put", "patch", "delete", "route", "api", "websocket", "command", "group"}
    | {"handler", "message", "on", "event", "callback", "hears", "listener"}
)


class ProjectReach:
    """Per lint run (`clear` starts one): whether each function asked about reaches a request,
    each function's verdict worked out once.

    holding: the project's files whose text holds a word; defining: those that define a
    function of that name; norm: a file's path as those two name it."""

    UP = 3  # callers followed
    DOWN = 2  # callees followed for a request they send
    # A function called from more places than this is taken to reach a request (a helper
    # used all over a project), and a finding whose search visits more functions than
    # BUDGET is kept: the search stays a small part of a run.
    FAN = 25
    BUDGET = 200

    def __init__(self, holding: Files, defining: Files, norm: Callable[[str], str]) -> None:
        self.holding = holding
        self.defining = defining
        self.norm = norm
        self._sends: dict[tuple[str, int, int], bool] = {}
        self._reaches: dict[tuple[str, int, int], bool] = {}
        # a tree's functions by name, the tree kept beside them so that its id is not reused
        self._defs: dict[int, tuple[ast.Module, dict[str, list[_Fn]]]] = {}
        # a tree's id -> the calls of each name there (the tree is kept by the search)
        self._calls: dict[int, dict[str, list[_Call] | None]] = {}
        self._left = self.BUDGET
        self._serving: dict[str, bool] = {}
        self._hosting: dict[str, bool] = {}  # file -> whether it imports a server's framework
        self._one_user: dict[str, bool] = {}

    def serving(self, path: str, tree: ast.Module) -> bool:
        """Whether the project of the file at `path` runs a long-lived server (a file of it
        imports a web framework, a chat platform's bot or a LiveKit worker, or registers a web
        route); the file's own tree alone where the project is not searched."""
        key = self.norm(path)
        if key not in self._serving:
            found = False
            for word in sorted(SERVERS):
                files = self.holding(path, word)
                if files is None:
                    found = hosts_server(tree)
                    break
                if any(self._hosts(f, t) for f, t in files):
                    found = True
                    break
            self._serving[key] = found
        return self._serving[key]

    def one_user(self, path: str, tree: ast.Module) -> bool:
        """Whether the project of the file at `path` shows a program one user runs per
        conversation (`callers.one_user`: a window's or a terminal prompt's module, or the
        builtin `input()`); the file's own tree alone where the project is not
        searched."""
        key = self.norm(path)
        if key not in self._one_user:
            found = False
            for word in (*sorted(ONE_USER), "input"):
                files = self.holding(path, word)
                if files is None:
                    found = one_user(tree)
                    break
                if any(one_user(t) for _, t in files):
                    found = True
                    break
            self._one_user[key] = found
        return self._one_user[key]

    def _hosts(self, path: str, tree: ast.Module) -> bool:
        if path not in self._hosting:
            self._hosting[path] = hosts_server(tree)
        return self._hosting[path]

    def clear(self) -> None:
        self._serving.clear()
        self._hosting.clear()
        self._one_user.clear()
        self._sends.clear()
        self._reaches.clear()
        self._defs.clear()
        self._calls.clear()

    def unreached(self, path: str, fn: _Fn, outer: tuple[str, ...]) -> bool:
        """Whether no value of `fn` (in the file at `path`, inside `outer`) reaches a model
        request: True only where every way out of it is followed to no request."""
        self._left = self.BUDGET
        return not self._reached(self.norm(path), fn, outer, 0, set())

    def _reached(
        self, path: str, fn: _Fn, outer: tuple[str, ...], depth: int, seen: set[tuple[str, int]]
    ) -> bool:
        key = (path, fn.lineno)
        if key in seen:
            # Callers that call each other: not followed round (and so a verdict of no
            # request never rests on a cut made here).
            return True
        memo = (path, fn.lineno, depth)
        if memo not in self._reaches:
            self._left -= 1
            if self._left < 0:
                return True  # past the search's budget: not known, and not remembered
            seen.add(key)
            self._reaches[memo] = self._follow(path, fn, outer, depth, seen)
            seen.discard(key)
        return self._reaches[memo]

    def _follow(
        self, path: str, fn: _Fn, outer: tuple[str, ...], depth: int, seen: set[tuple[str, int]]
    ) -> bool:
        if _test_file(path) or _in_test(fn.name, outer):
            return False  # a test's value reaches an assertion
        if _keeps_elsewhere(fn) or self.sends(path, fn, 0):
            return True
        marks = [d for d in fn.decorator_list if _decorator_name(d) not in _PLAIN]
        if any(_decorator_words(d) & _TO_MODEL for d in marks):
            return True
        if any(_decorator_words(d) & _ENTRY for d in marks):
            return False  # an entry point that sends nothing: its value goes to a client
        if fn.name.startswith("__") or depth >= self.UP:
            return True  # called by the language (`__call__`), or past the depth followed
        uses = self._uses(path, fn)
        if uses is None:
            return True
        if len(uses) > self.FAN:
            return True
        if not uses:
            # Nobody in the project calls it: a private module function is dead code; a public
            # one, a method (a base class of a library may call it) or one a decorator
            # registers is called from outside, where it is not seen.
            return bool(marks) or bool(outer) or not fn.name.startswith("_")
        for where, caller, around, tree in uses:
            if caller is not None and (where, caller.lineno) == (path, fn.lineno):
                continue  # it calls itself: what it does with the result is read here
            if caller is None:
                if around == _SCRIPT and not self._script_sends(where, tree):
                    continue  # a script's run that sends nothing: printed, written out
                if not _test_file(where):
                    return True  # a module's own code: kept in a global
            elif self._reached(where, caller, around, depth + 1, seen):
                return True
        return False

    def sends(self, path: str, fn: _Fn, depth: int) -> bool:
        """Whether `fn` sends a request itself or through a function of the project it calls
        (followed `DOWN` deep; a name defined more than once counts if any definition sends).
        A call the project does not define sends where it is named for a request."""
        key = (path, fn.lineno, depth)
        if key not in self._sends:
            self._sends[key] = False  # a recursive call sends what the rest of the body sends
            self._sends[key] = self._nodes_send(path, list(walk_cached(fn)), fn.name, depth)
        return self._sends[key]

    def _nodes_send(self, path: str, nodes: list[ast.AST], own: str, depth: int) -> bool:
        if sends_here(nodes):
            return True
        called = {n for x in nodes if isinstance(x, ast.Call) and (n := _callee(x)) != own}
        for name in sorted(called - {""}):
            defs = self.defining(path, name)
            # a test's stand-in of a function does not run where the value goes
            mine = [(w, d) for w, d in self._named(defs or [], name) if not _test_file(w)]
            if any(w == path and _defines(tree, name) for w, tree in defs or []):
                # a function of this module's own: the name called here is that one
                mine = [(w, d) for w, d in mine if w == path]
            if defs and not mine:
                continue  # a class of the project: its construction sends nothing
            if not mine:
                found = defs is None or _asks(name)  # not searched, or a library's call
            elif depth < self.DOWN:
                found = any(self.sends(where, d, depth + 1) for where, d in mine)
            else:
                found = _asks(name)  # past the depth followed: read by its name
            if found:
                return True
        return False

    def _script_sends(self, path: str, tree: ast.Module) -> bool:
        """Whether a module's `if __name__ == "__main__":` code sends a request."""
        nodes = [
            n
            for stmt in tree.body
            if isinstance(stmt, ast.If) and main_guard(stmt.test)
            for n in walk_cached(stmt)
        ]
        return self._nodes_send(path, nodes, "", 0)

    def _named(self, files: list[tuple[str, ast.Module]], name: str) -> list[tuple[str, _Fn]]:
        """The functions called `name` in `files`, each file's functions listed once."""
        out: list[tuple[str, _Fn]] = []
        for where, tree in files:
            if id(tree) not in self._defs:
                by_name: dict[str, list[_Fn]] = {}
                for d, _ in _functions(tree):
                    by_name.setdefault(d.name, []).append(d)
                self._defs[id(tree)] = (tree, by_name)
            out += [(where, d) for d in self._defs[id(tree)][1].get(name, [])]
        return out

    def _uses(
        self, path: str, fn: _Fn
    ) -> list[tuple[str, _Fn | None, tuple[str, ...], ast.Module]] | None:
        """Each call of `fn`'s name in the project, with the function it is in (None: the
        module's own code) and the names around that; None where a use is not a call (the
        name handed on as a value, imported under another name, spelt in a string) or the
        project is not searched."""
        files = self.holding(path, fn.name)
        if files is None:
            return None
        out: list[tuple[str, _Fn | None, tuple[str, ...], ast.Module]] = []
        for where, tree in files:
            if id(tree) not in self._calls:
                self._calls[id(tree)] = _calls_in(tree)
            found = self._calls[id(tree)].get(fn.name, [])
            if found is None:
                return None
            # Another file's bare `name(...)` calls a function of its own of that name.
            own = where != path and _defines(tree, fn.name)
            out += [
                (where, caller, around, tree)
                for caller, around, bare in found
                if not (own and bare)
            ]
        return out


def _defines(tree: ast.Module, name: str) -> bool:
    """Whether the module defines a function `name` at its top level."""
    return any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in tree.body
    )


def _calls_in(tree: ast.Module) -> dict[str, list[_Call] | None]:
    """Every name a module calls (`name(...)`, `x.name(...)`), with each call's function, the
    names around it and whether it is a bare name's; None for a name also used otherwise
    (handed on as a value, bound over, spelt in a string, imported under another name). One
    walk of the module, whatever names are asked about."""
    out: dict[str, list[_Call] | None] = {}
    other: set[str] = set()
    called: set[int] = set()
    todo: list[tuple[ast.AST, _Fn | None, tuple[str, ...]]] = [(tree, None, ())]
    while todo:
        node, fn, outer = todo.pop()
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name:
                called.add(id(f))
                calls = out.setdefault(name, [])
                if calls is not None:
                    calls.append((fn, outer, isinstance(f, ast.Name)))
        elif isinstance(node, ast.Name) and id(node) not in called:
            other.add(node.id)
        elif isinstance(node, ast.Attribute) and id(node) not in called:
            other.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            other.add(node.value)  # `getattr(obj, "name")`, a registry keyed by the name
        elif isinstance(node, ast.alias) and node.asname not in (None, node.name):
            other.add(node.name.split(".")[-1])  # its calls go by another name
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for child in ast.iter_child_nodes(node):
                todo.append((child, node, (*outer, node.name)))
            continue
        if isinstance(node, ast.ClassDef):
            for child in ast.iter_child_nodes(node):
                todo.append((child, fn, (*outer, node.name)))
            continue
        if fn is None and not outer and isinstance(node, ast.If) and main_guard(node.test):
            todo.extend((child, None, _SCRIPT) for child in reversed(node.body))
            todo.extend((child, None, outer) for child in reversed(node.orelse))
            continue
        # children after the node: a call's callee is met after the call itself
        todo.extend((child, fn, outer) for child in reversed(list(ast.iter_child_nodes(node))))
    for name in other:
        out[name] = None
    return out


def sends_here(nodes: list[ast.AST]) -> bool:
    """A request sent by these nodes themselves: a call of a request's name, a call given a
    request's argument (not one that presents it), a request body written as a dict."""
    for node in nodes:
        if isinstance(node, ast.Call):
            callee = _callee(node)
            if callee in _SEND_CALLS:
                return True
            if (
                not callee[:1].isupper()  # a record built (`Result(message=m)`), not sent
                and not set(words(callee)) & _PRESENTS
                and any(k.arg in _SENT_KEYWORDS for k in node.keywords)
            ):
                return True
        elif isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if "model" in keys and keys & _BODY_KEYS:
                return True
    return False


def _keeps_elsewhere(fn: _Fn) -> bool:
    """A value kept where other code reads it: on an object's attribute (`self.window = w`,
    `self.history.append(m)`), in what a parameter holds (`state["messages"] = kept`), in a
    global or an enclosing function's name."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    for node in walk_cached(fn):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
        for t in assigned(node):
            for sub in walk_cached(t):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    return True
                if isinstance(sub, ast.Subscript) and _root_name(sub) in params:
                    return True  # `session.state["messages"] = kept`: on what it was handed
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _STORES
            and isinstance(node.func.value, ast.Attribute)
            and _root_is_self(node.func.value)
        ):
            return True  # `self.history.append(m)`: kept on the object
    return False


def _root_name(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _root_is_self(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _functions(tree: ast.Module) -> list[tuple[_Fn, tuple[str, ...]]]:
    out: list[tuple[_Fn, tuple[str, ...]]] = []
    todo: list[tuple[ast.AST, tuple[str, ...]]] = [(tree, ())]
    while todo:
        node, outer = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((child, outer))
                todo.append((child, (*outer, child.name)))
            elif isinstance(child, ast.ClassDef):
                todo.append((child, (*outer, child.name)))
            else:
                todo.append((child, outer))
    return out


def _asks(name: str) -> bool:
    ws = set(words(name))
    return bool(ws & _ASKS) and not ws & _PRESENTS


def _decorator_name(dec: ast.expr) -> str:
    """`@router.get("/x")` -> "get"; `@functools.lru_cache(8)` -> "lru_cache"."""
    f = dec.func if isinstance(dec, ast.Call) else dec
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _decorator_words(dec: ast.expr) -> set[str]:
    """`@mcp.tool()` -> {"tool"}; `@app.on_event(...)` -> {"on", "event"}."""
    return set(words(_decorator_name(dec)))


def _test_file(path: str) -> bool:
    """A file of the project's tests by its name (`test_chat.py`, `chat_test.py`,
    `conftest.py`); a folder's name is not read (the project may sit in a folder so named)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def _in_test(name: str, outer: tuple[str, ...]) -> bool:
    ws = words(name)
    return (bool(ws) and ws[0] == "test") or any(
        o.startswith("Test") or words(o)[:1] == ["test"] for o in outer
    )


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
