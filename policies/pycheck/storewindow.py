"""PL303 in Python: the chat's last messages read from a database newest first and capped. SQL
text (`SELECT role, content FROM messages WHERE chat = ? ORDER BY id DESC LIMIT ?`), SQLAlchemy
(`select(Message).order_by(desc(Message.id)).limit(n)`, `Message.id.desc()`) or Django
(`Message.objects.filter(...).order_by("-id")[:n]`): once the chat holds more than the cap, the
oldest message sent moves on every exchange, so the request after the system prompt misses the
cache. The store's own window, beside `windows` (which finds the list cut in Python). A table
of any name counts where the rows read are walked into chat messages (`for c in
reversed(rows): msgs.extend([{"role": "user", ...}])`), and a document store's projection of
the newest stored messages (`find_one(q, {"messages": {"$slice": -limit}})`) is the same window.

Counts only where the file shows the rows become the sent history: in a file that mentions a
`role`, where the function turns them into chat messages (`{"role": r, ...}`), or the function or
the name they are bound to is the conversation's (`get_context_for_llm`, `history = ...`); a
store's `list_recent(limit)` whose caller is elsewhere is not assumed sent. A page the caller asks
for (`OFFSET`) and a statement that deletes or updates are not windows. Pure: a syntax tree in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import words
from ..sqlwindow import newest_capped
from .context import Context
from .syntax import const_str, walk_cached

# Table or model words of stored messages (`messages`, `ChatMessage`, `chat_history`); not a
# list of chats or conversations (a sidebar of recent chats is no window).
_STORED = frozenset({"message", "messages", "history", "turn", "turns", "msgs"})
# Names of a function or a variable that hold what is sent (`get_context_for_llm`, `history`).
_SENT = frozenset(
    {"history", "messages", "context", "conversation", "chat", "llm", "prompt", "msgs"}
)
_WHY = (
    "the stored messages are read newest first and capped ({what}): once the chat is longer, "
    "the first message sent moves on every exchange and the request misses the cache after the "
    "system prompt; read the whole conversation, or cut it in large steps and keep the cut "
    "stable between requests"
)


def check_store_windows(tree: ast.Module, ctx: Context) -> None:
    if any("$slice" in line for line in ctx.lines):
        _check_slice_projections(tree, ctx)
    # Cheap text tests first: most files read no store newest first.
    if not any("role" in line for line in ctx.lines) or not any(
        "desc" in line or "DESC" in line or "order_by" in line for line in ctx.lines
    ):
        return
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        fn_sent = bool(set(words(fn.name)) & _SENT) or _builds_messages(fn)
        for stmt in fn.body:
            _check_statement(stmt, fn_sent, ctx)
        if _builds_messages(fn):
            _check_rows_made_messages(fn, ctx)


def _check_rows_made_messages(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
    """`recientes = db.query(Conversacion).order_by(Conversacion.id.desc()).limit(3).all()`,
    then `for c in reversed(recientes): mensajes.extend([{"role": "user", ...}, ...])`: rows
    read newest first and capped, each turned into chat messages, whatever the table and the
    list are named (the shape says they are the replayed history)."""
    walked = {
        _iterated_name(loop.iter)
        for loop in walk_cached(fn)
        if isinstance(loop, (ast.For, ast.AsyncFor)) and _builds_messages_in(loop.body)
    }
    walked.discard(None)
    for stmt in walk_cached(fn):
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if not isinstance(target, ast.Name) or target.id not in walked:
            continue
        for n in walk_cached(stmt.value):
            if (
                isinstance(n, ast.expr)
                and _orm_window(n) is None
                and (what := _orm_window(n, any_rows=True)) is not None
            ):
                ctx.flag(_at_cap(n), "PL303", _WHY.format(what=f"`{what}`"))
                break


def _at_cap(n: ast.expr) -> ast.expr:
    """Where a window read is reported: the line of its cap (`.limit(3)` of a chain written
    over several lines, below its `select(...)`), where the count is chosen."""
    end = n.func if isinstance(n, ast.Call) else n
    line = getattr(end, "end_lineno", None) or n.lineno
    col = n.col_offset if line == n.lineno else 0
    return ast.Constant(value=None, lineno=line, col_offset=col)


def _iterated_name(node: ast.expr) -> str | None:
    """`rows`, `reversed(rows)`, `rows[::-1]`: the name a loop walks."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("reversed", "list")
        and len(node.args) == 1
    ):
        node = node.args[0]
    if isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _builds_messages_in(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Dict) and any(k is not None and const_str(k) == "role" for k in n.keys)
        for stmt in body
        for n in walk_cached(stmt)
    )


