"""PL303 in Python: the conversation loaded as its last few messages by a call named for
loading it (`channel.get_message_history(chat_history_length)` with `chat_history_length = 10`,
`store.get_recent_messages(session_id, limit=20)`, a chat log's newest lines
`read_last_n_lines(LOGFILE, 30)`, or a remote method named in a string with its cap in a dict:
`request("conversation.get", {"limit": 12})`, or a loader the module defines with a cap it
leaves at its default, `def get_conversation_history(sid, limit: int = 10)`), in a file that
builds chat messages (`role` keys or message classes). The loader's cap makes a sliding
window: once the conversation is longer, its first message moves on every turn and every
request misses the cache from there. A cap of one (the latest message) is no window, nor is a
dict asking for the oldest first (`"order": "asc"`), and neither is an excerpt read for a side
request: a loader called in a function named for a decision or a side task (`should_act`,
`is_relevant`, `classify_intent`). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re

from ..meaning import HISTORY_WORDS, SIDE_WORDS, words
from .context import Context
from .syntax import const_str, walk_cached

# First words of a call that reads the conversation back.
_LOADS = frozenset({"get", "load", "fetch", "read", "retrieve", "recent", "last", "latest", "tail"})
# A log's newest lines read back (`read_last_n_lines(LOGFILE, 30)`, `tail_lines(path, 20)`)
# in a file that builds chat messages: the chat log as the conversation.
_NEWEST = frozenset({"last", "recent", "latest", "newest", "tail"})
_LINES = frozenset({"lines", "entries", "logs"})
# A chat message built by its class (`HumanMessage(content=q)`, `SystemMessage(...)`).
_MESSAGE_CLASS = re.compile(r"\b(?:Human|System|AI|Assistant|User)Message\(")
# Keywords that cap how many messages come back.
_CAPS = frozenset({"limit", "n", "k", "count", "last", "max", "length", "size", "num", "top"})
# First words of a function that asks a yes/no question (`should_act`, `is_relevant`), and the
# words of one for a side task.
_DECIDES = frozenset({"should", "is", "needs", "must", "can", "wants"})
_SIDE = SIDE_WORDS | {"analyze", "analyse", "analysis", "intent", "detect", "extract"}
_WHY = (
    "the conversation is loaded as its last messages (`{call}`): once it is longer than the "
    "cap, its first message changes every turn and every request misses the cache from there "
    "on; load the whole conversation, or summarise and cut it in large steps"
)


def check_loaded_windows(tree: ast.Module, ctx: Context) -> None:
    if not any("role" in line or _MESSAGE_CLASS.search(line) for line in ctx.lines):
        return  # no chat messages built here: the loader's caller sends them, if anyone
    consts = _int_consts(tree)
    inits_read = False
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | None] | None = None
    # a read the window rules already report (`history = load(limit=n)`): one finding a line
    told = {f.line for f in ctx.findings.in_order() if f.code == "PL303"}
    for n, fn in _calls(tree):
        if n.lineno in told:
            continue
        if fn is not None:
            fw = words(fn)
            if fw[:1] and (fw[0] in _DECIDES or set(fw) & _SIDE):
                continue
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        ws = words(name)
        rows = set(ws) & HISTORY_WORDS or (set(ws) & _NEWEST and set(ws) & _LINES)
        if not (ws and ws[0] in _LOADS and rows and "id" not in ws):
            # a call naming its remote method in a string (`request("conversation.get", ...)`)
            said = {w for a in n.args if (t := const_str(a)) for w in words(t)}
            if not (said & _LOADS and said & HISTORY_WORDS):
                continue
        if not inits_read and any(
            isinstance(a, ast.Attribute) for a in [*n.args, *(k.value for k in n.keywords)]
        ):
            # `get_history(sid, self.memory_size)`: the instances' caps, read once a file
            consts.update(_init_consts(tree))
            inits_read = True
        capped = [a for a in n.args if _cap(a, consts)]
        capped += [
            k.value
            for k in n.keywords
            if k.arg and set(words(k.arg)) & _CAPS and _cap(k.value, consts)
        ]
        capped += [v for a in n.args if isinstance(a, ast.Dict) for v in _dict_caps(a, consts)]
        if not capped and name:
            if defs is None:
                defs = _defs(tree)
            capped = _default_caps(n, defs.get(name))
        if capped:
            ctx.flag(n, "PL303", _WHY.format(call=ast.unparse(n)[:70]))


def _calls(tree: ast.Module) -> list[tuple[ast.Call, str | None]]:
    """Every call, with the name of the innermost function around it; one walk."""
    out: list[tuple[ast.Call, str | None]] = []
    stack: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while stack:
        node, fn = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = node.name
        elif isinstance(node, ast.Call):
            out.append((node, fn))
        stack.extend((c, fn) for c in ast.iter_child_nodes(node))
    return out


def _defs(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef | None]:
    """The functions and methods of the module by name (None where a name is defined twice:
    which one a call reaches is not known)."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | None] = {}
    for n in walk_cached(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[n.name] = None if n.name in out else n
    return out


def _default_caps(
    call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef | None
) -> list[ast.expr]:
    """`get_conversation_history(user_id, session_id)` where the module defines it with `limit:
    int = 10`: a cap the call leaves at its default of two or more (a parameter named for a
    cap, given neither by position nor by keyword)."""
    if fn is None:
        return []
    params = fn.args.posonlyargs + fn.args.args
    if params and params[0].arg in ("self", "cls"):
        params = params[1:]
    defaults = dict(
        zip(
            [a.arg for a in params][len(params) - len(fn.args.defaults) :],
            fn.args.defaults,
            strict=True,
        )
    )
    defaults.update(
        (a.arg, d)
        for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
        if d is not None
    )
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return []
    given = {a.arg for a in params[: len(call.args)]} | {k.arg for k in call.keywords}
    return [
        d for p, d in defaults.items() if p not in given and set(words(p)) & _CAPS and _cap(d, {})
    ]


def _dict_caps(d: ast.Dict, consts: dict[str, int]) -> list[ast.expr]:
    """The caps of a request's parameters written as a dict (`{"limit": 12}`); none where it
    asks for the oldest first (`"order": "asc"`): the first messages, a prefix that only grows
    until the cap and then stays."""
    keys = [const_str(k) or "" for k in d.keys]
    for k, v in zip(keys, d.values, strict=True):
        if set(words(k)) & {"order", "sort", "direction"} and "asc" in (const_str(v) or "").lower():
            return []
    return [
        v for k, v in zip(keys, d.values, strict=True) if set(words(k)) & _CAPS and _cap(v, consts)
    ]


def _int_consts(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound once to an integer (`chat_history_length = 10`)."""
    seen: dict[str, int | None] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t = stmt.targets[0]
            if isinstance(t, ast.Name):
                v = stmt.value.value if isinstance(stmt.value, ast.Constant) else None
                # bound twice: which value a call reads is not known
                seen[t.id] = v if isinstance(v, int) and t.id not in seen else None
    return {k: v for k, v in seen.items() if v is not None}


def _init_consts(tree: ast.Module) -> dict[str, int]:
    """`self.memory_size = memory_size` in an `__init__` whose parameter defaults to an integer
    (or `self.memory_size = 10`): the instance's cap, keyed `self.memory_size`. An attribute
    bound twice, or to anything else, is left out."""
    seen: dict[str, int | None] = {}
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name != "__init__":
            continue
        params = fn.args.posonlyargs + fn.args.args
        defaults: dict[str, object] = {
            a.arg: d.value if isinstance(d, ast.Constant) else None
            for a, d in zip(
                params[len(params) - len(fn.args.defaults) :], fn.args.defaults, strict=True
            )
        }
        defaults.update(
            (a.arg, d.value if isinstance(d, ast.Constant) else None)
            for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
            if d is not None
        )
        for stmt in walk_cached(fn):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            t = stmt.targets[0]
            if not (
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
            ):
                continue
            v = stmt.value
            value = (
                v.value
                if isinstance(v, ast.Constant)
                else defaults.get(v.id)
                if isinstance(v, ast.Name)
                else None
            )
            key = f"self.{t.attr}"
            seen[key] = value if type(value) is int and key not in seen else None
    return {k: v for k, v in seen.items() if v is not None}


def _cap(arg: ast.expr, consts: dict[str, int]) -> bool:
    """A count of two or more messages: a literal, a module constant or an instance's cap."""
    if isinstance(arg, ast.Constant) and type(arg.value) is int:
        return arg.value >= 2
    key = ast.unparse(arg) if isinstance(arg, (ast.Name, ast.Attribute)) else ""
    if key in consts:
        return consts[key] >= 2
    return False
