"""Whether a prompt builder runs per request or once per conversation, decided by its callers,
in its own file and in the project's other files. A clock or machine state read in a function
breaks the cache per turn only where that function runs per turn: called in a loop (a chat
loop, an agent's steps) or in a request handler. Called only where a conversation starts (a
session or chat object's construction, a constructor, a function named for starting a chat,
session or agent, a first message stored while the history is empty) or at a CLI start, it
fills the same text into every request of the conversation, so its volatile findings
(PL101-PL106) are dropped; called at a module's load, all but a clock's (a server's process
outlives the day), and a clock's too in a script run once (a module-level `if __name__ ==
"__main__":`, no request handler, no server or bot framework imported): a run is one
conversation, as a direct read at import into a prompt constant is. A caller not read (the
builder handed on as a value, a star import, a file the search does not reach) keeps them.
Pure: syntax trees in, kinds out; the engine finds the other files (`policies/pycallers.py`).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from ..findings import Finding
from ..meaning import HISTORY_WORDS, VOLATILE_CODES, words
from .runonce import starts_conversation
from .syntax import walk_cached

ONCE = "once"
LOAD = "module load"
PER_TURN = "per turn"
UNKNOWN = "unknown"

_VOLATILE = frozenset(VOLATILE_CODES.values())
_Fns = (ast.FunctionDef, ast.AsyncFunctionDef)
# A clock read when a module loads is read once a process; a server's process outlives the day
# and restarts when deployed, so its date still changes the prefix (real8's rule): a module
# load settles the other volatile values (a folder listed, a seed drawn), not a clock.
_CLOCK = frozenset({VOLATILE_CODES["time"], VOLATILE_CODES["date"]})
# Words of a class whose instance is one conversation (`ChatSession`, `ConversationState`).
_SESSION = frozenset({"session", "conversation", "thread"})
# A function named for starting something (`new_conversation`, `create_agent`, `init_chat`)...
_START = frozenset(
    {"start", "new", "init", "initialize", "initialise", "setup", "create", "begin", "bootstrap"}
)
# ... that a conversation is made of or runs in ...
_STARTED = frozenset(
    {"session", "conversation", "chat", "thread", "agent", "assistant", "bot", "graph", "app"}
)
# ... and not for answering one of its requests (`create_chat_completion`, `new_message`).
_PER_REQUEST = frozenset(
    {"message", "messages", "response", "completion", "reply", "turn", "request", "answer"}
)
# A flag's words for a conversation's first turn (`is_new_conversation`, `first_message`).
_FIRST = frozenset({"new", "first", "fresh"})
# A CLI's entry points: run once a process.
_ENTRY = frozenset({"main", "cli", "__init__"})
# Frameworks whose process serves requests or chats for days (a web server, a bot's gateway, a
# scheduler): a module loaded in one is not loaded once a conversation.
_SERVES = frozenset(
    {"fastapi", "flask", "django", "starlette", "aiohttp", "uvicorn", "gunicorn", "sanic"}
    | {"tornado", "quart", "litestar", "discord", "telegram", "aiogram", "slack_bolt", "slack_sdk"}
    | {"twitchio", "websockets", "socketio", "gradio", "streamlit", "chainlit", "celery"}
    | {"apscheduler", "schedule", "grpc", "flet", "nicegui", "rq"}
)
# Frameworks whose process is a long-running server that conversations come back to: a web
# framework's app, a chat platform's bot, a LiveKit agent worker. Not the pages of Streamlit,
# Gradio or a notebook, nor a desktop app, whose process is one user's session.
SERVERS = frozenset(
    {"fastapi", "flask", "django", "starlette", "aiohttp", "uvicorn", "gunicorn", "sanic"}
    | {"tornado", "quart", "litestar", "discord", "telegram", "aiogram", "slack_bolt"}
    | {"livekit"}
)
# Modules of a program one user runs for one conversation: a desktop window or a terminal
# prompt. Not a Streamlit or Gradio page, nor a screen driver: real21 labels a computer-use
# Streamlit app's date read at import a breaker (its server process outlives the session).
ONE_USER = frozenset(
    {"tkinter", "PyQt5", "PyQt6", "PySide2", "PySide6", "wx", "prompt_toolkit", "textual"}
    | {"questionary", "inquirer"}
)
# Decorators that register a request handler (`@app.post("/chat")`, `@router.websocket(...)`).
_ROUTES = frozenset({"get", "post", "put", "patch", "delete", "route", "websocket", "api_route"})

# (function name) -> the kinds of its callers in the project's other files; None: not searched
# (no project, too large), so unknown.
Callers = Callable[[str], list[str] | None]


@dataclass(frozen=True)
class Refs:
    """How a file names the builder: bare names (`from .prompts import build as b`) and dotted
    prefixes it is read through (`import app.prompts as p` then `p.build`)."""

    names: frozenset[str]
    prefixes: frozenset[str]


def drop_started_once(
    tree: ast.Module, found: list[Finding], callers: Callers | None
) -> list[Finding]:
    """`found` less the volatile findings of module-level functions whose every caller (here
    and, through `callers`, in other files) runs once per conversation."""
    if not any(f.code in _VOLATILE for f in found):
        return found
    spans: dict[str, tuple[int, int]] = {}
    for fn in tree.body:
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A name defined twice is ambiguous: keep its findings.
            spans[fn.name] = (-1, -1) if fn.name in spans else (fn.lineno, fn.end_lineno or 0)
    held = {
        name
        for name, (a, b) in spans.items()
        if a > 0 and any(f.code in _VOLATILE and a <= f.line <= b for f in found)
    }
    if not held:
        return found
    # and the module-level functions calling them (`build_system_prompt()` calling the
    # `today()` that reads the clock), a level at a time
    named = set(held)
    for _ in range(3):
        more = {
            fn.name
            for fn in tree.body
            if isinstance(fn, _Fns)
            and fn.name not in named
            and spans.get(fn.name, (-1, -1))[0] > 0
            and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in named
                for n in walk_cached(fn)
            )
        }
        if not more:
            break
        named |= more
    refs = Refs(frozenset(named), frozenset())
    here = call_kinds(tree, refs)
    searched: dict[str, list[str] | None] = {}
    for name in named:
        # another module may call a public function: its callers unknown where not searched
        searched[name] = (
            [] if name.startswith("_") else callers(name) if callers is not None else None
        )
    # A helper called only by builders that run once a conversation runs once too
    # (`build_system_prompt()` calling `git_context()`): settled a level a round.
    settled: set[str] = set()
    for _ in range(3):
        now = {
            name
            for name in named
            if searched[name] is not None
            and (here.get(name) or searched[name])
            and all(k == ONCE for k in [*here.get(name, []), *(searched[name] or [])])
        }
        if now == settled:
            break
        settled = now
        here = call_kinds(tree, refs, frozenset(settled))
    once: list[tuple[int, int]] = []  # every caller once a conversation
    loaded: list[tuple[int, int]] = []  # ... or at a module's load
    scripted: list[tuple[int, int]] = []  # ... or at the load of this script only
    script = runs_once(tree)
    for name in sorted(held):
        kinds = list(here.get(name, []))
        found_elsewhere = searched[name]
        if found_elsewhere is None:
            continue
        elsewhere: list[str] = found_elsewhere
        kinds += elsewhere
        if kinds and all(k == ONCE for k in kinds):
            once.append(spans[name])
        elif kinds and all(k in (ONCE, LOAD) for k in kinds):
            loaded.append(spans[name])
            if script and LOAD not in elsewhere:
                scripted.append(spans[name])
    return [
        f
        for f in found
        if not (
            f.code in _VOLATILE
            and (
                any(a <= f.line <= b for a, b in once)
                or (f.code not in _CLOCK and any(a <= f.line <= b for a, b in loaded))
                or any(a <= f.line <= b for a, b in scripted)
            )
        )
    ]


def runs_once(tree: ast.Module) -> bool:
    """A script whose run is one conversation: it has a module-level `if __name__ ==
    "__main__":`, registers no request handler and imports no server, bot or scheduler
    framework (whose process outlives the day)."""
    if not any(isinstance(s, ast.If) and main_guard(s.test) for s in tree.body):
        return False
    return not serves(tree)


def serves(tree: ast.Module) -> bool:
    """Whether a file imports a server, bot or scheduler framework (whose process outlives
    the day) or registers a request handler."""
    for n in walk_cached(tree):
        if isinstance(n, ast.Import) and any(a.name.split(".")[0] in _SERVES for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in _SERVES:
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _route(d) for d in n.decorator_list
        ):
            return True
    return False


def hosts_server(tree: ast.Module) -> bool:
    """Whether a file imports a long-running server's framework (`SERVERS`) or registers a
    web request handler (`@app.post("/chat")`)."""
    for n in walk_cached(tree):
        if isinstance(n, ast.Import) and any(_server_module(a.name) for a in n.names):
            return True
        if (
            isinstance(n, ast.ImportFrom)
            and not n.level
            and n.module
            and (
                _server_module(n.module)
                or any(_server_module(f"{n.module}.{a.name}") for a in n.names)
            )
        ):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _route(d) for d in n.decorator_list
        ):
            return True
    return False


def one_user(tree: ast.Module) -> bool:
    """Whether a file shows a program one user runs per conversation: it imports a window's
    or a terminal prompt's module (`ONE_USER`), or reads the terminal with the builtin
    `input()`."""
    for n in walk_cached(tree):
        if isinstance(n, ast.Import) and any(a.name.split(".")[0] in ONE_USER for a in n.names):
            return True
        if (
            isinstance(n, ast.ImportFrom)
            and not n.level
            and n.module
            and n.module.split(".")[0] in ONE_USER
        ):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "input":
            return True
    return False


def _server_module(name: str) -> bool:
    """A server framework's module; aiohttp's only as `aiohttp.web` (its client is no
    server)."""
    head = name.split(".")[0]
    if head == "aiohttp":
        return name.startswith("aiohttp.web")
    return head in SERVERS


def call_kinds(
    tree: ast.Module, refs: Refs, once: frozenset[str] = frozenset()
) -> dict[str, list[str]]:
    """For each builder `refs` names, the kind of each place this file reads it: ONCE,
    PER_TURN or UNKNOWN (read but not called, or called where neither is known). A call outside
    the loops of a module-level function named in `once` (one known to run once a
    conversation) is ONCE. One walk of the file, whatever the builders."""
    out: dict[str, list[str]] = {}
    # (node, enclosing function, in a loop of it, in a session's construction, in a branch
    # taken while the history is empty, under `if __name__ == "__main__"`)
    stack: list[tuple[ast.AST, ast.AST | None, bool, bool, bool, bool]] = [
        (tree, None, False, False, False, False)
    ]
    called: set[int] = set()  # the callees of calls met: a call is met before its callee
    starts: dict[int, set[int]] = {}  # a function's lines feeding the conversation it starts
    while stack:
        node, fn, loop, session, empty, entry = stack.pop()
        if isinstance(node, ast.Call) and _ref(node.func, refs) is not None:
            called.add(id(node.func))
        name = _ref(node, refs)
        if name is not None:
            kind = _kind(fn, loop, session, empty, entry, id(node) in called)
            if kind == UNKNOWN and id(node) in called and not loop and isinstance(fn, _Fns):
                if fn.name in once and fn in tree.body:
                    kind = ONCE  # called by a builder that runs once a conversation
                if id(fn) not in starts:
                    starts[id(fn)] = starts_conversation(fn)
                if getattr(node, "lineno", 0) in starts[id(fn)]:
                    kind = ONCE  # the system message of a conversation the function starts
            out.setdefault(name, []).append(kind)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            fn, loop, empty = node, False, False
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
            loop = True
        elif isinstance(node, ast.Call):
            callee = _callee(node)
            session = session or (callee[:1].isupper() and bool(set(words(callee)) & _SESSION))
        if isinstance(node, ast.If):
            empty_here = _history_empty(node.test)
            entry_here = main_guard(node.test)
            stack.extend(
                (c, fn, loop, session, empty or empty_here, entry or entry_here) for c in node.body
            )
            stack.extend((c, fn, loop, session, empty, entry) for c in node.orelse)
            stack.append((node.test, fn, loop, session, empty, entry))
            continue
        stack.extend(
            (child, fn, loop, session, empty, entry) for child in ast.iter_child_nodes(node)
        )
    return out


def _ref(node: ast.AST, refs: Refs) -> str | None:
    """The builder `node` names, if it names one."""
    if isinstance(node, ast.Name) and node.id in refs.names and isinstance(node.ctx, ast.Load):
        return node.id
    if isinstance(node, ast.Attribute) and refs.prefixes and _dotted(node.value) in refs.prefixes:
        return node.attr
    return None


def _kind(
    fn: ast.AST | None,
    loop: bool,
    session: bool,
    empty: bool,
    entry: bool,
    called: bool,
) -> str:
    if not called:
        return UNKNOWN  # handed on as a value: where it runs is not read
    if session or empty:
        return ONCE  # a conversation's construction, its first message stored once
    if loop:
        return PER_TURN
    if entry:
        return ONCE  # a CLI's start
    if fn is None:
        return LOAD
    if isinstance(fn, ast.Lambda):
        return UNKNOWN
    assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
    if any(_route(d) for d in fn.decorator_list):
        return PER_TURN
    ws = set(words(fn.name))
    if fn.name in _ENTRY or (ws & _START and ws & _STARTED and not ws & _PER_REQUEST):
        return ONCE
    return UNKNOWN


def _route(dec: ast.expr) -> bool:
    f = dec.func if isinstance(dec, ast.Call) else dec
    return isinstance(f, ast.Attribute) and f.attr in _ROUTES


def _history_empty(test: ast.expr) -> bool:
    """`not history`, `len(self.messages) == 0`, `history is None`, `messages == []`, or a
    flag named for a conversation's first turn (`if is_new_conversation:`)."""
    flag = test.attr if isinstance(test, ast.Attribute) else _dotted(test)
    if flag is not None:
        ws = set(words(flag))
        if ws & _FIRST and ws & (_STARTED | {"turn", "message"}):
            return True
    target: ast.expr | None = None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        target = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(left, ast.Call) and _callee(left) == "len" and left.args:
            zero = isinstance(op, (ast.Eq, ast.LtE)) and _is_const(right, 0)
            if zero or (isinstance(op, ast.Lt) and _is_const(right, 1)):
                target = left.args[0]
        elif isinstance(op, (ast.Is, ast.Eq)) and (
            _is_const(right, None) or (isinstance(right, ast.List) and not right.elts)
        ):
            target = left
    if target is None:
        return False
    leaf = target.attr if isinstance(target, ast.Attribute) else _dotted(target)
    return bool(set(words(leaf or "")) & HISTORY_WORDS)


def main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(_is_const(c, "__main__") for c in test.comparators)
    )


def _is_const(node: ast.expr, value: object) -> bool:
    return (
        isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value
    )


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` -> "a.b.c"; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def imports_of(tree: ast.Module) -> list[tuple[str, int, str | None, str]]:
    """The file's imports as (module, level, imported name or None for `import M`, local
    name): `from ..p import b as c` -> ("p", 2, "b", "c"); `import a.b` -> ("a.b", 0, None,
    "a.b"); `import a.b as x` -> ("a.b", 0, None, "x")."""
    out: list[tuple[str, int, str | None, str]] = []
    for node in walk_cached(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, 0, None, a.asname or a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out += [(node.module or "", node.level, a.name, a.asname or a.name) for a in node.names]
    return out
