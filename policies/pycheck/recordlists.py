"""Lists whose every item written in the file is a record, not a chat message.

`_veto_history.append({"ts": ..., "symbol": ..., "verdict": ...})` then `_veto_history[-20:]`:
the list's name says history, but what is put in it has no role and no message text; it is a
log of events, not a conversation replayed to a model, and a window over it moves no request's
prefix. Decided by the list's structure: it is grown only by dict displays with written-out
keys, none of them a message's (`role`, `content`, `text`, `parts`) or one side of an
exchange (`question`, `answer`, `user`, `bot`). A list grown by anything
else (a message object, a value from elsewhere, `extend`) may hold messages and is left to the
window rules. Pure: a syntax tree in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import words
from .syntax import const_str, dotted, walk_cached

_MESSAGE_KEYS = frozenset({"role", "content", "text", "parts", "message", "messages"})
# Words of a key that holds one side of an exchange (`{"question": q, "answer": a}`,
# `{"user": u, "bot": b}`): such pairs are a conversation kept in another shape and turned
# into messages when sent.
_TURN_WORDS = frozenset(
    {"user", "assistant", "bot", "human", "ai", "model", "question", "answer", "query"}
    | {"response", "reply", "input", "output", "prompt", "completion", "author", "sender"}
)
_GROWS = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})


def _record_display(node: ast.expr) -> bool:
    if not isinstance(node, ast.Dict) or not node.keys:
        return False
    keys = [const_str(k) if k is not None else None for k in node.keys]
    return all(
        k is not None and k not in _MESSAGE_KEYS and not set(words(k)) & _TURN_WORDS for k in keys
    )


def holds_records(lst: ast.expr, tree: ast.Module) -> bool:
    """Whether the list `lst` names (`log`, `self.log`) is grown in `tree` only, and at least
    once, by `append` of a record display (see the module's docstring)."""
    name = dotted(lst)
    if name is None:
        return False
    grown = 0
    for node in walk_cached(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _GROWS
            and dotted(node.func.value) == name
        ):
            continue
        if node.func.attr != "append" or len(node.args) != 1:
            return False
        if not _record_display(node.args[0]):
            return False
        grown += 1
    return grown > 0
