"""PL303 in Python: the newest user message sent is not the one the history keeps. A function
that sends, as its newest user message, text joined from the earlier user messages of the
history it replays (`"\\n".join([m["content"] for m in history if m["role"] == "user"] +
[new])`) and then stores only the new text in that history (`history.append({"role": "user",
"content": new})`) sends the previous turn with other bytes than the next request replays: the
cache breaks at that message on every turn, and the rest of the conversation is billed again.

Read in one function: a message of role `user` whose content is a `.join(...)` of a list built
from the history (a comprehension over it, or a local bound to one), and an append of a user
message with another content to that same history. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import HISTORY_WORDS, words
from .context import Context
from .syntax import const_str, last_name, walk_no_defs

_WHY = (
    "the newest user message is sent as text joined from the history's earlier user messages "
    "(`{sent}`), but the history keeps only `{kept}`: the next request replays that turn with "
    "other bytes, so the cache breaks there every turn; send the message as it is stored"
)


def _history(node: ast.expr) -> str | None:
    name = last_name(node)
    if name and set(words(name)) & HISTORY_WORDS:
        return ast.unparse(node)
    return None


def _user_content(node: ast.expr) -> ast.expr | None:
    """The content of `{"role": "user", "content": c}`, else None."""
    if not isinstance(node, ast.Dict):
        return None
    items = {const_str(k): v for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    role = items.get("role")
    if role is None or const_str(role) != "user":
        return None
    return items.get("content")


def _drawn_from(value: ast.expr, history: str) -> bool:
    """A comprehension (or list) whose loop runs over `history`."""
    for n in ast.walk(value):
        if isinstance(n, (ast.ListComp, ast.GeneratorExp)) and any(
            ast.unparse(g.iter) == history for g in n.generators
        ):
            return True
    return False


def check_sent_apart(tree: ast.Module, ctx: Context) -> None:
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        kept: dict[str, list[ast.expr]] = {}  # history -> contents of user messages appended
        bound: dict[str, list[ast.expr]] = {}
        for n in walk_no_defs(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                if isinstance(n.targets[0], ast.Name):
                    bound.setdefault(n.targets[0].id, []).append(n.value)
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "append"
                and len(n.args) == 1
                and (h := _history(n.func.value)) is not None
                and (c := _user_content(n.args[0])) is not None
            ):
                kept.setdefault(h, []).append(c)
        if not kept:
            continue
        for n in walk_no_defs(fn):
            sent = _user_content(n) if isinstance(n, ast.Dict) else None
            if not (
                isinstance(sent, ast.Call)
                and isinstance(sent.func, ast.Attribute)
                and sent.func.attr == "join"
                and len(sent.args) == 1
            ):
                continue
            joined = sent.args[0]
            sources = [joined]
            if isinstance(joined, ast.Name):
                sources += bound.get(joined.id, [])
            for history, stored in kept.items():
                if any(_drawn_from(s, history) for s in sources) and all(
                    ast.unparse(c) != ast.unparse(sent) for c in stored
                ):
                    ctx.flag(
                        n,
                        "PL303",
                        _WHY.format(sent=ast.unparse(sent)[:50], kept=ast.unparse(stored[0])[:50]),
                    )
                    break