def _check_slice_projections(tree: ast.Module, ctx: Context) -> None:
    """`db.find_one({"phone": p}, {"messages": {"$slice": -limit}})`: a document store's
    projection that returns only the newest `limit` stored messages, in a function named for
    the history or one that builds chat messages. The store's own window, as a SQL `ORDER BY
    ... DESC LIMIT` is."""
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if not (set(words(fn.name)) & _SENT or _builds_messages(fn)):
            continue
        for call in walk_cached(fn):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr.startswith("find")
            ):
                continue
            for arg in call.args[1:] + [k.value for k in call.keywords if k.arg == "projection"]:
                if not isinstance(arg, ast.Dict):
                    continue
                for key, value in zip(arg.keys, arg.values, strict=True):
                    name = const_str(key) if key is not None else None
                    if name is None or not _stored(name) or not isinstance(value, ast.Dict):
                        continue
                    for k, v in zip(value.keys, value.values, strict=True):
                        if k is not None and const_str(k) == "$slice" and _from_end(v):
                            what = f"`{{'{name}': {{'$slice': {ast.unparse(v)}}}}}`"
                            ctx.flag(v, "PL303", _WHY.format(what=what))


def _from_end(node: ast.expr) -> bool:
    """`-limit`, `-20`: a count taken from the end of the stored list (not `-1`, the newest
    message read on its own)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return not (isinstance(node.operand, ast.Constant) and node.operand.value == 1)
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and node.value < -1


def _check_statement(stmt: ast.stmt, fn_sent: bool, ctx: Context) -> None:
    # Nested functions are visited as functions of their own.
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    target_sent = isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
        set(words(n.id)) & _SENT
        for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        for n in walk_cached(t)
        if isinstance(n, ast.Name)
    )
    for node in ast.iter_child_nodes(stmt):
        if isinstance(node, ast.stmt):
            _check_statement(node, fn_sent, ctx)
            continue
        for n in walk_cached(node):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                found = newest_capped(n.value)
                if found is None or not _stored(found[0]) or not (fn_sent or target_sent):
                    continue
                line = n.lineno + n.value.count("\n", 0, found[1])
                where = ast.Constant(value=None, lineno=line, col_offset=n.col_offset)
                ctx.flag(where, "PL303", _WHY.format(what="`ORDER BY ... DESC LIMIT`"))
            elif (
                (fn_sent or target_sent)
                and isinstance(n, ast.expr)
                and (what := _orm_window(n)) is not None
            ):
                ctx.flag(_at_cap(n), "PL303", _WHY.format(what=f"`{what}`"))


def _builds_messages(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The function turns what it reads into chat messages (`{"role": r, "content": c}`)."""
    return any(
        isinstance(n, ast.Dict) and any(k is not None and const_str(k) == "role" for k in n.keys)
        for n in walk_cached(fn)
    )


def _stored(name: str) -> bool:
    return bool(set(words(name)) & _STORED)


def _orm_window(node: ast.expr, any_rows: bool = False) -> str | None:
    """`...order_by(desc(M.id)).limit(n)` or `...order_by("-id")[:n]` on a model or table of
    stored messages (of any rows with `any_rows`): what it reads, shortened."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "limit"
        and node.args
    ):
        chain: ast.expr = node.func.value
    elif (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Slice)
        and node.slice.upper is not None
        and node.slice.step is None
        and (node.slice.lower is None or _zero(node.slice.lower))
    ):
        chain = node.value
    else:
        return None
    newest_first = False
    stored = False
    cur: ast.expr = chain
    while True:
        if isinstance(cur, ast.Call):
            if isinstance(cur.func, ast.Attribute) and cur.func.attr == "order_by":
                newest_first = newest_first or any(_descending(a) for a in cur.args)
            stored = stored or any(_names_stored(a) for a in cur.args)
            cur = cur.func
        elif isinstance(cur, ast.Attribute):
            stored = stored or _stored(cur.attr)
            cur = cur.value
        elif isinstance(cur, ast.Name):
            stored = stored or _stored(cur.id)
            break
        else:
            break
    if not (newest_first and (stored or any_rows)):
        return None
    text = ast.unparse(node)
    return text if len(text) <= 70 else text[:67] + "..."


def _zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _descending(arg: ast.expr) -> bool:
    """`desc(M.id)`, `M.id.desc()`, `"-created_at"`."""
    text = const_str(arg)
    if text is not None:
        return text.startswith("-")
    if isinstance(arg, ast.Call):
        f = arg.func
        return (isinstance(f, ast.Name) and f.id == "desc") or (
            isinstance(f, ast.Attribute) and f.attr == "desc"
        )
    return False


def _names_stored(arg: ast.expr) -> bool:
    """`select(Message)`, `db.query(ChatHistory)`: the model read."""
    return any(
        (isinstance(n, ast.Name) and _stored(n.id))
        or (isinstance(n, ast.Attribute) and _stored(n.attr))
        for n in walk_cached(arg)
    )
