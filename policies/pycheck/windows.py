"""PL303 in Python: the conversation cut to a window. A history kept to its last messages
(`messages[-n:]`, `history[-3:]`, `[system, *messages[-k:]]`), one filled from the newest message
back while a token budget lasts (`for m in reversed(messages): ... if used > budget: break`),
one emptied from the front while over a budget (`while count(messages) > max: messages.pop(0)`),
a history written back without its middle (`messages = messages[:i] + messages[i + n:]`),
one whose older messages are rebuilt by their position (`for i, m in enumerate(messages): if i
< len(messages) - 3: out.append({"role": ..., "content": short})`), one cut by position once it
is long (`if len(history) > 26: del history[4:6]`), one cut by a helper given a budget
(`clip_history(history=h, max_token_limit=n)`, `session.discard_exceeding(max_tokens)`,
`add_history_upto_token_limit(prompt, messages, budget)`), one kept in a bounded queue
(`deque(maxlen=n)`), one deleted but its last messages (`del history[:-n]`), one handed to a
module helper that returns the last items of any list (`def last(items, n): return
items[-n:]`) or one whose older messages a framework summariser replaces (LangChain's
`SummarizationMiddleware`) sends a different first message after the system prompt once it is
full: every request then misses the cache from there to the end. A list cut at its front that
never leaves the scope owning it (`kept.never_leaves`) is sent nowhere and not reported.

A slice counts where it becomes the conversation sent: passed as `messages=`/`input=`/
`history=`/`chat_history=` (also through the locals it is joined into, `msgs = [system, *kept,
user]`, also once rendered by a call, `text = format_chat_history(kept)` then `history=text`),
returned, or bound to a name of the history; a slice of any list that
is joined into text bound to a name of the history (`history = "\n".join(self.memory[-5:])`)
is the history's text cut too, and a slice of a list read by a call, named for nothing
(`store.load(chat_id)[-n:]`), joined as messages after a system message written out into a
list that is sent (`[system, *rows[-n:]]`, directly or through a local or attribute) is a
window too, as is one walked item by item into a list of the conversation (`for item in
data[-5:]: messages.append(item)`). A window walked into the text of a prompt the function
returns (`for seg in history[-n:]: prompt += f"..."`) is the history's text cut; a list of any
name walked from its newest item into chat messages while a budget lasts (`for node in
reversed(state.nodes): ... if used > budget: break`) is a window reported at its budget test.
A tail helper may live in another module of the project,
imported by name (`from app.utils import last_n`). A history is a name
whose words include `messages`, `history`, `conversation`, `chat`, `turns`, `transcript` or
`msgs`, or a local bound to one (`items = state["messages"]`). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from ..meaning import OVERFLOW_TEXT, SIDE_WORDS, identity_name, overflow_name, words
from .context import Context
from .kept import never_leaves
from .recordlists import holds_records
from .runonce import _system as system_message
from .side import _class_role
from .syntax import callee, const_str, walk_cached, walk_no_defs

_HISTORY = frozenset({"history", "messages", "conversation", "chat", "turns", "transcript", "msgs"})
_SENT_KWARGS = frozenset({"messages", "input", "history", "chat_history", "contents"})
_BUDGET = frozenset({"budget", "max", "limit", "tokens", "token", "window", "remaining", "left"})
# Verbs of a helper that shortens what it is given (`clip_history`, `discard_exceeding`).
_CUTS = frozenset(
    {"clip", "trim", "truncate", "discard", "prune", "cut", "shrink", "evict", "drop", "upto"}
    | {"truncation", "trimming", "pruning"}
)
# An owner that holds the context window's budget (`self.context_manager.apply_truncation...`).
_BUDGET_OWNERS = frozenset({"context"})
# Owners of a conversation a helper may cut in place (`session.discard_exceeding(n)`).
_OWNERS = frozenset({"session", "conversation", "history", "memory", "chat", "thread"})
# Framework summarisers that replace a conversation's older messages by a summary.
_SUMMARISERS = frozenset({"SummarizationMiddleware", "SummarizationNode"})


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):  # state["messages"]
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    if isinstance(node, ast.BoolOp) and _empty_default(node):
        return _name(node.values[0])  # `(history or [])`: the list, or nothing when none
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and len(node.args) <= 2
    ):
        # `session.get("conversation_history", [])`: the value under that key, as
        # `session["conversation_history"]` reads it.
        return const_str(node.args[0])
    return None


def _empty_default(node: ast.AST) -> bool:
    """`x or []`, `x or ()`: a value with an empty fallback stands for the value itself."""
    return (
        isinstance(node, ast.BoolOp)
        and isinstance(node.op, ast.Or)
        and len(node.values) == 2
        and isinstance(node.values[1], (ast.List, ast.Tuple))
        and not node.values[1].elts
    )


def _is_history(node: ast.AST) -> bool:
    name = _name(node)
    if name is None:
        return False
    ws = set(words(name))
    if identity_name(name):
        return False  # `conversation_id`: names the history, is not it
    return bool(ws & _HISTORY) and ("system" not in ws or "non" in ws)  # non_system_messages


# A store of conversations, one per key (`histories[chat_id]`).
_STORES = frozenset({"histories", "conversations", "transcripts"})


def _history_listed(node: ast.AST) -> bool:
    """`[m for m in history if m.content]`, `[m async for m in channel.history(after=t)]`: a
    list made one item an item from the history, or from a read of it (a call named for it),
    is the history (filtered), and a window of it is a window of the conversation."""
    if not (isinstance(node, ast.ListComp) and len(node.generators) == 1):
        return False
    it = node.generators[0].iter
    return _is_history(it) or (isinstance(it, ast.Call) and _is_history(it.func))


def _keyed_history(node: ast.AST) -> bool:
    """`self.history[chat_id]`: one conversation of a store keyed by its id (a message,
    `messages[i]`, is looked up by a position, not an id or a key). A store named in the
    plural (`self.message_histories[channel_id]`) holds one conversation per key as well."""
    if not (
        isinstance(node, ast.Subscript)
        and (_is_history(node.value) or set(words(_name(node.value) or "")) & _STORES)
    ):
        return False
    key = node.slice
    name = (
        key.id if isinstance(key, ast.Name) else key.attr if isinstance(key, ast.Attribute) else ""
    )
    ws = set(words(name))
    return bool(ws & {"id", "key", "cid", "sid", "uid"})


def _from_end(lower: ast.expr | None) -> bool:
    """`-n` or `len(x) - n`: a bound counted from the end, also scaled (`-turns * 2`) or inside
    the arithmetic around it (`1 + max(0, len(messages) - n)`, which keeps the first message
    and the last n)."""
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        return True
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, (ast.Mult, ast.FloorDiv)):
        # `history[-max_turns * 2:]`: a negated count scaled (turns to messages) is still a
        # bound from the end.
        return _from_end(lower.left) or _from_end(lower.right)
    if lower is None:
        return False
    return any(
        isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Sub)
        and isinstance(n.left, ast.Call)
        and isinstance(n.left.func, ast.Name)
        and n.left.func.id == "len"
        for n in walk_cached(lower)
    )


def _short_of_newest(upper: ast.expr) -> bool:
    """`-1`, `-2`: a window's end counted back from the newest item (`history[-n:-1]`, the
    newest n but the last): it still starts n back from the end, so it moves as the list
    grows."""
    return (
        isinstance(upper, ast.UnaryOp)
        and isinstance(upper.op, ast.USub)
        and isinstance(upper.operand, ast.Constant)
        and type(upper.operand.value) is int
    )


def check_windows(
    tree: ast.Module, ctx: Context, load: Callable[[str], ast.Module | None] | None = None
) -> None:
    # `history` alone may be any log (test runs, prices): a slice of one counts only in a
    # file that builds chat messages (it mentions a `role`) or when passed as `messages=`.
    chat = any("role" in line for line in ctx.lines) or _builds_thread(tree)
    parents: dict[int, ast.AST] = {}
    for node in walk_cached(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    copies = _Copies(tree)
    windowing = _windowing_functions(tree)
    tails = _tail_helpers(tree) | _imported_tails(tree, ctx, load)
    role_lists = _role_lists(tree)
    inner: set[int] = set()  # parts of a summary-first list already reported
    adds: list[ast.Expr] = []  # `x.append(...)`/`x.extend(...)` statements, for the sequence
    for node in walk_cached(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Slice)
            and (node.slice.upper is None or _short_of_newest(node.slice.upper))
            and (
                _from_end(node.slice.lower)
                or _from_end(_bound_to(node.slice.lower, node, parents))
                or _budget_index(_bound_to(node.slice.lower, node, parents))
            )
            and (
                (
                    (
                        _is_history(node.value)
                        or _keyed_history(node.value)
                        or (isinstance(node.value, ast.Name) and node.value.id in copies)
                        or _history_listed(node.value)
                    )
                    and _sent(node, parents, chat)
                )
                or _joined_into_history(node, parents)
                or _spread_after_system(node, parents)
                or (chat and _items_appended(node, parents))
            )
        ):
            if (
                not _in_side_task(node, parents)
                and not _kept_by_private_helper(node, tree, parents)
                and not holds_records(node.value, tree)
                and not _kept_after_summary(node, parents)
            ):
                # A listing written over several lines is reported at its cut, where the count
                # is chosen (as a store read is at its `.limit(n)`).
                cut_at = node.slice if _history_listed(node.value) else node
                _add(ctx, cut_at, f"the conversation is cut to its last messages (`{_src(node)}`)")
        elif isinstance(node, ast.Assign) and _last_role_write(node, tree):
            _add(ctx, node, "the last message's role is changed by its position")
        elif isinstance(node, ast.Assign) and _cut_out(node):
            _add(ctx, node, "messages are cut out of the middle of the conversation")
        elif (
            isinstance(node, (ast.For, ast.AsyncFor))
            and (filled := _budget_loop(node, copies)) is not None
        ):
            _add(
                ctx,
                filled,
                "the conversation is filled from the newest message back while a budget lasts",
            )
        elif (
            isinstance(node, (ast.For, ast.AsyncFor))
            and (stop := _budget_over_window(node, parents, windowing)) is not None
        ):
            _add(ctx, stop, "the newest messages a helper kept are cut again while a budget lasts")
        elif (
            isinstance(node, ast.While)
            and (cut := _drops_front(node)) is not None
            and not _kept_here(node, tree, parents)
        ):
            _add(ctx, cut, "messages are dropped from the front while over a budget")
        elif isinstance(node, ast.While) and _filled_to_count(node):
            _add(ctx, node, "the conversation is collected from the newest message back to a count")
        elif isinstance(node, ast.Assign) and _read_with_limit(node):
            _add(ctx, node, f"the history is read back to a count (`{_src(node.value)}`)")
        elif (
            isinstance(node, ast.If)
            and _cut_when_long(node, role_lists)
            and not _kept_here(node, tree, parents)
        ):
            _add(ctx, node, "messages are cut out by their position once the history is long")
        elif isinstance(node, ast.Call) and _cut_by_helper(node):
            _add(ctx, node, f"the history is cut to a budget by a helper (`{_src(node.func)}`)")
        elif (
            isinstance(node, ast.ExceptHandler) and (dropped := _cut_on_overflow(node)) is not None
        ):
            _add(
                ctx, dropped, "messages are dropped when a request overflows the context", _OVERFLOW
            )
        elif isinstance(node, ast.While) and (drop := _drops_oldest_over_budget(node)) is not None:
            _add(
                ctx, drop, f"the oldest turns are dropped while over a budget (`{_src(drop.func)}`)"
            )
        elif isinstance(node, ast.Try) and (rebuilt := _rebuilt_on_overflow(node)) is not None:
            _add(
                ctx,
                rebuilt,
                "the request is rebuilt by a call when it overflows the context, and resent",
                _OVERFLOW,
            )
        elif isinstance(node, ast.Call) and _through_memory(node, parents, chat):
            _add(
                ctx,
                node,
                f"the history passes through a memory strategy (`{_src(node.func)}`) before "
                "the request: a window or summary memory drops or rewrites its oldest messages",
            )
        elif isinstance(node, ast.Call) and _newest_of_store(node):
            _add(ctx, node, f"the stored messages are read back to a count (`{_src(node)}`)")
        elif isinstance(node, ast.Call) and (cap := _history_cap(node)) is not None:
            _add(
                ctx,
                cap.value,
                f"the history is kept to its newest messages by `{_src(node.func)}` "
                f"(`{cap.arg}={_src(cap.value)}`)",
            )
        elif isinstance(node, (ast.List, ast.BinOp)) and _summary_first(
            _parts(node), _window_locals(node, parents)
        ):
            if id(node) not in inner:
                inner.update(id(x) for x in walk_cached(node) if x is not node)
                _add(ctx, node, _SUMMARY + " kept ahead of the recent ones", _SUMMARY_TAIL)
        elif isinstance(node, ast.Expr) and _list_add(node) is not None:
            adds.append(node)
        elif isinstance(node, ast.ClassDef) and _summariser(node.bases):
            _add(ctx, node, _SUMMARY + " (a summariser subclass)", _SUMMARY_TAIL)
        elif isinstance(node, ast.Call) and _summariser([node.func]):
            _add(ctx, node, _SUMMARY, _SUMMARY_TAIL)
        elif (
            isinstance(node, ast.Assign)
            and (by := _compacted_back(node)) is not None
            and not _on_switch(node, parents)
        ):
            _add(
                ctx,
                node,
                f"{_SUMMARY} (the history is written back from `{by}(...)`)",
                _SUMMARY_TAIL,
            )
        elif (
            isinstance(node, ast.Call)
            and tails
            and (helper := _tail_of_history(node, tails)) is not None
            and _sent(node, parents, chat)
        ):
            _add(ctx, node, f"the conversation is cut to its last messages by `{helper}(...)`")
        elif isinstance(node, ast.Delete) and (kept := _deleted_to_tail(node, copies, parents)):
            _add(ctx, node, f"the conversation is cut to its last messages (`del {kept}`)")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _bounded_history(node, tree):
            _add(
                ctx,
                node,
                "the history is kept in a bounded queue (`deque(maxlen=...)`) that drops its "
                "oldest message with each one added",
            )
        elif isinstance(node, (ast.ListComp, ast.For, ast.AsyncFor)) and _removed_but_last(
            node, parents
        ):
            _add(
                ctx,
                node,
                "every message but the last few is removed from the graph's stored history "
                "(`RemoveMessage` for each of the older ones)",
            )
        elif isinstance(node, (ast.For, ast.AsyncFor)) and _rebuilt_by_position(node):
            _add(ctx, node, "older messages are rebuilt by their position in the conversation")
    for at in _summary_then_recent(adds, parents):
        _add(ctx, at, _SUMMARY + " kept ahead of the recent ones", _SUMMARY_TAIL)


_ADDS = frozenset({"add", "append", "push"})
_TURN_ROLES = frozenset({"user", "assistant", "model", "system", "human", "ai"})


def _builds_thread(tree: ast.Module) -> bool:
    """A message-thread API builds the chat instead of role dicts: `thread.add_user(text)`,
    `conversation.add_model(reply)`, or a framework's message classes, whose class names the
    role (`SystemMessage(prompt)`, `HumanMessage(text)`): the file writes chat messages."""
    for n in walk_cached(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            ws = set(words(n.func.attr))
            if ws & _ADDS and ws & _TURN_ROLES:
                return True
        if isinstance(n, ast.Call) and _class_role(n) is not None:
            return True
    return False


def _bound_to(name: ast.expr | None, at: ast.AST, parents: dict[int, ast.AST]) -> ast.expr | None:
    """What a name used as a slice bound was assigned in the function around it
    (`start = len(messages) - keep` then `messages[start:]`); a count of the last message
    alone (`len(messages) - 1`) is no window."""
    if not isinstance(name, ast.Name):
        return None
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    for n in walk_cached(fn) if fn is not None else ():
        if (
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name.id for t in n.targets)
            and not _minus_one(n.value)
        ):
            return n.value
    return None


def _minus_one(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.BinOp)
        and isinstance(value.op, ast.Sub)
        and isinstance(value.right, ast.Constant)
        and value.right.value == 1
    )


def _is_last(node: ast.AST) -> bool:
    """`messages[-1]`: the last message of a history."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.UnaryOp)
        and isinstance(node.slice.op, ast.USub)
        and isinstance(node.slice.operand, ast.Constant)
        and node.slice.operand.value == 1
        and _is_history(node.value)
    )


