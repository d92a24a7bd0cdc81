"""PL303 in TypeScript: the conversation loaded from a store as its newest rows. A query for a
chat's messages ordered newest first and capped (`db.messages.findMany({ orderBy: { id: "desc" },
take: limit })`, Prisma's and TypeORM's options; SQL text with `ORDER BY ... DESC LIMIT n`) is
a window by position: once the chat holds more rows than the cap, its first message moves on
with every turn and every request misses the cache from there. A chat platform's channel read
the same way (`channel.messages.fetch({ limit })`: the channel's latest messages) is the same
window. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from ..sqlwindow import newest_capped
from .syntax import Source, arguments, key_name, string_value, unwrap, walk

_ROWS = HISTORY_WORDS | {"message", "turn", "chats", "conversations"}
_ORDER = frozenset({"orderBy", "order", "sort"})
_CAP = frozenset({"take", "limit"})
# A read of a list that a chat platform returns newest first (discord.js
# `channel.messages.fetch({ limit })`): no order is written because the API has only one.
_LATEST_READS = frozenset({"fetch"})
_WHY = (
    "once the chat holds more, its first message moves on every turn and every request misses "
    "the cache from there; load it whole and summarise or cut it in large steps"
)


def _one_row(src: Source, value: Node) -> bool:
    """`limit: 1`: the latest message alone (a reply to read), not a window of the chat."""
    text = src.text(unwrap(value)).strip("'\"`")
    return text.isdigit() and int(text) <= 2


def _sql_window(src: Source, node: Node) -> int | None:
    """A query string that reads a messages table newest first to a cap of more than two: the
    number of lines into the string where its cap (`LIMIT`) is written, or None."""
    text = src.text(node)
    found = newest_capped(text)
    if found is None or not set(words(found[0])) & _ROWS:
        return None
    return text.count("\n", 0, found[1])


def _latest_read(src: Source, call: Node, cap: Node) -> bool:
    """`textChannel.messages.fetch({ limit })`: the latest messages of a channel, capped."""
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return False
    if src.text(callee.child_by_field_name("property")) not in _LATEST_READS:
        return False
    obj = callee.child_by_field_name("object")
    owner = unwrap(obj) if obj is not None else None
    if owner is None or owner.type != "member_expression":
        return False
    prop = src.text(owner.child_by_field_name("property"))
    return bool(set(words(prop)) & _ROWS) and not _one_row(src, cap)


def _newest_first(src: Source, value: Node) -> bool:
    return any(
        n.type == "string" and src.text(n).strip("'\"`").lower() == "desc" for n in walk(value)
    )


def _ascending(src: Source, call: Node) -> bool | None:
    """The direction of one ordering call of a query chain: `.order("created_at", { ascending:
    true })` (Supabase), `.orderBy("id", "asc")` (Knex, Drizzle): True oldest first, False
    newest first, None where it is not an ordering call or does not say."""
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return None
    if src.text(callee.child_by_field_name("property")) not in _ORDER:
        return None
    for a in arguments(call)[1:]:
        a = unwrap(a)
        said = string_value(src, a)
        if said is not None and said.lower() in ("asc", "desc"):
            return said.lower() == "asc"
        if a.type != "object":
            continue
        for p in a.named_children:
            if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "ascending":
                value = src.text(unwrap(_pair_value(p)))
                if value in ("true", "false"):
                    return value == "true"
    return None


def oldest_first(src: Source, call: Node) -> bool:
    """Whether the query chain a capping call ends (`.order(..., { ascending: true
    }).limit(n)`) orders every key oldest first: its cap keeps the OLDEST rows, the same
    ones on every turn once the chat holds more, a stable prefix rather than a window."""
    said: list[bool] = []
    n: Node | None = call
    while n is not None and n.type == "call_expression":
        fn = n.child_by_field_name("function")
        if fn is None or fn.type != "member_expression":
            break
        way = _ascending(src, n)
        if way is not None:
            said.append(way)
        obj = fn.child_by_field_name("object")
        n = unwrap(obj) if obj is not None else None
        if n is not None and n.type == "await_expression":
            break
    return bool(said) and all(said)


def _pair_value(pair: Node) -> Node:
    value = pair.child_by_field_name("value")
    return value if value is not None else pair


def check_store_window(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type in ("string", "template_string"):
            down = _sql_window(src, n)
            if down is not None:
                found = src.finding(
                    n,
                    "PL303",
                    f"the conversation is loaded as its newest rows (SQL `ORDER BY ... DESC "
                    f"LIMIT`): {_WHY}",
                )
                line = found.line + down
                quoted = src.lines[line - 1] if line <= len(src.lines) else ""
                out.append(
                    replace(found, line=line, col=1 if down else found.col, source_line=quoted)
                )
            continue
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
            if cap is not None and order is None and _latest_read(src, n, _pair_value(cap)):
                out.append(
                    src.finding(
                        cap,
                        "PL303",
                        f"the conversation is read as the channel's latest messages "
                        f"(`{src.text(n.child_by_field_name('function'))}` with "
                        f"`{src.text(cap)}`): {_WHY}",
                    )
                )
                continue
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
