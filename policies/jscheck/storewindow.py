"""PL303 in TypeScript: the conversation loaded from a store as its newest rows. A query for a
chat's messages ordered newest first and capped (`db.messages.findMany({ orderBy: { id: "desc" },
take: limit })`, Prisma's and TypeORM's options) is a window by position: once the chat holds
more rows than the cap, its first message moves on with every turn and every request misses
the cache from there. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .syntax import Source, arguments, key_name, unwrap, walk

_ROWS = HISTORY_WORDS | {"message", "turn", "chats", "conversations"}
_ORDER = frozenset({"orderBy", "order", "sort"})
_CAP = frozenset({"take", "limit"})


def _newest_first(src: Source, value: Node) -> bool:
    return any(
        n.type == "string" and src.text(n).strip("'\"`").lower() == "desc" for n in walk(value)
    )


def check_store_window(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "call_expression":
            continue
        callee = n.child_by_field_name("function")
        if callee is None or not set(words(src.text(callee))) & _ROWS:
            continue
        for a in arguments(n):
            a = unwrap(a)
            if a.type != "object":
                continue
            pairs = {
                key_name(src, p.child_by_field_name("key")): p
                for p in a.named_children
                if p.type == "pair"
            }
            order = next((pairs[k] for k in _ORDER if k in pairs), None)
            cap = next((pairs[k] for k in _CAP if k in pairs), None)
            if order is None or cap is None or not _newest_first(src, order):
                continue
            out.append(
                src.finding(
                    cap,
                    "PL303",
                    f"the conversation is loaded as its newest rows (`{src.text(cap)}`, newest "
                    "first): once the chat holds more, its first message moves on every turn and "
                    "every request misses the cache from there; load it whole and summarise or "
                    "cut it in large steps",
                )
            )
    return out