def _last_role_write(node: ast.Assign, tree: ast.Module) -> bool:
    """`messages[-1]["role"] = "user"`, or `last = messages[-1]` then `last["role"] = ...`: the
    message has another role only while it is the last one; the next request, where it is not,
    sends it with its own role again."""
    for t in node.targets:
        if not (isinstance(t, ast.Subscript) and const_str(t.slice) == "role"):
            continue
        if _is_last(t.value):
            return True
        if isinstance(t.value, ast.Name):
            name = t.value.id
            for a in walk_cached(tree):
                if (
                    isinstance(a, ast.Assign)
                    and any(isinstance(x, ast.Name) and x.id == name for x in a.targets)
                    and _is_last(a.value)
                ):
                    return True
    return False


def _sent(node: ast.AST, parents: dict[int, ast.AST], chat: bool) -> bool:
    """Whether the value at `node` becomes the conversation sent (through list displays,
    `+` and starred items): passed as `messages=` and the like, or, in a file that builds chat
    messages, returned or bound to a name of the history."""
    cur: ast.AST = node
    while True:
        parent = parents.get(id(cur))
        if parent is None:
            return False
        if isinstance(parent, (ast.List, ast.Tuple, ast.Starred, ast.BinOp)) or (
            # `h[-n:] if h else []`: the window, or nothing when there is no history yet.
            isinstance(parent, ast.IfExp) and parent.test is not cur
        ):
            cur = parent
            continue
        if isinstance(parent, ast.keyword):
            return parent.arg in _SENT_KWARGS
        if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is cur:
            # `for human, ai in history[-n:]: messages.append(HumanMessage(content=human))`
            return _appends_messages(parent) or (chat and _flattened(parent, parents))
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in ("extend", "append")
            and _is_history(parent.func.value)
        ):
            # `final_messages.extend(history[start:])`, where that list is what is sent.
            return _sent_list(parent.func.value, parent, parents)
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and any(
            _passed_later(t, parent, parents) for t in _targets(parent)
        ):
            # `trimmed = messages[-8:]` then `self.chat(messages=trimmed)`: sent by name.
            return True
        if isinstance(parent, ast.Return) and _names_history_cut(parent, parents):
            # `def _trim_conversation_history(history, max_turns): return history[-max_turns:]`:
            # a helper named for cutting the history returns the window its callers send,
            # wherever the messages are built.
            return True
        if not chat and not _in_store_class(parent, parents):
            return False
        if isinstance(parent, ast.Return):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            return any(
                _is_history(t)
                or _returned_later(t, parent, parents)
                or _stored_later(t, parent, parents)
                for t in _targets(parent)
            )
        if isinstance(parent, ast.Dict):
            for k, v in zip(parent.keys, parent.values, strict=True):
                if v is cur and isinstance(k, ast.Constant) and k.value in _SENT_KWARGS:
                    return True
            return False
        return False


