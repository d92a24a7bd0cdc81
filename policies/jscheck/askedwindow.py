"""PL303 in TypeScript: a chat request that asks its server to replay only the last turns of
the conversation (`{ conversationId, query, historyWindow: 8 }`, `maxHistory: 10`,
`historyLimit: 20`). The server keeps the conversation and sends the model a window of it, so
once the conversation is longer than the count its first message moves on with every turn and
every request misses the cache from there. Read only where the object is a request for one
conversation (it names the conversation or the session, or carries the new message) and the
count is written as a number past two; a setting passed on (`historyWindow: opts.window`) is
reported where its number is written. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .syntax import Source, key_name, unwrap, walk

# Not `turns` (`maxTurns`: an agent loop's rounds), not `context` (`contextWindow`: a size).
_HISTORY = frozenset({"history", "messages", "conversation"})
_CAP = frozenset({"window", "limit", "max", "last", "keep", "size", "length"})
_OWNER = frozenset({"conversation", "session", "chat", "thread"})
_MESSAGE_KEYS = frozenset({"query", "message", "question", "prompt", "input", "messages"})
_WHY = (
    "the server replays only the last turns, so once the conversation is longer its first "
    "message moves on every turn and every request misses the cache from there; ask for the "
    "whole conversation, or summarise it in large steps at a point you choose"
)


def _capped(src: Source, key: str, value: Node) -> bool:
    ws = set(words(key))
    if not (ws & _HISTORY and ws & _CAP) or "tokens" in ws:
        return False
    v = unwrap(value)
    return v.type == "number" and src.text(v).isdigit() and int(src.text(v)) > 2


def _a_request(keys: list[str]) -> bool:
    """A request about one conversation: `conversationId`, `sessionId`, or the new message."""
    for k in keys:
        ws = words(k)
        if k in _MESSAGE_KEYS or (len(ws) >= 2 and ws[-1] == "id" and set(ws) & _OWNER):
            return True
    return False


def check_asked_window(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "object":
            continue
        pairs = [p for p in n.named_children if p.type == "pair"]
        keys = [key_name(src, p.child_by_field_name("key")) or "" for p in pairs]
        keys += [src.text(p) for p in n.named_children if p.type == "shorthand_property_identifier"]
        for p, key in zip(pairs, keys, strict=False):
            value = p.child_by_field_name("value")
            if value is not None and _capped(src, key, value) and _a_request(keys):
                what = f"`{key}: {src.text(unwrap(value))}`"
                out.append(src.finding(p, "PL303", f"the request asks for a window {what}: {_WHY}"))
    return out
