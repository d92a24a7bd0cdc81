"""Prefix findings dropped where the prompt goes only into one-shot requests: a function whose
every request sends a message list written out in the function itself, system messages and at
most one user message (the last), none of them drawn from a conversation
(`llm.invoke([SystemMessage(content=prompt)])`, `create(messages=[system, user])` with both
names bound to such messages, or a list opened with a system message and grown, outside any
loop, by appends of messages written out there), or a request given its system text and one
user text by keyword with nothing that carries a conversation (`chat_completion(system=s,
user=text)`; no message list, no keyword for a history, a session or an earlier response but an
empty `history=[]`). No history follows that system prompt and no
later request extends the list, so the request's own subject written into it (the current
request, PL304 "ahead of the conversation history"; an id it is about, PL103; a step or count,
PL106) breaks no repeated prefix: two
such requests never share it anyway. A clock or a file tree there is still reported: it changes
between requests that are otherwise the same, and the static text after it is lost. The
function is the one holding the prompt's line, or the function of this file that a finding's
line calls (a caller handing the value to it). A list bound to a name that is grown, returned
or handed on anywhere but straight into a send, a request with a history in it, or a second
request that sends anything else keeps the findings. Pure: a syntax tree and findings in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import VOLATILE_CODES, words
from ..reach import sink_line
from .runonce import _message, _own, _system, message_role
from .side import _HISTORY_WORDS, _sends
from .syntax import callee, walk_cached

_USER_CLASSES = frozenset({"HumanMessage", "UserMessage"})
# A request's keywords for its system text, its one user text, and what carries a conversation
# from an earlier request (a history, a session or thread id, an earlier response).
_SYSTEM_KEYWORDS = frozenset({"system", "system_prompt", "system_message", "instructions"})
_USER_KEYWORDS = frozenset(
    {"user", "user_prompt", "user_message", "user_input", "user_text", "prompt", "input", "query"}
)
_CARRIES = _HISTORY_WORDS | frozenset({"session", "thread", "previous", "context", "memory"})

_CODES = frozenset({VOLATILE_CODES["random"], VOLATILE_CODES["runtime"], "PL304"})
_Fn = ast.FunctionDef | ast.AsyncFunctionDef


def drop_one_shot(tree: ast.Module, found: list[Finding]) -> list[Finding]:
    if not any(f.code in _CODES for f in found):
        return found
    fns = [n for n in walk_cached(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    shots = {id(fn): _one_shot(fn) for fn in fns}
    if not any(shots.values()):
        return found
    by_name: dict[str, list[_Fn]] = {}
    for fn in fns:
        by_name.setdefault(fn.name, []).append(fn)
    calls: dict[int, set[str]] = {}  # line -> names of this file's functions called there
    for node in walk_cached(tree):
        if isinstance(node, ast.Call):
            name = callee(node)
            if name in by_name:
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    calls.setdefault(line, set()).add(name)
    out = []
    for f in found:
        if f.code in _CODES and _into_one_shot(f, fns, by_name, calls, shots):
            continue
        out.append(f)
    return out


def _into_one_shot(
    f: Finding,
    fns: list[_Fn],
    by_name: dict[str, list[_Fn]],
    calls: dict[int, set[str]],
    shots: dict[int, bool],
) -> bool:
    sink = sink_line(f)
    line = sink if sink is not None else f.line
    holding = [fn for fn in fns if fn.lineno <= line <= (fn.end_lineno or fn.lineno)]
    if holding:
        inner = max(holding, key=lambda fn: fn.lineno)
        if shots[id(inner)]:
            return True
    # a caller's line: the value is handed to a function of this file that sends it
    called = calls.get(f.line, set()) | (calls.get(sink, set()) if sink is not None else set())
    targets = [fn for name in called for fn in by_name[name]]
    return bool(targets) and all(shots[id(fn)] for fn in targets)


def _one_shot(fn: _Fn) -> bool:
    """Whether every request `fn` sends is a written-out system message and at most one user
    message, and it sends at least one."""
    nodes = _own(fn)
    lists: dict[str, list[ast.expr]] = {}  # names bound to such a list
    bound: dict[str, list[ast.expr]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(node.value)
    grown = _appended(fn, nodes)
    for name, values in bound.items():
        if len(values) == 1 and isinstance(values[0], ast.List):
            lists[name] = list(values[0].elts) + [a.args[0] for a in grown.get(name, [])]
    sent_names: set[str] = set()
    sends = 0
    for node in nodes:
        if not (isinstance(node, ast.Call) and _sends(node)):
            continue
        if _by_keywords(node):
            sends += 1
            continue
        for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "messages")]:
            elts: list[ast.expr] | None = None
            if isinstance(arg, ast.List):
                elts = list(arg.elts)
            elif isinstance(arg, ast.Name) and arg.id in lists:
                elts = lists[arg.id]
                sent_names.add(arg.id)
            elif _history(arg):
                return False  # a conversation sent as it stands
            if elts is None:
                continue
            if not _short_fresh(elts, bound):
                return False
            sends += 1
    if not sends:
        return False
    # a list sent by name is used nowhere but in its sends: not grown, returned or handed on
    for name in sent_names:
        for node in nodes:
            if (
                isinstance(node, ast.Name)
                and node.id == name
                and isinstance(node.ctx, ast.Load)
                and not _argument_of_send(node, nodes)
                and not any(node is _receiver(a) for a in grown.get(name, []))
            ):
                return False
            if isinstance(node, ast.AugAssign) and _named(node.target, name):
                return False
    return True


def _by_keywords(call: ast.Call) -> bool:
    """A request given its system text and one user text by keyword and nothing that carries a
    conversation (`chat_completion(system=s, user=text)`): no message list, no positional
    argument, no keyword named for a history, a session or an earlier response unless it is
    handed an empty list (`history=[]`)."""
    if call.args:
        return False
    names = {k.arg for k in call.keywords}
    if None in names or "messages" in names or not names & _SYSTEM_KEYWORDS:
        return False
    if not names & _USER_KEYWORDS:
        return False
    for k in call.keywords:
        carried = bool(set(words(k.arg or "")) & _CARRIES) or _history(k.value)
        if carried and not (isinstance(k.value, ast.List) and not k.value.elts):
            return False
    return True


def _short_fresh(elts: list[ast.expr], bound: dict[str, list[ast.expr]]) -> bool:
    """System messages and at most one user message, the last, each written out here (or a
    name bound once to one), none of them carrying a history: a request with no conversation
    in it, however its system text is split."""
    items = [_resolved(e, bound) for e in elts]
    if not items or not _system(items[0]):
        return False
    if not all(_message(i) for i in items):
        return False
    if not all(_system(i) for i in items[:-1]) or not (_system(items[-1]) or _user(items[-1])):
        return False
    return not any(_history(n) for i in items for n in walk_cached(i) if isinstance(n, ast.expr))


def _receiver(call: ast.Call) -> ast.expr | None:
    """`messages` of `messages.append(...)`."""
    return call.func.value if isinstance(call.func, ast.Attribute) else None


def _appended(fn: _Fn, nodes: list[ast.AST]) -> dict[str, list[ast.Call]]:
    """`messages.append({...})` statements of `fn` outside its loops, each adding one message
    written out here, by the list's name: the list grown once per call, not a conversation
    grown by replies. A name also grown any other way (in a loop, by `extend`, by a message
    that comes from elsewhere) is left out, so its list stays unknown."""
    loops = [n for n in nodes if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]
    inside = {id(x) for loop in loops for x in walk_cached(loop)}
    out: dict[str, list[ast.Call]] = {}
    spoilt: set[str] = set()
    for node in nodes:
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in {"append", "extend", "insert", "__iadd__"}
        ):
            continue
        name = node.func.value.id
        if (
            node.func.attr == "append"
            and id(node) not in inside
            and len(node.args) == 1
            and _message(node.args[0])
        ):
            out.setdefault(name, []).append(node)
        else:
            spoilt.add(name)
    for name in spoilt:
        out.pop(name, None)
    for calls in out.values():
        calls.sort(key=lambda c: (c.lineno, c.col_offset))  # in the order they run
    return out


def _resolved(e: ast.expr, bound: dict[str, list[ast.expr]]) -> ast.expr:
    if isinstance(e, ast.Name) and len(bound.get(e.id, [])) == 1:
        return bound[e.id][0]
    return e


def _user(item: ast.expr) -> bool:
    return message_role(item, ("user",), _USER_CLASSES)


def _history(node: ast.expr) -> bool:
    """A name or attribute named for a conversation (`history`, `state["messages"]`)."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return bool(set(words(key.value)) & _HISTORY_WORDS)
        return False
    name = (
        node.id
        if isinstance(node, ast.Name)
        else node.attr
        if isinstance(node, ast.Attribute)
        else ""
    )
    return bool(set(words(name)) & _HISTORY_WORDS)


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _argument_of_send(name: ast.Name, nodes: list[ast.AST]) -> bool:
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and _sends(node)
            and (any(a is name for a in node.args) or any(k.value is name for k in node.keywords))
        ):
            return True
    return False