def _names_history_cut(at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """The function around `at` is named for cutting a history (`trim_history`,
    `_truncate_conversation`)."""
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    ws = set(words(fn.name))
    return bool(ws & _CUTS and ws & _HISTORY)


# A class that keeps conversations for an agent: what its methods return is the history sent.
_STORE_CLASS = frozenset({"repository", "repo", "store", "memory", "dao"})


def _in_store_class(at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`class ChatRepository: def recent(self, cid, n): return self.history[cid][-n:]`: a
    history window returned by a conversation store, in a file with no role dict of its own."""
    cur: ast.AST | None = at
    while cur is not None and not isinstance(cur, ast.ClassDef):
        cur = parents.get(id(cur))
    if cur is None:
        return False
    ws = set(words(cur.name))
    return bool(ws & _STORE_CLASS) and bool(ws & (_HISTORY | {"message", "session"}))


def _returned_later(target: ast.expr, at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`trimmed = messages[-n:]` then `return [marker] + trimmed` (or `return system + other`):
    the window bound to a local that the function returns as (part of) its list."""
    if not isinstance(target, ast.Name):
        return False
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    for n in walk_cached(fn) if fn is not None else ():
        if (
            isinstance(n, ast.Return)
            and n.value is not None
            and n.lineno > getattr(at, "lineno", 0)
            and _listed(n.value, target.id)
        ):
            return True
    return False


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _spread_after_system(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`[{"role": "system", ...}, *rows[-n:], user]` or `[system] + rows[-n:]`: the last items
    of any list, whatever it is called, joined as messages into a list that opens with a
    system message written out, directly or through the local or attribute bound to them
    (`self.recent = store.load(chat_id)[-10:]`, then `*self.recent`) in the same function."""
    if not (isinstance(node, ast.Subscript) and _unnamed_list(node.value, node, parents)):
        return False
    parent = parents.get(id(node))
    if isinstance(parent, ast.IfExp) and parent.test is not node:
        node, parent = parent, parents.get(id(parent))  # `h[-n:] if h else []`
    if _joined_after_system(node, parents):
        return True
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
        return False
    target = parent.targets[0]
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return False
    key = ast.dump(target, include_attributes=False)
    for n in _in_function(parent, parents):
        if (
            isinstance(n, (ast.Name, ast.Attribute))
            and isinstance(n.ctx, ast.Load)
            and getattr(n, "lineno", 0) > parent.lineno
            and ast.dump(_stored(n), include_attributes=False) == key
            and _joined_after_system(n, parents)
        ):
            return True
    return False


def _unnamed_list(value: ast.expr, at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """A list read by a call (`store.load(chat_id)`, awaited or not), or a local bound to
    one: nothing names what it holds, so where it goes decides. A list named for something
    (`state["documents"]`) is judged by that name elsewhere."""
    if isinstance(value, ast.Name):
        bound = _bound_to(value, at, parents)
        if bound is None:
            return False
        value = bound
    if isinstance(value, ast.Await):
        value = value.value
    return isinstance(value, ast.Call)


def _stored(n: ast.Name | ast.Attribute) -> ast.expr:
    """`n` as if it were assigned to, so that a read compares equal to its binding."""
    if isinstance(n, ast.Name):
        return ast.Name(id=n.id, ctx=ast.Store())
    return ast.Attribute(value=n.value, attr=n.attr, ctx=ast.Store())


def _joined_after_system(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`node` spread into a list display after its first element, a system message, or added
    after such a display (`[system] + node`)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Starred):
        display = parents.get(id(parent))
        return (
            isinstance(display, ast.List)
            and len(display.elts) > 1
            and display.elts[0] is not parent
            and system_message(display.elts[0])
            and _sent(display, parents, False)
        )
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add) and parent.right is node:
        left = parent.left
        return (
            isinstance(left, ast.List)
            and bool(left.elts)
            and system_message(left.elts[0])
            and _sent(parent, parents, False)
        )
    return False


def _passed_later(target: ast.expr, at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`trimmed = messages[-8:]` then `self.chat(messages=trimmed, system=system)`: the window
    bound to a local that a later call of the same function is given as its messages."""
    if not isinstance(target, ast.Name):
        return False
    line = getattr(at, "lineno", 0)
    names = _joined_later(target.id, line, list(_in_function(at, parents)))
    return any(
        isinstance(n, ast.keyword)
        and n.arg in _SENT_KWARGS
        and n.value.lineno > line
        and any(_listed(n.value, name) for name in names)
        for n in _in_function(at, parents)
    )


def _joined_later(name: str, line: int, body: list[ast.AST]) -> set[str]:
    """`name` and the locals bound after `line` to a list joined from it (`msgs = [system,
    *kept, user]`, `msgs = head + kept`), and from those in turn: the window as a part of
    the list a later request is given."""
    names = {name}
    joins = [
        (t.id, n.value)
        for n in body
        if isinstance(n, ast.Assign) and n.lineno > line
        for t in n.targets
        if isinstance(t, ast.Name)
    ]
    grew = True
    while grew:
        grew = False
        for target, value in joins:
            if target not in names and any(
                (_listed(value, x) or _rendered_from(value, x)) and x != target for x in names
            ):
                names.add(target)
                grew = True
    return names


def _rendered_from(value: ast.expr, name: str) -> bool:
    """`text = format_chat_history(kept)`: a call handed the list itself (awaited or not, not
    measured by `len`) gives it back in another form, the window rendered as text or records
    that a later request still takes as its history."""
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call) or callee(value) in ("len", "bool", "isinstance"):
        return False
    given = [*value.args, *(k.value for k in value.keywords)]
    return any(isinstance(a, ast.Name) and a.id == name for a in given)


def _in_function(at: ast.AST, parents: dict[int, ast.AST]) -> Iterator[ast.AST]:
    """Every node of the function `at` stands in (nothing at module level)."""
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    return iter(walk_cached(fn)) if fn is not None else iter(())


# Words of a function that reads the conversation for a one-off verdict on it (an intent, a
# score), beside the side tasks PL305 names: its excerpt of the recent turns is no window of the
# conversation the session replays.
# A router (`router_node`) asks the same kind of verdict: which path the turn takes.
_SIDE_TASK = SIDE_WORDS | {"analyze", "analyse", "analysis", "intent", "detect", "extract"}
_SIDE_TASK |= {"router", "routing"}


def _in_side_task(at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`def analyze_intent(conversation): ... for m in conversation[-3:]`: the window is cut in
    a function named for a side task."""
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and bool(
        set(words(fn.name)) & _SIDE_TASK
    )


def _kept_by_private_helper(at: ast.AST, tree: ast.Module, parents: dict[int, ast.AST]) -> bool:
    """The window is cut in a private helper (`def _select_recent(self, messages)`) that this
    file calls, and no call of it sends what it returns: each keeps the result to itself or
    hands it back only beside other values (`return summary, recent`). A return is then no
    evidence of the conversation sent. A helper no one here calls is judged as before."""
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if not fn.name.startswith("_") or fn.name.startswith("__") or not _hands_back_only(fn):
        return False
    calls = [n for n in walk_cached(tree) if isinstance(n, ast.Call) and callee(n) == fn.name]
    return bool(calls) and not any(_result_sent(c, parents) for c in calls)


def _hands_back_only(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The helper returns a value and keeps nothing on an object (`self.messages = kept` keeps
    the window wherever the helper is called from)."""
    nodes = list(walk_no_defs(fn))
    returns = any(isinstance(n, ast.Return) and n.value is not None for n in nodes)
    stores = any(
        isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and any(
            isinstance(t, (ast.Attribute, ast.Subscript))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
        for n in nodes
    )
    return returns and not stores


def _result_sent(call: ast.Call, parents: dict[int, ast.AST]) -> bool:
    """Whether what `call` returns is sent or kept as the conversation where it is called:
    returned as it is or joined into a list, handed to a call, given as `messages=`, stored on
    an object, or bound to a local that is then sent, returned as a list or stored."""
    parent = parents.get(id(call))
    if isinstance(parent, ast.Await):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.keyword):
        return parent.arg in _SENT_KWARGS
    if isinstance(parent, (ast.Return, ast.List, ast.Starred, ast.BinOp, ast.Call)):
        return True
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        for t in _targets(parent):
            if not isinstance(t, ast.Name):
                return True  # `self.history = self._trim(...)`: kept for the next request
            if (
                _passed_later(t, parent, parents)
                or _returned_later(t, parent, parents)
                or _stored_later(t, parent, parents)
                or _handed_on(t.id, parent, parents)
            ):
                return True
    return False


def _handed_on(name: str, at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`kept` handed, after `at`, to a call as an argument of its own (`llm.invoke(kept)`) or
    put in a record under the history's key (`{"conversation_history": kept}`); measuring it
    (`len(kept)`) hands nothing on."""
    line = getattr(at, "lineno", 0)
    for n in _in_function(at, parents):
        if getattr(n, "lineno", 0) <= line:
            continue
        if isinstance(n, ast.Call) and callee(n) != "len":
            given = [*n.args, *(k.value for k in n.keywords)]
        elif isinstance(n, ast.Dict):
            given = [
                v
                for k, v in zip(n.keys, n.values, strict=True)
                if (key := const_str(k)) is not None
                and (key in _SENT_KWARGS or set(words(key)) & _HISTORY)
            ]
        else:
            continue
        if any(isinstance(a, ast.Name) and a.id == name for a in given):
            return True
    return False


# Calls that write a value to where the conversation is kept between requests.
_STORE_WRITES = frozenset({"set", "setex", "save", "store", "put", "write", "dump", "persist"})


def _stored_later(target: ast.expr, at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`trimmed = history[-20:]` then `await redis.set(key, json.dumps(trimmed))`: the window
    written back as the kept history, which the next request loads and sends."""
    if not isinstance(target, ast.Name):
        return False
    line = getattr(at, "lineno", 0)
    for n in _in_function(at, parents):
        if not (isinstance(n, ast.Call) and getattr(n, "lineno", 0) > line):
            continue
        name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        if not set(words(name)) & _STORE_WRITES:
            continue
        for a in [*n.args, *(k.value for k in n.keywords)]:
            if isinstance(a, ast.Call) and a.args:  # `json.dumps(trimmed)`
                a = a.args[0]
            if isinstance(a, ast.Name) and a.id == target.id:
                return True
    return False


def _listed(value: ast.expr, name: str) -> bool:
    """`name`, `[x] + name`, `[*a, *name]`: the name as the list or a part joined into it."""
    if isinstance(value, ast.Name):
        return value.id == name
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return _listed(value.left, name) or _listed(value.right, name)
    if isinstance(value, (ast.List, ast.Tuple)):
        return any(isinstance(e, ast.Starred) and _listed(e.value, name) for e in value.elts)
    if isinstance(value, ast.ListComp) and len(value.generators) == 1:
        # `[{"role": m.role, "content": m.text} for m in window]`: the list mapped message by
        # message, in its order, is still that list.
        return _listed(value.generators[0].iter, name) and _builds_message(value.elt)
    return False


def _sent_list(lst: ast.expr, at: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether the list named `lst` is returned by the function around `at` or passed there
    as `messages=` (a global history kept for a UI is neither)."""
    name = _name(lst)
    fn: ast.AST | None = at
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = parents.get(id(fn))
    for n in walk_cached(fn) if fn is not None else ():
        # The list as it is, or spread into the list sent after a system message
        # (`messages=[{"role": "system", ...}, *messages]`, `return [system] + messages`).
        if isinstance(n, ast.Return) and n.value is not None and _as_list(n.value, name):
            return True
        if isinstance(n, ast.keyword) and n.arg in _SENT_KWARGS and _as_list(n.value, name):
            return True
        if (
            isinstance(n, ast.Call)
            and n.args
            and _name(n.args[0]) == name
            and set(words(_name(n.func) or "")) & _MODEL_CALLS
        ):
            # `response = await self.get_ai_response_groq(messages, query_type)`: handed to
            # the call that asks the model.
            return True
    return False


def _as_list(value: ast.expr, name: str | None) -> bool:
    """`value` is the list named `name`, or a list joined from it and others."""
    return name is not None and (_name(value) == name or _listed(value, name))


# Words of a call that sends a message list to a model (`get_ai_response`, `chat_completion`).
_MODEL_CALLS = frozenset(
    {"response", "respond", "reply", "completion", "completions", "complete", "chat", "llm"}
    | {"generate", "invoke", "ainvoke", "stream", "create", "acreate"}
)


def _appends_messages(loop: ast.For | ast.AsyncFor) -> bool:
    return any(
        isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr in ("append", "insert")
        and c.args
        and _builds_message(c.args[-1])
        for s in loop.body
        for c in walk_cached(s)
    )


def _flattened(loop: ast.For | ast.AsyncFor, parents: dict[int, ast.AST]) -> bool:
    """`for seg in history[-n:]: prompt += f"{seg['role']}: ..."` then `return prompt`: the
    window written out as the text of one prompt, which the function hands back to be sent.
    Text only added to (`+=`) and returned, not printed or logged."""
    grown = {
        s.target.id
        for s in walk_cached(loop)
        if isinstance(s, ast.AugAssign)
        and isinstance(s.op, ast.Add)
        and isinstance(s.target, ast.Name)
        and _text(s.value)
    }
    return any(_returned_later(ast.Name(id=t), loop, parents) for t in sorted(grown))


def _text(value: ast.expr) -> bool:
    """An f-string or a string written out, alone or added to others: text, not a count."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return _text(value.left) or _text(value.right)
    return isinstance(value, ast.JoinedStr) or const_str(value) is not None


def _items_appended(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`for item in data[-5:]: messages.append(item)`, where `data = json.load(f)`: the last
    items of a list read by a call, whatever it is called, each added as it is (or as a
    message made from it) to a list of the conversation."""
    loop = parents.get(id(node))
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(loop, (ast.For, ast.AsyncFor))
        and loop.iter is node
        and isinstance(loop.target, ast.Name)
        and _unnamed_list(node.value, node, parents)
    ):
        return False
    item = loop.target.id
    return any(
        isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr == "append"
        and _is_history(c.func.value)
        and len(c.args) == 1
        and (
            (isinstance(c.args[0], ast.Name) and c.args[0].id == item) or _builds_message(c.args[0])
        )
        for s in loop.body
        for c in walk_cached(s)
    )


def _joined_into_history(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`history = "\n".join(entries[-5:])`: the newest entries of a list, joined into the text
    of the history a prompt is formatted with."""
    join = parents.get(id(node))
    if not (
        isinstance(join, ast.Call)
        and isinstance(join.func, ast.Attribute)
        and join.func.attr == "join"
        and node in join.args
    ):
        return False
    bound = parents.get(id(join))
    if isinstance(bound, ast.keyword):
        return bound.arg in _SENT_KWARGS
    if isinstance(bound, (ast.Assign, ast.AnnAssign)):
        targets = bound.targets if isinstance(bound, ast.Assign) else [bound.target]
        return any(_is_history(t) for t in targets)
    return False


def _is_len_of_history(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and _is_history(node.args[0])
    )


def _history_pop_at(n: ast.AST) -> int | None:
    """The index of `history.pop(<whole number>)`, or None for anything else."""
    if (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "pop"
        and n.args
        and isinstance(n.args[0], ast.Constant)
        and isinstance(n.args[0].value, int)
        and _is_history(n.func.value)
    ):
        return n.args[0].value
    return None


def _front_cut(n: ast.AST) -> bool:
    """`history.pop(0)`, `del history[4:6]`, `del history[0]`: messages removed from anywhere
    but the end (`pop()` and `del history[-1]` take back the newest one)."""
    at = _history_pop_at(n)
    if at is not None and at >= 0:
        return True
    if isinstance(n, ast.Delete):
        for t in n.targets:
            if not (isinstance(t, ast.Subscript) and _is_history(t.value)):
                continue
            key = t.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, int):
                return True
            if isinstance(key, ast.Slice) and not (
                isinstance(key.lower, ast.UnaryOp) and key.upper is None
            ):
                return True
    return False


def _kept_here(node: ast.AST, tree: ast.Module, parents: dict[int, ast.AST]) -> bool:
    """Every list the statement cuts at its front (`h.pop(0)`, `del h[0]`) is one that no
    request is handed: it never leaves the scope that owns it (`kept.never_leaves`)."""
    cut: list[ast.expr] = []
    for n in walk_cached(node):
        if _history_pop_at(n) is not None and isinstance(n, ast.Call):
            assert isinstance(n.func, ast.Attribute)
            cut.append(n.func.value)
        elif isinstance(n, ast.Delete):
            cut += [t.value for t in n.targets if isinstance(t, ast.Subscript)]
    return bool(cut) and all(never_leaves(c, tree, parents) for c in cut)


def _bounded_deque(value: ast.expr | None) -> bool:
    """`deque(maxlen=20)`, `collections.deque([], 20)`, or one made per key by a factory
    (`defaultdict(lambda: deque(maxlen=20))`): a queue that drops its oldest item when full."""
    for n in walk_cached(value) if value is not None else ():
        if not (isinstance(n, ast.Call) and _name(n.func) == "deque"):
            continue
        size = next((k.value for k in n.keywords if k.arg == "maxlen"), None)
        if size is None and len(n.args) > 1:
            size = n.args[1]
        if size is not None and not (isinstance(size, ast.Constant) and size.value is None):
            return True
    return False


def _bounded_history(node: ast.Assign | ast.AnnAssign, tree: ast.Module) -> bool:
    """A history (by its name, or a plural store of them) bound to a bounded queue that the
    module sends: given as a request's messages or spread into the list given (directly or
    through a local joined from it)."""
    targets = _targets(node)
    if not _bounded_deque(node.value) or len(targets) != 1:
        return False
    target = targets[0]
    if not (_is_history(target) or _name(target) in _STORES):
        return False
    text = ast.unparse(target)

    def holds(value: ast.expr) -> bool:
        return any(
            isinstance(x, (ast.Name, ast.Attribute)) and ast.unparse(x) == text
            for x in walk_cached(value)
        )

    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        carriers = {
            t.id
            for n in walk_cached(fn)
            if isinstance(n, ast.Assign) and n.value is not None and holds(n.value)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        if any(
            isinstance(n, ast.keyword)
            and n.arg in _SENT_KWARGS
            and (holds(n.value) or any(_listed(n.value, c) for c in carriers))
            for n in walk_cached(fn)
        ):
            return True
        if _handed_back_whole(fn, holds):
            return True
    return False


def _handed_back_whole(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, holds: Callable[[ast.expr], bool]
) -> bool:
    """The function returns the queue's messages, as they are or rendered one by one into text
    (`messages = list(self.conversations[chat_id])`, a loop writing each message's role and
    content into the parts joined and returned): its caller is handed the whole window to send.
    Not a count or one message picked by its position (`len(messages)`, `messages[0].timestamp`),
    which says nothing of the conversation."""
    whole: set[str] = set()
    items: set[str] = set()  # each message of a loop over them: any field of it is carried

    def carries(value: ast.expr) -> bool:
        parents = {id(c): p for p in walk_cached(value) for c in ast.iter_child_nodes(p)}
        for x in walk_cached(value):
            if isinstance(x, ast.Name) and x.id in items:
                return True
            if isinstance(x, ast.Name) and x.id in whole:
                if not _picked(x, parents, keyed=False):
                    return True
            elif (
                isinstance(x, (ast.Name, ast.Attribute))
                and holds(x)
                and not _picked(x, parents, keyed=True)
            ):
                return True
        return False

    for _ in range(4):  # a few rounds settle the short chains of locals a renderer builds
        size = len(whole) + len(items)
        for n in walk_cached(fn):
            if isinstance(n, ast.Assign) and carries(n.value):
                whole.update(t.id for t in n.targets if isinstance(t, ast.Name))
            elif isinstance(n, (ast.For, ast.AsyncFor)) and carries(n.iter):
                items.update(t.id for t in walk_cached(n.target) if isinstance(t, ast.Name))
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in {"append", "extend"}
                and isinstance(n.func.value, ast.Name)
                and any(carries(a) for a in n.args)
            ):
                whole.add(n.func.value.id)
        if len(whole) + len(items) == size:
            break
    return any(
        isinstance(n, ast.Return) and n.value is not None and carries(n.value)
        for n in walk_cached(fn)
    )


def _picked(x: ast.AST, parents: dict[int, ast.AST], *, keyed: bool) -> bool:
    """`len(x)`, `x[0]`, `x[-1].timestamp`: a count or one item by its position, not the
    messages; a slice keeps them, and so does a store's lookup by key where `keyed`
    (`self.conversations[chat_id]`, one conversation)."""
    up = parents.get(id(x))
    while isinstance(up, ast.Subscript) and up.value is x:
        key = up.slice
        if not (
            isinstance(key, ast.Slice)
            or (keyed and not isinstance(key, (ast.Constant, ast.UnaryOp)))
        ):
            return True  # one item by its position
        keyed = False
        x, up = up, parents.get(id(up))
    return isinstance(up, ast.Call) and _name(up.func) == "len"


def _cut_when_long(node: ast.If, role_lists: frozenset[str] = frozenset()) -> bool:
    """`if len(history) > 26: del history[4:6]`: once the history is long, messages are cut
    by their position, so every later message moves. A list of any name that the module fills
    with chat messages (`self.memory.append({"role": "user", ...})`, in `role_lists`) counts
    as the history here: `if len(self.memory) > n: self.memory.pop(1)`."""
    test = node.test
    if not (
        isinstance(test, ast.Compare)
        and isinstance(test.ops[0], (ast.Gt, ast.GtE))
        and isinstance(test.left, ast.Call)
        and _name(test.left.func) == "len"
        and len(test.left.args) == 1
    ):
        return False
    if _is_len_of_history(test.left):
        return any(_front_cut(n) for s in node.body for n in walk_cached(s))
    measured = _src(test.left.args[0])
    if measured not in role_lists:
        return False
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "pop"
        and _src(n.func.value) == measured
        and n.args
        and isinstance(n.args[0], ast.Constant)
        and isinstance(n.args[0].value, int)
        and not isinstance(n.args[0].value, bool)
        and n.args[0].value >= 0
        for s in node.body
        for n in walk_cached(s)
    )


def _role_lists(tree: ast.Module) -> frozenset[str]:
    """The lists (by their source text, `self.memory`) that the module appends chat messages to
    (`x.append({"role": ..., "content": ...})`): whatever their name, they hold a conversation."""
    out: set[str] = set()
    for n in walk_cached(tree):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append"
            and len(n.args) == 1
            and isinstance(n.args[0], ast.Dict)
            and _has_role(n.args[0])
        ):
            out.add(_src(n.func.value))
    return frozenset(out)


def _cut_by_helper(node: ast.Call) -> bool:
    """A helper whose name says it cuts (`clip_history`, `discard_exceeding`,
    `add_history_upto_token_limit`), applied to a history (its name, its owner's or an
    argument's) with a budget (`max_token_limit=`, `max_tokens`)."""
    name = _name(node.func)
    if name is None:
        return False
    ws = set(words(name))
    if not ws & _CUTS and not (ws & _HISTORY and ws & _BUDGET):
        return False
    args: list[ast.expr] = [*node.args, *(k.value for k in node.keywords)]
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    of_history = (
        bool(ws & _HISTORY)
        # `MAX_HISTORY_TURNS` names a limit, not the history
        or any(_is_history(a) and not _budget_words(a) for a in args)
        or any(k.arg is not None and set(words(k.arg)) & _HISTORY for k in node.keywords)
        or (owner is not None and bool(set(words(_name(owner) or "")) & _OWNERS))
    )
    budget = (
        any(_budget_words(a) for a in args)
        or any(k.arg is not None and set(words(k.arg)) & _BUDGET for k in node.keywords)
        or (owner is not None and bool(set(words(_name(owner) or "")) & _BUDGET_OWNERS))
    )
    return of_history and budget


# A keyword that caps how many messages a history keeps (`max_messages`,
# `max_history_messages`, `history_limit`); not `max_turns` (an agent loop's steps) nor a size
# of one message (`max_message_length`).
_CAP_OF = frozenset({"messages", "history", "msgs"})
_CAP_WORDS = frozenset({"max", "limit", "last", "keep", "recent", "window"})
_ONE_MESSAGE = frozenset({"length", "size", "chars", "characters", "bytes"})
# Names of what keeps or builds a conversation: a history provider, a memory, a builder.
_KEEPERS = frozenset({"history", "memory", "conversation"})


def _history_cap(node: ast.Call) -> ast.keyword | None:
    """A framework's history store or builder configured to keep only the newest messages:
    `RedisHistoryProvider(max_messages=10)`, `build_messages_with_history(...,
    max_history_messages=10)`, LangChain's `ConversationBufferWindowMemory(k=5)`. The store
    hands the model a sliding window once it is full, wherever the call is."""
    names = [_name(node.func) or ""]
    if isinstance(node.func, ast.Attribute):
        names.append(_name(node.func.value) or "")  # `ChatMemoryBuffer.from_defaults(...)`
    ws = {w for n in names for w in words(n)}
    if not ws & _KEEPERS:
        return None
    for k in node.keywords:
        if k.arg is None or _no_cap(k.value):
            continue
        if isinstance(k.value, ast.Name) and k.value.id == k.arg:
            continue  # `num_last_messages=num_last_messages`: the caller's setting, forwarded
        kws = set(words(k.arg))
        if k.arg == "k" and "window" in ws:
            return k
        if kws & _CAP_OF and kws & _CAP_WORDS and not kws & _ONE_MESSAGE:
            return k
    return None


_STORED = frozenset({"messages", "history", "conversation", "turns", "chat"})


_OLDEST = frozenset({"oldest", "earliest"})
_DROPS = frozenset({"drop", "remove", "evict", "trim", "pop", "prune", "discard", "delete", "cut"})


def _drops_oldest_over_budget(node: ast.While) -> ast.Call | None:
    """`while count(messages) > maximum: ... self._drop_oldest_turn(recent)`: a loop over a
    measured size (a call compared with `>`) that calls a helper named for dropping the oldest
    turn or message. What it drops goes back into the messages the loop measures: the start of
    the sent history moves."""
    test = node.test
    if not (
        isinstance(test, ast.Compare)
        and isinstance(test.ops[0], (ast.Gt, ast.GtE))
        and isinstance(test.left, ast.Call)
    ):
        return None
    for n in (x for stmt in node.body for x in walk_cached(stmt)):
        if isinstance(n, ast.Call):
            ws = set(words(_name(n.func) or ""))
            if ws & _OLDEST and ws & _DROPS:
                return n
    return None


def _rebuilt_on_overflow(node: ast.Try) -> ast.stmt | None:
    """`try: provider.generate(request) except ContextOverflow: recovered = await
    context.force_prepare(); request = recovered.request`: the value the interrupted request
    sent is made anew by a call (a compaction or a trim the handler cannot show) and sent
    again. Decided by where the value goes: the name the handler rebinds is what a call of the
    `try` body sends."""
    sent = {
        a.id
        for stmt in node.body
        for c in walk_cached(stmt)
        if isinstance(c, ast.Call)
        for a in [*c.args, *(k.value for k in c.keywords)]
        if isinstance(a, ast.Name)
    }
    for handler in node.handlers:
        if not _names_overflow(handler) or _cut_on_overflow(handler) is not None:
            continue
        if _starts_over(handler):
            continue
        made = {
            t.id
            for stmt in handler.body
            for n in walk_cached(stmt)
            if isinstance(n, ast.Assign) and _awaits_call(n.value)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for stmt in handler.body:
            for n in walk_cached(stmt):
                if not isinstance(n, ast.Assign):
                    continue
                names = {t.id for t in n.targets if isinstance(t, ast.Name)}
                from_call = _awaits_call(n.value) or any(
                    isinstance(x, ast.Name) and x.id in made for x in walk_cached(n.value)
                )
                if names & sent and from_call:
                    return n
    return None


# Words of a call that empties the conversation (`self.reset_context()`, `history.clear()`).
_STARTS_OVER = frozenset({"reset", "clear"})


def _starts_over(handler: ast.ExceptHandler) -> bool:
    """The handler starts the conversation over: it empties it (`self.reset_context()`) or
    rebuilds the request with no history (`construct_prompt(..., chat_history=[])`). The
    retry misses once; the conversation then grows from empty, no window that moves on."""
    for n in walk_cached(handler):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if set(words(name)) & _STARTS_OVER:
            return True
        if any(
            k.arg
            and set(words(k.arg)) & _HISTORY
            and isinstance(k.value, ast.List)
            and not k.value.elts
            for k in n.keywords
        ):
            return True
    return False


def _awaits_call(value: ast.expr) -> bool:
    inner = value.value if isinstance(value, ast.Await) else value
    return isinstance(inner, ast.Call)


def _names_overflow(handler: ast.ExceptHandler) -> bool:
    caught = walk_cached(handler.type) if handler.type is not None else ()
    if any(
        overflow_name(_name(n) or "") for n in caught if isinstance(n, (ast.Name, ast.Attribute))
    ):
        return True
    for n in (x for stmt in handler.body for x in walk_cached(stmt)):
        if (
            isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and OVERFLOW_TEXT.search(n.value)
        ):
            return True
        if isinstance(n, ast.Call) and overflow_name(_name(n.func) or ""):
            return True
    return False


def _cut_on_overflow(handler: ast.ExceptHandler) -> ast.stmt | ast.expr | None:
    """`except BadRequestError as e: if "context_length_exceeded" in str(e): messages =
    messages[:1] + messages[-10:]` (then resent): the request that overflowed is retried
    without its oldest messages. Catching the error and giving up (`return TOO_LONG`) cuts
    nothing."""
    caught = walk_cached(handler.type) if handler.type is not None else ()  # `except:` catches all
    names = [n for n in caught if isinstance(n, (ast.Name, ast.Attribute))]
    overflow = any(overflow_name(_name(n) or "") for n in names)
    for n in (x for stmt in handler.body for x in walk_cached(stmt)):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            overflow = overflow or bool(OVERFLOW_TEXT.search(n.value))
        elif isinstance(n, ast.Call) and overflow_name(_name(n.func) or ""):
            overflow = True
    if not overflow:
        return None
    for n in (x for stmt in handler.body for x in walk_cached(stmt)):
        if isinstance(n, ast.Call) and _history_pop_at(n) is not None:
            return n
        if isinstance(n, ast.Delete) and any(
            isinstance(t, ast.Subscript) and _is_history(t.value) for t in n.targets
        ):
            return n
        if (
            isinstance(n, ast.Assign)
            and any(_is_history(t) for t in n.targets)
            and any(
                isinstance(x, ast.Subscript)
                and isinstance(x.slice, ast.Slice)
                and _is_history(x.value)
                for x in walk_cached(n.value)
            )
        ):
            return n
        if (
            isinstance(n, ast.Call)
            and set(words(_name(n.func) or "")) & _CUTS
            and any(_is_history(a) for a in [*n.args, *(k.value for k in n.keywords)])
        ):
            return n
    return None


def _newest_of_store(node: ast.Call) -> bool:
    """`db.messages.find({"chat": c}).sort("ts", -1).limit(20)`: a collection of messages read
    newest first and cut to a count (pymongo-style), the store's own window."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "limit" and node.args):
        return False
    sorted_ = False
    cur: ast.expr = node.func.value
    while True:
        if isinstance(cur, ast.Call) and isinstance(cur.func, ast.Attribute):
            sorted_ = sorted_ or cur.func.attr == "sort"
            cur = cur.func.value
        elif isinstance(cur, ast.Subscript):  # `db["messages"]`
            key = const_str(cur.slice)
            if key is not None and set(words(key)) & _STORED:
                return sorted_
            cur = cur.value
        elif isinstance(cur, ast.Attribute):
            if set(words(cur.attr)) & _STORED:
                return sorted_
            cur = cur.value
        else:
            return sorted_ and isinstance(cur, ast.Name) and bool(set(words(cur.id)) & _STORED)


def _no_cap(value: ast.expr) -> bool:
    """`None`, `0`, `False` or `float("inf")`: the history is kept whole."""
    if isinstance(value, ast.Constant):
        return value.value in (None, 0, False)
    return isinstance(value, ast.Call) and _name(value.func) == "float"


_RECENT = frozenset({"recent", "remaining", "kept", "unsummarized", "rest"})


def _parts(node: ast.expr) -> list[ast.expr]:
    """The items of a list display or of lists joined by `+`, in order (`*x` as `x`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left) + _parts(node.right)
    if isinstance(node, ast.List):
        return [e.value if isinstance(e, ast.Starred) else e for e in node.elts]
    return [node]


def _named(node: ast.expr, wanted: frozenset[str]) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    return bool(set(words(_name(node) or "")) & wanted)


def _summary_first(parts: list[ast.expr], windows: frozenset[str] = frozenset()) -> bool:
    """`[summary_message] + remaining_messages`, `[system, summary, *recent_messages]`: a
    summary of the older messages placed before the rest of the history. What follows the
    summary is the history by its name, or by what it holds whatever its name: a local the
    function bound to the history's last items (`tail = messages[-keep:]`, in `windows`), the
    span after the summary's that the summary replaced."""
    for i, p in enumerate(parts):
        if _named(p, frozenset({"summary"})):
            return any(
                (_named(q, _HISTORY | _RECENT) or (isinstance(q, ast.Name) and q.id in windows))
                and not _named(q, frozenset({"summary"}))
                for q in parts[i + 1 :]
            )
    return False


def _kept_after_summary(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`recent = history[-10:]` then `system + [summary_msg] + recent`: the window is the span a
    summary compaction keeps after its summary, reported once as the summary (a compaction
    rewrites the history in a step, not every turn)."""
    bound = parents.get(id(node))
    if isinstance(bound, ast.IfExp):
        bound = parents.get(id(bound))
    if not (
        isinstance(bound, ast.Assign)
        and len(bound.targets) == 1
        and isinstance(bound.targets[0], ast.Name)
    ):
        return False
    name = bound.targets[0].id
    return any(
        isinstance(n, (ast.List, ast.BinOp))
        and any(isinstance(q, ast.Name) and q.id == name for q in _parts(n))
        and _summary_first(_parts(n), frozenset({name}))
        for n in _in_function(node, parents)
    )


def _removed_but_last(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """LangGraph's deletion of all but the newest messages of a thread's checkpointed state:
    `[RemoveMessage(id=m.id) for m in state["messages"][:-10]]`, or a loop over
    `messages[:len(messages) - n]` that appends one `RemoveMessage` an item. What is left is
    the window the next request replays, so its first message moves at every cut."""
    if isinstance(node, ast.ListComp):
        if len(node.generators) != 1 or not (
            isinstance(node.elt, ast.Call) and callee(node.elt) == "RemoveMessage"
        ):
            return False
        it = node.generators[0].iter
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        if not any(
            isinstance(n, ast.Call) and callee(n) == "RemoveMessage"
            for stmt in node.body
            for n in walk_no_defs(stmt)
        ):
            return False
        it = node.iter
    else:
        return False
    if isinstance(it, ast.Call) and callee(it) == "reversed" and len(it.args) == 1:
        it = it.args[0]
    if not (
        isinstance(it, ast.Subscript)
        and isinstance(it.slice, ast.Slice)
        and it.slice.lower is None
        and it.slice.upper is not None
        and _is_history(it.value)
    ):
        return False
    upper = it.slice.upper
    return _from_end(upper) or _from_end(_bound_to(upper, it, parents))


def _window_locals(at: ast.AST, parents: dict[int, ast.AST]) -> frozenset[str]:
    """The names the function around `at` binds to the last items of its history
    (`tail = messages[-keep_last:]`, also `... if keep_last > 0 else []`): a window of the
    conversation, whatever the local is called."""
    out: set[str] = set()
    for n in _in_function(at, parents):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
            continue
        target, value = n.targets[0], n.value
        if isinstance(value, ast.IfExp):
            value = value.body
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Subscript)
            and isinstance(value.slice, ast.Slice)
            and value.slice.upper is None
            and _from_end(value.slice.lower)
            and _is_history(value.value)
        ):
            out.add(target.id)
    return frozenset(out)


def _list_add(stmt: ast.Expr) -> tuple[str, str, ast.expr] | None:
    """(list, method, item) of `out.append(item)`, `out.insert(i, item)`, `out.extend(items)`."""
    call = stmt.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.attr in ("append", "insert", "extend")
        and call.args
    ):
        return None
    return call.func.value.id, call.func.attr, call.args[-1]


def _summary_then_recent(adds: list[ast.Expr], parents: dict[int, ast.AST]) -> list[ast.Expr]:
    """`out.append(summary_message)` then `out.extend(recent_messages)` in one function: the
    same list built a statement at a time; reported where the recent messages follow."""
    started: set[tuple[int, str]] = set()
    done: set[tuple[int, str]] = set()
    found: list[ast.Expr] = []
    derived: dict[int, set[str]] = {}
    for stmt in sorted(adds, key=lambda n: (n.lineno, n.col_offset)):
        got = _list_add(stmt)
        if got is None:
            continue
        owner, method, item = got
        fn: ast.AST | None = stmt
        while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = parents.get(id(fn))
        key = (id(fn), owner)
        if method in ("append", "insert") and _carries_summary(item, fn, derived):
            started.add(key)
        elif (
            method in ("extend", "append")
            and key in started
            and key not in done
            and _named(item, _HISTORY | _RECENT)
        ):
            done.add(key)
            found.append(stmt)
    return found


def _carries_summary(item: ast.expr, fn: ast.AST | None, derived: dict[int, set[str]]) -> bool:
    """The item is the summary (`summary_message`), or a message built from it:
    `{"role": "user", "content": f"{context}"}` where `context` was built from `summary` in
    the same function (the function's summary-built names computed once, in `derived`)."""
    if _named(item, frozenset({"summary"})):
        return True
    if not isinstance(item, (ast.Dict, ast.Call)) or fn is None:
        return False
    if id(fn) not in derived:
        derived[id(fn)] = _summary_built(fn)
    names = derived[id(fn)]
    return any(isinstance(n, ast.Name) and n.id in names for n in walk_cached(item))


def _summary_built(fn: ast.AST) -> set[str]:
    """The function's local names that hold a summary or text built from one (`context =
    f"Summary: {summary}"`, then `context += hits`), followed through its assignments."""
    binds: list[tuple[list[str], set[str]]] = []
    for n in walk_cached(fn):
        if isinstance(n, ast.Assign):
            targets: list[ast.expr] = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            targets = [n.target]
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if names and n.value is not None:
            used = {u.id for u in walk_cached(n.value) if isinstance(u, ast.Name)}
            binds.append((names, used))
    out = {
        name
        for names, _ in binds
        for name in names
        if "summary" in words(name) and not identity_name(name)
    }
    grew = True
    while grew:  # a chain of locals: each pass adds the names built from the last ones
        grew = False
        for names, used in binds:
            if used & out and not set(names) <= out:
                out.update(names)
                grew = True
    return out


# Words of a helper that compacts a conversation (`compact_messages`, `summarize_history`).
_COMPACTS = frozenset(
    {"compact", "compaction", "compress", "condense", "summarize", "summarise", "summarized"}
)


def _compacted_back(node: ast.Assign) -> str | None:
    """`messages = compact_messages(client, messages, window)`: a history written back from a
    call named for compacting it and handed it; its older messages come back as a summary.
    The helper's name, if it is one."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    name = node.targets[0].id
    value = node.value.value if isinstance(node.value, ast.Await) else node.value
    if not (isinstance(value, ast.Call) and set(words(name)) & _HISTORY):
        return None
    helper = _name(value.func) or ""
    if not set(words(helper)) & _COMPACTS:
        return None
    handed = [*value.args, *(k.value for k in value.keywords)]
    if not any(isinstance(a, ast.Name) and a.id == name for a in handed):
        return None
    return helper


# What a switch changes when the history is summarised on it: a new edit format, mode, model or
# persona brings its own system prompt.
_SWITCHED = frozenset({"format", "mode", "model", "persona", "role", "agent"})


def _on_switch(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """The compaction runs under a test that something which sets the system prompt changed
    (`if edit_format != old.edit_format:`): the prefix is new after the switch whether or not
    the history is summarised, so the summary breaks nothing that was not already broken."""
    cur = parents.get(id(node))
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if isinstance(cur, ast.If):
            for cmp in walk_cached(cur.test):
                if isinstance(cmp, ast.Compare) and any(
                    isinstance(op, (ast.NotEq, ast.IsNot)) for op in cmp.ops
                ):
                    sides = [cmp.left, *cmp.comparators]
                    if any(set(words(_name(x) or "")) & _SWITCHED for x in sides):
                        return True
        cur = parents.get(id(cur))
    return False


def _summariser(nodes: list[ast.expr]) -> bool:
    return any((_name(n) or "") in _SUMMARISERS for n in nodes)


def _cut_out(node: ast.Assign) -> bool:
    """`messages = messages[:i] + messages[j:]`: a history written back without its middle."""
    v = node.value
    if not (isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add)):
        return False
    left, right = v.left, v.right
    if not (
        isinstance(left, ast.Subscript)
        and isinstance(left.slice, ast.Slice)
        and left.slice.lower is None
        and left.slice.upper is not None
        and isinstance(right, ast.Subscript)
        and isinstance(right.slice, ast.Slice)
        and right.slice.lower is not None
        and right.slice.upper is None
        and _is_history(left.value)
    ):
        return False
    same = ast.unparse(left.value) == ast.unparse(right.value)
    return same and any(ast.unparse(t) == ast.unparse(left.value) for t in node.targets)


def _budget_words(node: ast.AST) -> bool:
    return any(
        set(words(n.id)) & _BUDGET for n in walk_cached(node) if isinstance(n, ast.Name)
    ) or any(
        set(words(n.attr)) & _BUDGET for n in walk_cached(node) if isinstance(n, ast.Attribute)
    )


class _Copies:
    """Names bound to a copy of a history (`ordered = list(turns)`, `msgs = history[:]`) or
    to the history itself read from its owner (`items = state["messages"]`), looked up only
    where a list not named as one is walked or cut."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.names: set[str] | None = None

    def __contains__(self, name: str) -> bool:
        if self.names is None:
            self.names = set()
            for n in walk_cached(self.tree):
                if isinstance(n, ast.Assign) and len(n.targets) == 1:
                    t, v = n.targets[0], n.value
                    if isinstance(t, ast.Name) and _copy_of_history(v):
                        self.names.add(t.id)
        return name in self.names


def _copy_of_history(v: ast.expr) -> bool:
    if isinstance(v, (ast.Name, ast.Subscript, ast.Attribute)) and _is_history(v):
        # `items = state["messages"]`, `turns = self.history`: the history under another name
        return True
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.args:
        return v.func.id in ("list", "tuple", "sorted") and _is_history(v.args[0])
    if isinstance(v, ast.ListComp) and len(v.generators) == 1:
        # `other = [m for m in history if m.get("role") != "system"]`: the history filtered;
        # a field of each item (`[s.screenshot_path for s in history]`) is no message
        gen = v.generators[0]
        return (
            _is_history(gen.iter)
            and isinstance(v.elt, ast.Name)
            and isinstance(gen.target, ast.Name)
            and v.elt.id == gen.target.id
        )
    return (
        isinstance(v, ast.Subscript)
        and isinstance(v.slice, ast.Slice)
        and (v.slice.lower is None or _fixed_head(v.slice.lower))
        and v.slice.upper is None
        and _is_history(v.value)
    )


def _fixed_head(lower: ast.expr) -> bool:
    """`messages[1:]`: the history less a fixed head (its system message), which keeps every
    message after it; its newest items are the history's newest."""
    return isinstance(lower, ast.Constant) and type(lower.value) is int and lower.value >= 0


def _history_or_copy(node: ast.AST, copies: _Copies) -> bool:
    return _is_history(node) or (isinstance(node, ast.Name) and node.id in copies)


def _budget_loop(loop: ast.For | ast.AsyncFor, copies: _Copies) -> ast.stmt | None:
    """`for m in reversed(history)` (or `history[::-1]`, either inside `enumerate(...)`; or the
    same over a copy of the history) left by a `break` or a `return` under a comparison with a
    budget: the statement to report, if it is one."""
    it = loop.iter
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "enumerate"
        and it.args
    ):
        it = it.args[0]
    walked: ast.expr | None = None
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed":
        walked = it.args[0] if it.args else None
    elif (
        isinstance(it, ast.Subscript)
        and isinstance(it.slice, ast.Slice)
        and isinstance(it.slice.step, ast.UnaryOp)
    ):
        walked = it.value
    # A list of any name walked from its newest item into chat messages
    # (`for node in reversed(state.nodes): ... reversed_messages.append(Message(role=...))`)
    # is the conversation too, whatever it holds.
    stop = _budget_stop(loop) if walked is not None else None
    if walked is None or stop is None:
        return None
    if _history_or_copy(walked, copies) or _tail_of(walked, copies):
        return loop
    # Reported at the budget test, which is what makes a walk of that list a window.
    return stop if _makes_messages(loop) else None


def _tail_of(walked: ast.expr, copies: _Copies) -> bool:
    """`previous_messages[-10:]`: the newest items of a history (or of a copy of one), walked
    newest first while a budget lasts, a window cut twice."""
    return (
        isinstance(walked, ast.Subscript)
        and isinstance(walked.slice, ast.Slice)
        and walked.slice.upper is None
        and _from_end(walked.slice.lower)
        and _history_or_copy(walked.value, copies)
    )


def _makes_messages(loop: ast.For | ast.AsyncFor) -> bool:
    """The loop writes chat messages (`{"role": ..., "content": ...}`, `Message(role=...,
    content=...)`, `HumanMessage(text)`) and adds to a list."""
    made = any(
        _has_role(n) and (_builds_message(n) or isinstance(n, ast.Call))
        for s in loop.body
        for n in walk_cached(s)
        if isinstance(n, (ast.Dict, ast.Call))
    )
    adds = any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("append", "extend", "insert")
        for s in loop.body
        for n in walk_cached(s)
    )
    return made and adds


def _has_role(node: ast.expr) -> bool:
    if isinstance(node, ast.Dict):
        return any(const_str(k) == "role" for k in node.keys if k is not None)
    if isinstance(node, ast.Call):
        return _class_role(node) is not None or any(k.arg == "role" for k in node.keywords)
    return False


def _budget_stop(loop: ast.For | ast.AsyncFor | ast.While) -> ast.If | None:
    """The loop's budget test that ends it (`if used + n > budget: break`), if it has one."""
    for n in walk_cached(loop):
        if (
            isinstance(n, ast.If)
            and isinstance(n.test, ast.Compare)
            and _budget_words(n.test)
            and any(isinstance(b, (ast.Break, ast.Return)) for b in walk_cached(n))
        ):
            return n
    return None


# What a memory does when it only keeps or looks things up (the history it is handed is not
# what it returns).
_MEMORY_KEEPS = frozenset(
    {"add", "save", "append", "put", "store", "clear", "update", "search", "set", "write"}
    | {"insert", "delete", "remove", "persist", "record", "log", "extend", "query", "get"}
)


def _through_memory(node: ast.Call, parents: dict[int, ast.AST], chat: bool) -> bool:
    """`assistant_system + memory.integrate_context(chat_messages) + tool_calls`: the history
    handed to a method of a configurable memory (a window of `window_size` messages, a token
    budget, a summary) whose result is the conversation sent. What the memory returns is the
    history it chose to keep, so the request's first messages are the memory's choice."""
    f = node.func
    if not (isinstance(f, ast.Attribute) and "memory" in words(_name(f.value) or "")):
        return False
    if set(words(f.attr)) & _MEMORY_KEEPS:
        return False
    if not any(_is_history(a) for a in [*node.args, *(k.value for k in node.keywords)]):
        return False
    return _sent(node, parents, chat)


def _windowing_functions(tree: ast.Module) -> set[str]:
    """Functions of this module that cut a history to its newest messages
    (`recent = history[-n * 2:]` somewhere in their body): what they return is a window."""
    out: set[str] = set()
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in walk_cached(fn):
            if (
                isinstance(n, ast.Subscript)
                and isinstance(n.slice, ast.Slice)
                and n.slice.upper is None
                and _from_end(n.slice.lower)
                and _is_history(n.value)
            ):
                out.add(fn.name)
                break
    return out


def _deleted_to_tail(node: ast.Delete, copies: _Copies, parents: dict[int, ast.AST]) -> str:
    """`del history[:-10]`, `del self.messages[1:-n]`: everything but the last messages (and
    a kept head) deleted, on every pass, not under a test of the history's size (a cut in
    large steps is read by `_cut_when_long`). The deleted target's text, else ""."""
    up = parents.get(id(node))
    while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if isinstance(up, (ast.If, ast.While, ast.Try)):
            return ""
        up = parents.get(id(up))
    for t in node.targets:
        if not (isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Slice)):
            continue
        head = t.slice.lower
        if head is not None and not (isinstance(head, ast.Constant) and head.value in (0, 1)):
            continue
        if not _from_end(t.slice.upper):
            continue
        if _is_history(t.value) or (isinstance(t.value, ast.Name) and t.value.id in copies):
            return ast.unparse(t)
    return ""


def _tail_helpers(tree: ast.Module) -> dict[str, int]:
    """Module-level functions that return the last items of a parameter not named for a history
    (`def last(items, n): return items[-n:]`): each with that parameter's position."""
    out: dict[str, int] = {}
    for fn in tree.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        for n in walk_cached(fn):
            v = n.value if isinstance(n, ast.Return) else None
            if (
                isinstance(v, ast.Subscript)
                and isinstance(v.slice, ast.Slice)
                and v.slice.upper is None
                and _from_end(v.slice.lower)
                and isinstance(v.value, ast.Name)
                and v.value.id in params
                and not _is_history(v.value)  # `return history[-n:]` is read where it is cut
            ):
                out[fn.name] = params.index(v.value.id)
                break
    return out


def _imported_tails(
    tree: ast.Module, ctx: Context, load: Callable[[str], ast.Module | None] | None
) -> dict[str, int]:
    """The tail helpers of the project's other modules that this file imports by name
    (`from app.utils import last_n`) and calls with a history: each module read only where
    such a call is made (`load` finds it among the project's files)."""
    if load is None:
        return {}
    wanted = {
        c.func.id
        for c in walk_cached(tree)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Name)
        and "." in ctx.imports.get(c.func.id, "")
        and any(_is_history(a) or _keyed_history(a) for a in c.args)
    }
    out: dict[str, int] = {}
    for name in wanted:
        module, _, original = ctx.imports[name].rpartition(".")
        other = load(module)
        at = _tail_helpers(other).get(original) if other is not None else None
        if at is not None:
            out[name] = at
    return out


def _tail_of_history(call: ast.Call, tails: dict[str, int]) -> str | None:
    """`last(history, 10)`: a tail helper of this module handed the history where it takes
    the list it cuts (the helper's name, else None)."""
    if not isinstance(call.func, ast.Name) or call.func.id not in tails:
        return None
    at = tails[call.func.id]
    if at >= len(call.args) or isinstance(call.args[at], ast.Starred):
        return None
    given = call.args[at]
    return call.func.id if _is_history(given) or _keyed_history(given) else None


def _budget_over_window(
    loop: ast.For | ast.AsyncFor, parents: dict[int, ast.AST], windowing: set[str]
) -> ast.If | None:
    """`turns = self.select_recent(history)` then `for t in turns: ... if used + n > budget:
    break; messages.append(...)`: a window a helper of this module cut, filled oldest first
    while a budget lasts. As the window slides its oldest messages change, and the budget
    cuts a different place each turn (reported at the budget's test). Over the whole history
    the same loop keeps the oldest messages and the prefix holds."""
    if not isinstance(loop.iter, ast.Name) or not _appends_messages(loop):
        return None
    value = _bound_to(loop.iter, loop, parents)
    if not (isinstance(value, ast.Call) and _name(value.func) in windowing):
        return None
    if not any(_is_history(a) for a in [*value.args, *(k.value for k in value.keywords)]):
        return None
    return _budget_stop(loop)


def _drops_front(loop: ast.While) -> ast.While | ast.If | None:
    """`while <over a budget>:` that pops, deletes or slices off the first message, or a
    loop that does so in the branch of an `if` over a budget (`while True: ... if tokens <
    0.9 * size: return prompt` else `messages.pop(0)`; reported at the `if`)."""
    if isinstance(loop.test, ast.Compare) and _budget_words(loop.test):
        return loop if _pops_front(loop) else None
    for n in walk_cached(loop):
        if (
            isinstance(n, ast.If)
            and isinstance(n.test, ast.Compare)
            and _budget_words(n.test)
            and any(_pops_front(b) for b in [*n.body, *n.orelse])
        ):
            return n
    return None


def _pops_front(loop: ast.AST) -> bool:
    for n in walk_cached(loop):
        if _history_pop_at(n) in (0, 1):
            return True
        if isinstance(n, ast.Delete) and any(
            isinstance(t, ast.Subscript) and _is_history(t.value) for t in n.targets
        ):
            return True
        if (
            isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Subscript)
            and isinstance(n.value.slice, ast.Slice)
            and n.value.slice.lower is not None
            and _is_history(n.value.value)
        ):
            return True
    return False


def _budget_index(value: ast.expr | None) -> bool:
    """A slice's start computed by a helper given a token budget
    (`start = find_last_index(counts, max_prompt_tokens=n)` then `history[start:]`)."""
    if not isinstance(value, ast.Call):
        return False
    named = any(k.arg is not None and set(words(k.arg)) & _BUDGET for k in value.keywords)
    return named or any(_budget_words(a) for a in [*value.args, *(k.value for k in value.keywords)])


def _filled_to_count(loop: ast.While) -> bool:
    """`while node and len(messages) < max_messages:` whose body adds to that list: the
    conversation walked back from the newest message until a count is reached."""
    for cmp in walk_cached(loop.test):
        if not (
            isinstance(cmp, ast.Compare)
            and isinstance(cmp.ops[0], (ast.Lt, ast.LtE))
            and _is_len_of_history(cmp.left)
            and _budget_words(cmp.comparators[0])
        ):
            continue
        assert isinstance(cmp.left, ast.Call)
        target = _name(cmp.left.args[0])
        if _sent_each_pass(loop, target):
            # `while active and len(messages) < max_len: reply = request(messages)`: the
            # whole list is sent on every pass and the count only ends the conversation.
            continue
        for n in walk_cached(loop):
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("append", "insert", "extend")
                and _name(n.func.value) == target
            ):
                return True
    return False


