"""PL303 in TypeScript: more ways a history is cut to a window by position, each common in chat
code and each moving the first message sent once the conversation is longer than a cap:

- the oldest message dropped once a cap is passed (`if (history.length > MAX) history.shift()`,
  `history.splice(0, 2)`, or `history.splice(1, 2)` after a kept system message, under the
  same test; the cap may be a `HISTORY_LENGTH` setting or pairs of it, `HISTORY_LENGTH * 2 +
  1`): one message gone per turn from then on;
- the messages kept by their index (`history.filter((m, i) => i >= history.length - max)`);
- the newest first, cut, and turned back (`[...history].reverse().slice(0, n).reverse()`);
- lodash's `takeRight(history, n)` / `takeLast`;
- a helper named for the recent or last messages handed a count (`getRecentMessages(history,
  10)`, `loadLastMessages(chatId, 20)`);
- the oldest item of a list the file replays as the conversation (spread beside the system
  messages, handed as `messages`, walked into role messages), whatever it is named, dropped
  under a test of a count or a reply's token use against a named bound (`if
  (res.usage.prompt_tokens >= setting.maxPrompts) conversation.data.shift()`);
- the older half of a history dropped in a loop while the request is over a budget (`msgs =
  msgs.slice(Math.floor(msgs.length / 2))`);
- stored rows deleted by a query in a loop once a running total passes a named bound, in a
  file that builds chat messages (`if (c.totalSize > MAX_TOKEN) Msg.where({ _id }).delete()`);
- a reply chain collected backwards from the newest message until the list holds a count
  (`while (msg && history.length < DEPTH_LIMIT) history.unshift({ role, text })`);
- rows walked into role messages pushed onto a list that is reversed after the loop (so the
  walk went from the newest), left once a token budget is spent (`if (budget - row.tokens <
  0) break`);
- a history written back from a call named for compacting it and handed it (`messages = await
  compactMessages(client, messages, limit)`): its older messages come back as a summary.

A copy of the history (`const recent = [...history]`, `let kept = messages`) is the history.
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .structure import _for_side_request, _store_only, is_history
from .syntax import FUNCTIONS, Source, arguments, callee_name, unwrap, walk

_WHY = (
    "once the conversation is longer, its first message moves on every turn and every request "
    "misses the cache from the system prompt on; summarise or cut the history in large steps"
)
_CAP = frozenset({"max", "limit", "keep", "window", "cap", "maximum", "size"})
_RECENT = frozenset({"recent", "last", "latest", "newest"})
_ROWS = HISTORY_WORDS | {"message", "turn", "turns"}
_TAKE_LAST = frozenset({"takeRight", "takeLast"})


def _receiver(call: Node) -> Node | None:
    fn = call.child_by_field_name("function")
    if fn is None or unwrap(fn).type != "member_expression":
        return None
    return unwrap(fn).child_by_field_name("object")


def _copy_of(src: Source, node: Node) -> Node | None:
    """`[...history]`, `history.slice()`, `Array.from(history)`, `history`: the list copied."""
    node = unwrap(node)
    if node.type == "array" and len(node.named_children) == 1:
        only = node.named_children[0]
        if only.type == "spread_element" and only.named_children:
            return unwrap(only.named_children[0])
    if node.type == "call_expression":
        args = arguments(node)
        if callee_name(src, node) == "slice" and not args:
            return _receiver(node)
        if callee_name(src, node) == "from" and len(args) == 1:
            return unwrap(args[0])
    return node if node.type in ("identifier", "member_expression") else None


def _declared(src: Source, ident: Node) -> Node | None:
    """The value `ident` is declared with in the function around it (or at the top level)."""
    name = src.text(ident)
    scope = ident.parent
    while scope is not None and scope.type not in FUNCTIONS and scope.type != "program":
        scope = scope.parent
    for d in walk(scope) if scope is not None else ():
        if d.type == "variable_declarator" and src.text(d.child_by_field_name("name")) == name:
            return d.child_by_field_name("value")
    return None


def _history(src: Source, node: Node | None) -> bool:
    """A history, or a local copy of one (one step back)."""
    if node is None:
        return False
    node = unwrap(node)
    if is_history(src, node):
        return True
    if node.type == "array" or node.type == "call_expression":
        inner = _copy_of(src, node)
        return inner is not None and inner is not node and is_history(src, inner)
    if node.type != "identifier":
        return False
    value = _declared(src, node)
    inner = _copy_of(src, value) if value is not None else None
    return inner is not None and is_history(src, inner)


def _a_cap(src: Source, node: Node) -> bool:
    """A bound: a number past two, or a name of one (`MAX_HISTORY`, `this.maxTurns`, a
    `HISTORY_LENGTH` setting, not a list's own `.length`), or sums and products of such a name
    with numbers (`HISTORY_LENGTH * 2 + 1`: pairs after a system message)."""
    node = unwrap(node)
    if node.type == "number":
        return src.text(node).isdigit() and int(src.text(node)) > 2
    if node.type == "binary_expression":
        if src.text(node.child_by_field_name("operator")) not in ("+", "-", "*"):
            return False
        sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        if any(s is None for s in sides):
            return False
        named = [s for s in sides if s is not None and unwrap(s).type != "number"]
        return bool(named) and all(_a_cap(src, s) for s in named)
    name = (
        src.text(node.child_by_field_name("property"))
        if node.type == "member_expression"
        else src.text(node)
    )
    said = words(name)
    return node.type in ("identifier", "member_expression") and (
        bool(set(said) & _CAP) or (len(said) > 1 and said[-1] == "length")
    )


def _length_bounds(src: Source, cond: Node, listed: str, above: bool) -> Iterator[Node]:
    """What `listed.length` is compared with in `cond`: the `X` of `listed.length > X` (or `>=`,
    or turned round) when `above`, of `listed.length < X` (or `<=`) when not."""
    kept, turned = ((">", ">="), ("<", "<=")) if above else (("<", "<="), (">", ">="))
    for x in walk(cond):
        if x.type != "binary_expression":
            continue
        op = src.text(x.child_by_field_name("operator"))
        left, right = x.child_by_field_name("left"), x.child_by_field_name("right")
        if left is None or right is None:
            continue
        if op in turned:
            left, right, op = right, left, kept[0]
        if op not in kept:
            continue
        measured = unwrap(left)
        if (
            measured.type == "member_expression"
            and src.text(measured.child_by_field_name("property")) == "length"
            and "".join(src.text(measured.child_by_field_name("object")).split()) == listed
        ):
            yield right


def _over_cap(src: Source, cond: Node, listed: str) -> bool:
    """`history.length > MAX` (or `>=`) for the list named `listed`."""
    return any(_a_cap(src, bound) for bound in _length_bounds(src, cond, listed, above=True))


def _drops_oldest(src: Source, call: Node) -> bool:
    """`list.shift()`, `list.splice(0, k)`, or `list.splice(1, k)` (the oldest after a kept
    system message, a count of them and nothing put in their place): the call takes the oldest
    items off its list."""
    name = callee_name(src, call)
    if name == "splice":
        args = arguments(call)
        first = src.text(unwrap(args[0])) if args else ""
        return first == "0" or (first == "1" and len(args) == 2)
    return name == "shift"


def _dropped_over_cap(src: Source, call: Node) -> bool:
    """`history.shift()` or `history.splice(0, k)` in the branch of an `if` that tests the
    history's length against a cap."""
    if not _drops_oldest(src, call):
        return False
    obj = _receiver(call)
    if obj is None or not _history(src, obj):
        return False
    listed = "".join(src.text(unwrap(obj)).split())
    if _holds_records(src, listed):
        return False
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "if_statement":
            cond = p.child_by_field_name("condition")
            then = p.child_by_field_name("consequence")
            inside = then is not None and then.start_byte <= call.start_byte < then.end_byte
            return inside and cond is not None and _over_cap(src, cond, listed)
        p = p.parent
    return False


# Keys of what a chat message holds (its speaker, its text, a turn's parts): an object pushed
# with none of them is a record of something else.
_MESSAGE_KEYS = frozenset(
    {"role", "content", "text", "parts", "message", "messages", "author", "sender", "speaker"}
    | {"from", "user", "body", "msg", "prompt", "response", "reply", "question", "answer"}
    | {"input", "output", "type", "name", "data", "value", "payload"}
)


def _holds_records(src: Source, listed: str) -> bool:
    """Whether every item the file pushes onto the list `listed` is an object literal (or a
    local declared as one) with no key a message has: `this.metricsHistory.push(metrics)`,
    `metrics = { timestamp, cpu, memory }`. A history of figures, not of a conversation. A
    push not seen, or one whose item is not such a literal, says nothing."""
    items: list[Node] = []
    for n in walk(src.root):
        if n.type != "call_expression" or callee_name(src, n) != "push":
            continue
        got = _receiver(n)
        if got is None or "".join(src.text(unwrap(got)).split()) != listed:
            continue
        for a in arguments(n):
            a = unwrap(a)
            if a.type == "identifier":
                value = _declared(src, a)
                if value is None:
                    return False
                a = unwrap(value)
            items.append(a)
    if not items:
        return False
    for item in items:
        if item.type != "object":
            return False
        for p in item.named_children:
            if p.type == "pair":
                key = src.text(p.child_by_field_name("key")).strip("'\"")
            elif p.type == "shorthand_property_identifier":
                key = src.text(p)
            elif p.type == "comment":
                continue
            else:
                return False  # a spread or a method: what it holds is not seen
            if key in _MESSAGE_KEYS:
                return False
    return True


def _kept_by_index(src: Source, call: Node) -> bool:
    """`history.filter((m, i) => i >= history.length - max)`: an index compared with the
    length less a bound."""
    if callee_name(src, call) != "filter" or not _history(src, _receiver(call)):
        return False
    args = arguments(call)
    fn = unwrap(args[0]) if args else None
    if fn is None or fn.type not in ("arrow_function", "function_expression", "function"):
        return False
    params = fn.child_by_field_name("parameters")
    names = [c for c in params.named_children] if params is not None else []
    if len(names) < 2:
        return False
    index = src.text(names[1].child_by_field_name("pattern") or names[1])
    for x in walk(fn):
        if x.type != "binary_expression":
            continue
        sides = [x.child_by_field_name("left"), x.child_by_field_name("right")]
        if index not in {src.text(unwrap(s)) for s in sides if s is not None}:
            continue
        other = "".join(src.text(x).split())
        if ".length-" in other and src.text(x.child_by_field_name("operator")) in (
            ">",
            ">=",
            "<",
            "<=",
        ):
            return True
    return False


def _newest_cut(src: Source, call: Node) -> bool:
    """`[...history].reverse().slice(0, n)`: the newest `n`, whatever is done with them next."""
    args = arguments(call)
    if callee_name(src, call) != "slice" or len(args) != 2 or src.text(unwrap(args[0])) != "0":
        return False
    if not _a_cap(src, args[1]) and unwrap(args[1]).type != "identifier":
        return False
    rev = _receiver(call)
    rev = unwrap(rev) if rev is not None else None
    if rev is None or rev.type != "call_expression":
        return False
    if callee_name(src, rev) not in ("reverse", "toReversed"):
        return False
    return _history(src, _receiver(rev))


def _take_last(src: Source, call: Node) -> bool:
    """`takeRight(history, 10)`, `_.takeRight(messages, n)`."""
    args = arguments(call)
    return (
        callee_name(src, call) in _TAKE_LAST
        and len(args) == 2
        and _history(src, args[0])
        and src.text(unwrap(args[1])) not in ("1", "0")
    )


def _recent_loader(src: Source, call: Node) -> bool:
    """`getRecentMessages(history, 10)`, `loadLastMessages(chatId, 20)`: a call named for the
    recent messages handed a count past two (one or two is the latest exchange, not a window)."""
    ws = words(callee_name(src, call))
    if not (set(ws) & _RECENT and ws and ws[-1] in _ROWS):
        return False
    return any(unwrap(a).type == "number" and _a_cap(src, a) for a in arguments(call))


# A bound a list is kept under, by its name: a cap, a depth, a token or byte budget
# (`setting.maxPrompts`, `this._messageDepth`, `MAX_REQUEST_BYTES`).
_BOUND = _CAP | frozenset({"depth", "budget", "tokens", "bytes", "threshold", "max"})


def _named_bound(src: Source, cond: Node) -> bool:
    """A comparison (`>`, `>=`, or `<`, `<=` turned round) in `cond` whose bound is a name of
    one, not a literal: a queue drained to empty (`queue.length > 0`) keeps no window."""
    for x in walk(cond):
        if x.type != "binary_expression":
            continue
        op = src.text(x.child_by_field_name("operator"))
        left, right = x.child_by_field_name("left"), x.child_by_field_name("right")
        if left is None or right is None or op not in ("<", "<=", ">", ">="):
            continue
        bound = unwrap(left if op in ("<", "<=") else right)
        if bound.type == "member_expression":
            prop = bound.child_by_field_name("property")
            name = src.text(prop) if prop is not None else ""
        elif bound.type == "identifier":
            name = src.text(bound)
        else:
            continue
        if set(words(name)) & _BOUND:
            return True
    return False


def _has_role(src: Source, node: Node) -> bool:
    """An object literal with a `role` key inside `node` (a chat message built there)."""
    return any(
        x.type == "pair" and src.text(x.child_by_field_name("key")).strip("'\"") == "role"
        for x in walk(node)
    )


def _replayed(src: Source, listed: str) -> bool:
    """Whether the file sends the list named `listed` as a conversation, whatever it is named:
    spread beside other items into a new list (`[...this.systemMessages, ...this.queue]`),
    handed as a request's `messages`, or walked to build role messages
    (`conversation.data.forEach(([q, a]) => messages.push({ role: "user", content: q }))`)."""
    for n in walk(src.root):
        if n.type == "spread_element" and n.named_children:
            if "".join(src.text(unwrap(n.named_children[0])).split()) != listed:
                continue
            holder = n.parent
            if holder is not None and holder.type == "array" and len(holder.named_children) > 1:
                return True
        elif n.type == "pair" and src.text(n.child_by_field_name("key")) == "messages":
            value = n.child_by_field_name("value")
            if value is not None and "".join(src.text(unwrap(value)).split()) == listed:
                return True
        elif n.type == "call_expression" and callee_name(src, n) in ("forEach", "map"):
            got = _receiver(n)
            same = got is not None and "".join(src.text(unwrap(got)).split()) == listed
            if same and any(_has_role(src, a) for a in arguments(n)):
                return True
        elif n.type == "for_in_statement":
            right = n.child_by_field_name("right")
            body = n.child_by_field_name("body")
            same = right is not None and "".join(src.text(unwrap(right)).split()) == listed
            if same and body is not None and _has_role(src, body):
                return True
    return False


def _dropped_under_bound(src: Source, call: Node) -> bool:
    """`if (res.usage.prompt_tokens >= setting.maxPrompts) conversation.data.shift()`, `while
    (queue.filter(m => m.role === "user").length > this._messageDepth) queue.shift()`: the
    oldest item of a list the file replays as the conversation, dropped under a test of a count
    or a reply's size against a named bound, whatever the list is named."""
    if not _drops_oldest(src, call):
        return False
    obj = _receiver(call)
    if obj is None or unwrap(obj).type not in ("identifier", "member_expression"):
        return False
    listed = "".join(src.text(unwrap(obj)).split())
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type in ("if_statement", "while_statement"):
            cond = p.child_by_field_name("condition")
            body = p.child_by_field_name("consequence" if p.type == "if_statement" else "body")
            inside = body is not None and body.start_byte <= call.start_byte < body.end_byte
            if not inside or cond is None or not _named_bound(src, cond):
                return False
            return not _holds_records(src, listed) and _replayed(src, listed)
        p = p.parent
    return False


def _halved(src: Source, call: Node) -> bool:
    """`while (size(msgs) > MAX_BYTES) msgs = msgs.slice(Math.floor(msgs.length / 2))`: a
    history (or a local taken from one) bound again to its newer half in a loop, a budget cut
    whose first message moves each time the conversation grows past the budget."""
    args = arguments(call)
    if callee_name(src, call) != "slice" or len(args) != 1:
        return False
    arg = "".join(src.text(unwrap(args[0])).split())
    if ".length/2" not in arg and ".length>>1" not in arg:
        return False
    obj = _receiver(call)
    p = call.parent
    if obj is None or p is None or p.type != "assignment_expression":
        return False
    left = p.child_by_field_name("left")
    if left is None or src.text(left) != src.text(obj):
        return False
    loop = p.parent
    while loop is not None and loop.type not in FUNCTIONS:
        if loop.type in ("while_statement", "for_statement", "do_statement"):
            break
        loop = loop.parent
    if loop is None or loop.type in FUNCTIONS:
        return False
    if _history(src, obj):
        return True
    obj = unwrap(obj)
    value = _declared(src, obj) if obj.type == "identifier" else None
    value = unwrap(value) if value is not None else None
    if value is not None and value.type == "binary_expression":
        # `let msgs = options.messages || []`
        value = value.child_by_field_name("left")
    return value is not None and is_history(src, value)


_DELETES = frozenset({"delete", "deleteOne", "deleteMany", "remove", "destroy"})
_RUNNING = frozenset({"total", "size", "tokens", "length", "count", "sum"})


def _deleted_over_budget(src: Source, call: Node) -> bool:
    """`for (const c of countList) { if (c.totalSize > OPENAI_MAX_TOKEN) await
    MsgTable.where({ _id: c.msgId }).delete() }`: stored rows deleted in a loop once a running
    total passes a named bound, in a file that builds chat messages: the stored conversation
    is cut to a size budget at its start, and the replay built from it moves with it."""
    if callee_name(src, call) not in _DELETES:
        return False
    args = arguments(call)
    if args and unwrap(args[0]).type != "object":
        return False  # `cache.delete(key)`: a map's entry by its key, no stored query
    p = call.parent
    branch: Node | None = None
    cond: Node | None = None
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "if_statement" and cond is None:
            cond = p.child_by_field_name("condition")
            branch = p.child_by_field_name("consequence")
            if branch is None or not branch.start_byte <= call.start_byte < branch.end_byte:
                return False
        elif p.type in ("for_statement", "for_in_statement", "while_statement"):
            break
        p = p.parent
    if p is None or p.type in FUNCTIONS or cond is None or not _named_bound(src, cond):
        return False
    running = any(
        set(words(src.text(x))) & _RUNNING
        for x in walk(cond)
        if x.type in ("identifier", "property_identifier")
    )
    return running and _has_role(src, src.root)


def _collected_back_to_cap(src: Source, call: Node) -> bool:
    """`while (msg && history.length < HISTORY_DEPTH_LIMIT) { history.unshift({ role, text });
    msg = msg.reply_to_message }`: the conversation collected backwards from the newest
    message until a count is reached, the newest N whatever the chain's length."""
    if callee_name(src, call) != "unshift":
        return False
    obj = _receiver(call)
    if obj is None:
        return False
    listed = "".join(src.text(unwrap(obj)).split())
    args = arguments(call)
    if not (_history(src, obj) or any(_has_role(src, a) for a in args)):
        return False
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type in ("while_statement", "do_statement", "for_statement"):
            cond = p.child_by_field_name("condition")
            return cond is not None and _under_cap(src, cond, listed)
        p = p.parent
    return False


def _under_cap(src: Source, cond: Node, listed: str) -> bool:
    """`history.length < MAX` (or `<=`, or turned round) for the list named `listed`."""
    return any(
        _a_cap(src, bound) or bool(set(words(src.text(unwrap(bound)))) & _BOUND)
        for bound in _length_bounds(src, cond, listed, above=False)
    )


_SHAPES: tuple[tuple[Callable[[Source, Node], bool], str, frozenset[str] | None], ...] = (
    (_dropped_over_cap, "the oldest messages are dropped once the history passes a cap", None),
    (_kept_by_index, "the history is kept from its length less a cap on, by index", None),
    (_newest_cut, "the history is cut to its newest messages", None),
    (_take_last, "the history is cut to its last messages", None),
    (_recent_loader, "the history is loaded as its most recent messages", None),
    (
        _dropped_under_bound,
        "the oldest messages are dropped once a count or size passes a bound",
        frozenset({"shift", "splice"}),
    ),
    (
        _halved,
        "the older half of the messages is dropped while over a budget",
        frozenset({"slice"}),
    ),
    (
        _deleted_over_budget,
        "the oldest stored messages are deleted once their size passes a bound",
        _DELETES,
    ),
    (
        _collected_back_to_cap,
        "the conversation is collected back from the newest to a count",
        frozenset({"unshift"}),
    ),
)


def _reversed_after_budget_fill(src: Source, loop: Node) -> Node | None:
    """`for (const row of rows) { if (budget - row.tokens < 0) break; out.push({ role, content
    }) }` and then `out.reverse()`: the list is filled in the reverse of the order it is sent,
    so the loop walked from the newest message, and the budget test that leaves it drops the
    oldest (a window by a token budget, whatever the walked rows are named). The budget test,
    if it is one."""
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    stop: Node | None = None
    filled: set[str] = set()
    for n in walk(body):
        if n.type == "if_statement" and stop is None:
            cond = n.child_by_field_name("condition")
            if (
                cond is not None
                and any(x.type == "break_statement" for x in walk(n))
                and any(
                    x.type == "binary_expression"
                    and src.text(x.child_by_field_name("operator")) in ("<", "<=", ">", ">=")
                    for x in walk(cond)
                )
                and any(
                    set(words(src.text(x))) & _BUDGET_WORDS
                    for x in walk(cond)
                    if x.type in ("identifier", "property_identifier")
                )
            ):
                stop = n
        elif n.type == "call_expression" and callee_name(src, n) == "push":
            got = _receiver(n)
            if got is not None and unwrap(got).type == "identifier" and _has_role(src, n):
                filled.add(src.text(unwrap(got)))
    if stop is None or not filled:
        return None
    scope = loop.parent
    while scope is not None and scope.type not in FUNCTIONS:
        scope = scope.parent
    for n in walk(scope) if scope is not None else ():
        if (
            n.type == "call_expression"
            and n.start_byte >= loop.end_byte
            and callee_name(src, n) in ("reverse", "toReversed")
            and not arguments(n)
        ):
            got = _receiver(n)
            if got is not None and src.text(unwrap(got)) in filled:
                return stop
    return None


# Words of a helper that compacts a conversation (`compactMessages`, `summarizeHistory`).
_COMPACTS = frozenset(
    {"compact", "compaction", "compress", "condense", "summarize", "summarise", "summarized"}
)


def _compacted_back(src: Source, node: Node) -> str | None:
    """`messages = await compactMessages(client, messages, limit)`: a history written back from
    a call named for compacting it and handed it; its older messages come back as a summary.
    The helper's name, if it is one."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or unwrap(left).type != "identifier":
        return None
    name = src.text(unwrap(left))
    value = unwrap(right)
    if value.type == "await_expression" and value.named_children:
        value = unwrap(value.named_children[0])
    if value.type != "call_expression" or not is_history(src, unwrap(left)):
        return None
    helper = callee_name(src, value)
    if not set(words(helper)) & _COMPACTS:
        return None
    if not any(src.text(unwrap(a)) == name for a in arguments(value)):
        return None
    return helper


_SUMMARY_WHY = (
    "each summary rewrites the history after the system prompt, and the request after it "
    "misses the cache from there on; trigger it rarely (a high token threshold) and keep many "
    "recent messages so that the misses stay few"
)


# Words of a token budget a fill is kept under (`budget`, `maxTokens`, `remainingTokens`).
_BUDGET_WORDS = frozenset({"budget", "tokens", "token", "remaining", "max"})


def check_cap_windows(src: Source) -> list[Finding]:
    out: list[Finding] = []
    if _store_only(src):
        return out  # a store's retention caps, as `check_windows` reads them
    lines: set[int] = set()
    for n in walk(src.root):
        if n.type == "for_in_statement" and (stop := _reversed_after_budget_fill(src, n)):
            line = src.pos(stop)[0]
            if line not in lines:
                lines.add(line)
                what = "the messages are filled from the newest back while a token budget lasts"
                out.append(src.finding(stop, "PL303", f"{what}: {_WHY}"))
            continue
        if n.type == "assignment_expression" and (by := _compacted_back(src, n)):
            line = src.pos(n)[0]
            if line not in lines:
                lines.add(line)
                what = f"older messages are replaced by a summary (written back from `{by}`)"
                out.append(src.finding(n, "PL303", f"{what}: {_SUMMARY_WHY}"))
            continue
        if n.type != "call_expression" or _for_side_request(src, n):
            continue
        name: str | None = None
        for test, what, names in _SHAPES:
            if names is not None:
                # The newer shapes ask for their method's name first: one lookup a call.
                name = callee_name(src, n) if name is None else name
                if name not in names:
                    continue
            if test(src, n):
                fn = n.child_by_field_name("function")
                at = fn.child_by_field_name("property") if fn is not None else None
                at = at if at is not None else n
                line = src.pos(at)[0]
                if line not in lines:
                    lines.add(line)
                    text = " ".join(src.text(n).split())
                    out.append(src.finding(at, "PL303", f"{what} (`{text[:50]}`): {_WHY}"))
                break
    return out