def _sent_each_pass(loop: ast.While, target: str | None) -> bool:
    """The loop's body hands the whole list it counts to a call other than a list method or
    `len` (`chat_completion_request(messages, tools=t)`): a conversation sent on each pass,
    which the count ends, not a window collected to it."""
    for n in (x for stmt in loop.body for x in walk_no_defs(stmt)):
        if (
            isinstance(n, ast.Call)
            and not (isinstance(n.func, ast.Attribute) and _name(n.func.value) == target)
            and not (isinstance(n.func, ast.Name) and n.func.id == "len")
            and any(
                _name(a) == target and isinstance(a, (ast.Name, ast.Attribute))
                for a in [*n.args, *(k.value for k in n.keywords)]
            )
        ):
            return True
    return False


# Keywords that make a store return only the newest entries.
# (Not `top_k` or `n`: in a model call they sample tokens or count completions.)
_LIMITS = frozenset({"limit", "last_n", "last_k", "max_messages", "num_messages"})


_PAGING = frozenset({"skip", "offset", "page"})


def _read_with_limit(node: ast.Assign) -> bool:
    """`messages = filter_message(conversation_id=c, limit=history_len)`: the stored
    conversation read back to its newest N entries (the store's own window)."""
    call = node.value.value if isinstance(node.value, ast.Await) else node.value
    if not (isinstance(call, ast.Call) and any(_is_history(t) for t in node.targets)):
        return False
    func = _name(call.func)
    fws = set(words(func)) if func is not None else set()
    if "recent" in fws and ("load" in fws or "list" in fws or "get" in fws or "fetch" in fws):
        # `history = memory.load_recent(user_key)`: the store hands back its newest entries,
        # a window by the call's own name, whatever cap it keeps.
        return True
    limited = [k.value for k in call.keywords if k.arg in _LIMITS]
    if not limited or any(
        k.arg in _PAGING and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in call.keywords
    ):
        # `get_by_conversation(db, skip=skip, limit=limit)`: a page the caller asks for (an
        # endpoint listing messages), not the newest messages read back for a request.
        return False
    about_history = bool(fws & (_HISTORY | {"message"}))
    return about_history or any(
        set(words(_name(v) or "")) & {"history", "messages"} for v in limited
    )


def _rebuilt_by_position(loop: ast.For | ast.AsyncFor) -> bool:
    """`for i, m in enumerate(history):` where an `if` on `i` appends a newly built message."""
    it = loop.iter
    if not (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "enumerate"
        and it.args
        and _is_history(it.args[0])
        and isinstance(loop.target, ast.Tuple)
        and loop.target.elts
        and isinstance(loop.target.elts[0], ast.Name)
    ):
        return False
    index = loop.target.elts[0].id
    for n in walk_cached(loop):
        if not isinstance(n, ast.If):
            continue
        if not any(isinstance(x, ast.Name) and x.id == index for x in walk_cached(n.test)):
            continue
        for s in n.body:
            for c in walk_cached(s):
                if (
                    isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Attribute)
                    and c.func.attr in ("append", "insert")
                    and c.args
                    and _builds_message(c.args[-1])
                ):
                    return True
    return False


def _builds_message(node: ast.expr) -> bool:
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "content" for k in node.keys)
    if isinstance(node, ast.Call):
        return any(k.arg == "content" for k in node.keywords)
    return False


def _src(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 50 else text[:47] + "..."


_SUMMARY = "older messages are replaced by a summary"
# A summariser rewrites the history in a step, not every turn: one miss per summary.
_SUMMARY_TAIL = (
    "each summary rewrites the history after the system prompt, and the request after it misses "
    "the cache from there on; trigger it rarely (a high token threshold) and keep many recent "
    "messages so that the misses stay few"
)
_OVERFLOW = (
    "the request is sent again without its oldest messages, so the first message after the "
    "system prompt differs from then on and every later request misses the cache there; "
    "summarise or cut the history in large steps before it reaches the limit"
)
_WINDOW_TAIL = (
    "once the window is full the first message after the system prompt changes every turn, and "
    "every request misses the cache from there on; summarise or cut the history in large steps "
    "instead"
)


def _add(ctx: Context, node: ast.stmt | ast.expr, what: str, tail: str = _WINDOW_TAIL) -> None:
    ctx.flag(node, "PL303", f"{what}: {tail}")
