"""PL303 in TypeScript/JavaScript: the conversation cut to a window. A history kept to its last
messages (`messages.slice(-MAX_MESSAGES)`, LangChain.js `trimMessages(...)`, a loop that
`shift()`s or `splice()`s messages while a count or a token total is over a budget, a loader
handed a message cap such as `loadSession(key, maxMessages)`) drops its oldest message once it
is full: from then on the first message after the system prompt changes every turn, and every
request misses the cache from there to the end.

Names are read by their words (`meaning.words`): a history is a value named like `messages`,
`history`, `conversation`, `turns` or `chat`; a cap is named like `max`/`limit`/`last`/`keep`
with `messages`/`turns`/`history`. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, OVERFLOW_TEXT, SIDE_WORDS, words
from ..meaning import overflow_name as _overflow_name
from .reach import fresh_pair, rows_sent, text_handed_in, window_sent
from .storewindow import oldest_first
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    bindings,
    callee_name,
    function_of,
    key_name,
    local_uses,
    object_pairs,
    scope_of,
    string_value,
    unwrap,
    value_name,
    walk,
)

_HISTORY = HISTORY_WORDS
_CAP = frozenset({"max", "limit", "last", "keep", "recent", "window"})
_COUNTED = frozenset({"messages", "message", "turns", "turn", "history", "msgs"})


# What a window may keep the last of: the messages, or the screenshots sent in them.
_WINDOWED = _COUNTED | {"images", "screenshots", "output", "conversations"}
_COUNTS = frozenset({"length", "count", "total", "size", "num"})
_START = frozenset({"start", "from", "keep", "excess", "first"})


def _window_start(src: Source, decl: Node) -> bool:
    """`const excess = this.messages.length - max` then `messages.splice(0, excess)`,
    `images.slice(excessCount)`, `i >= keepFromIndex` or a name for the window's start
    (`shortTermMemoryStartIndex = Math.max(0, totalMessageCount - historyMessageCount)`): the
    history's length less a cap, the first message kept once the window is full."""
    name_node = decl.child_by_field_name("name")
    value = decl.child_by_field_name("value")
    if name_node is None or value is None or name_node.type != "identifier":
        return False
    if not any(_length_less_cap(src, x) for x in walk(value) if x.type == "binary_expression"):
        return False
    name = src.text(name_node)
    uses = local_uses(src, scope_of(decl), decl)
    if any(_for_side_request(src, _operand_top(u)) for u in uses):
        return False  # the recent turns a title or topic request reads, once
    if set(words(name)) & _START:
        return True
    for use in uses:
        p = use.parent
        if p is not None and p.type == "arguments" and p.parent is not None:
            called = callee_name(src, p.parent)
            args = arguments(p.parent)
            if (called == "slice" and args and args[0].id == use.id) or (
                called == "splice" and len(args) == 2 and src.text(args[0]) == "0"
            ):
                return True
        if (
            p is not None
            and p.type == "binary_expression"
            and src.text(p.child_by_field_name("operator")) in _COMPARE
            and _in_loop(p)
        ):
            return True
    return False


def _cut_at(src: Source, decl: Node) -> Node:
    """Where a window start is used to cut the history (`messages.slice(excess + 1)`, the
    line that drops the messages), else its declaration."""
    name_node = decl.child_by_field_name("name")
    name = src.text(name_node) if name_node is not None else ""
    for u in walk(scope_of(decl)):
        if u.type != "identifier" or src.text(u) != name or u.start_byte < decl.end_byte:
            continue
        p = u.parent
        while p is not None and p.type in ("binary_expression", "parenthesized_expression"):
            p = p.parent
        if (
            p is not None
            and p.type == "arguments"
            and p.parent is not None
            and callee_name(src, p.parent) in ("slice", "splice")
            and is_history(src, _callee_object(p.parent))
        ):
            return p.parent
    return decl


def _callee_object(call: Node) -> Node | None:
    fn = call.child_by_field_name("function")
    return fn.child_by_field_name("object") if fn is not None else None


def _over_cap(src: Source, call: Node, obj: Node | None, arg: Node) -> bool:
    """`if (allImages.length > this.maxImagesCount) { allImages.slice(this.maxImagesCount) }`:
    the messages or screenshots past a cap are cut once there are more, so what is kept (or
    omitted) moves with every new one."""
    if obj is None:
        return False
    ws = set(words(value_name(src, obj)))
    cap = set(words(value_name(src, arg)))
    if not (ws & _WINDOWED) or not _not_system(ws) or not cap & _CAP_WORDS:
        return False
    whole = "".join(src.text(unwrap(obj)).split())
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "if_statement":
            cond = "".join(src.text(p.child_by_field_name("condition")).split())
            if whole + ".length>" in cond:
                return True
        p = p.parent
    return False


_CAP_WORDS = frozenset({"max", "limit", "keep", "window", "cap"})


def _operand_top(node: Node) -> Node:
    """The outermost arithmetic or choice `node` is an operand of (`a < b ? a : c`)."""
    while node.parent is not None and node.parent.type in (
        "binary_expression",
        "ternary_expression",
        "parenthesized_expression",
    ):
        node = node.parent
    return node


def _length_less_cap(src: Source, node: Node) -> bool:
    """`messages.length - maxMessages`, `totalMessageCount - historyMessageCount`: a count of
    messages less a bound other than the latest one (`- 1`)."""
    if src.text(node.child_by_field_name("operator")) != "-":
        return False
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    if left is None or right is None or right.type == "number":
        return False
    left = unwrap(left)
    if left.type == "member_expression" and src.text(left.child_by_field_name("property")) in (
        "length",
        "size",
    ):
        ws = set(words(value_name(src, left.child_by_field_name("object"))))  # type: ignore[arg-type]
        return bool(ws & _WINDOWED) and _not_system(ws)
    ws = set(words(value_name(src, left)))
    return bool(ws & _COUNTS) and bool(ws & _COUNTED) and _not_system(ws)


_OVERFLOW = (
    "the request is sent again without its oldest messages, so the first message after the "
    "system prompt differs from then on and every later request misses the cache there; "
    "summarise or cut the history in large steps before it reaches the limit"
)
_CUT_WORDS = frozenset({"truncate", "trim", "drop", "prune", "shrink", "cut", "evict"})


def _auto_truncate(name: str) -> bool:
    """`createAutoTruncateStrategy`, `autoTruncateMessages`: truncation run when a request
    overflows."""
    ws = set(words(name))
    return "truncate" in ws and bool(ws & {"auto", "strategy", "retry"})


def _ancestors(node: Node) -> list[Node]:
    out = []
    p = node.parent
    while p is not None:
        out.append(p)
        p = p.parent
    return out


def _cut_on_overflow(src: Source, catch: Node) -> Node | None:
    """`catch (e) { if (/context length/i.test(e.message)) { messages.splice(1, 4); return
    retry(messages) } }`: a request that overflowed retried without its oldest messages.
    Catching the error and giving up cuts nothing."""
    body = catch.child_by_field_name("body")
    if body is None:
        return None
    overflow = False
    for x in walk(body):
        if x.type in ("string", "template_string", "regex"):
            overflow = overflow or bool(OVERFLOW_TEXT.search(src.text(x)))
        elif x.type in ("identifier", "property_identifier"):
            overflow = overflow or _overflow_name(src.text(x))
    if not overflow:
        return None
    for x in walk(body):
        if x.type == "call_expression":
            name = callee_name(src, x)
            fn = x.child_by_field_name("function")
            obj = fn.child_by_field_name("object") if fn is not None else None
            if name in ("splice", "shift") and is_history(src, obj):
                return x
            if set(words(name)) & _CUT_WORDS and any(is_history(src, a) for a in arguments(x)):
                return x
        elif x.type == "assignment_expression":
            left = x.child_by_field_name("left")
            right = x.child_by_field_name("right")
            if (
                is_history(src, left)
                and right is not None
                and unwrap(right).type == "call_expression"
                and callee_name(src, unwrap(right)) == "slice"
            ):
                return x
    return None


# A store's calls named for the messages it keeps (`getMessages`, `listHistory`).
_STORED = frozenset({"messages", "history", "conversation", "turns"})


def _window_memory(src: Source, new: Node) -> bool:
    """`new BufferWindowMemory({ k: 5 })`, `new ChatHistoryWindow({ maxMessages: 10 })`: a
    framework's memory built to keep only the newest messages."""
    ws = set(words(callee_name(src, new)))
    if not ws & {"memory", "history", "window", "conversation"}:
        return False
    for a in arguments(new):
        a = unwrap(a)
        if a.type != "object":
            continue
        for p in a.named_children:
            if p.type != "pair":
                continue
            key = key_name(src, p.child_by_field_name("key")) or ""
            value = src.text(unwrap(p.child_by_field_name("value")))  # type: ignore[arg-type]
            if value in ("undefined", "null", "0", "Infinity"):
                continue
            if (key == "k" and "window" in ws) or _is_cap(key):
                return True
    return False


def _newest_of_store(src: Source, call: Node) -> bool:
    """`messages.find({ chatId }).sort({ createdAt: -1 }).limit(20)`: a collection of messages
    read newest first and cut to a count (Mongo-style), the store's own window."""
    fn = call.child_by_field_name("function")
    obj = fn.child_by_field_name("object") if fn is not None else None
    sorted_ = False
    while obj is not None:
        obj = unwrap(obj)
        if obj.type == "call_expression":
            if callee_name(src, obj) == "sort":
                sorted_ = True
            for a in arguments(obj):
                text = string_value(src, unwrap(a))
                if text is not None and set(words(text)) & _STORED:
                    return sorted_  # `db.collection("messages")`
            f = obj.child_by_field_name("function")
            obj = f.child_by_field_name("object") if f is not None else None
        elif obj.type == "member_expression":
            if set(words(src.text(obj.child_by_field_name("property")))) & _STORED:
                return sorted_
            obj = obj.child_by_field_name("object")
        else:
            return sorted_ and bool(set(words(src.text(obj))) & _STORED)
    return False


def _sorted_newest_first(src: Source, call: Node) -> bool:
    """`.sort({ createdAt: -1 }).limit(n)`, `.sort("-createdAt")`, `.orderBy(col, "desc")`:
    the call chain a `limit` ends reads the newest rows first."""
    fn = call.child_by_field_name("function")
    obj = fn.child_by_field_name("object") if fn is not None else None
    while obj is not None and unwrap(obj).type == "call_expression":
        obj = unwrap(obj)
        if callee_name(src, obj) in ("sort", "orderBy"):
            text = "".join(src.text(a) for a in arguments(obj)).replace(" ", "").lower()
            if ":-1" in text or "desc" in text or text.startswith(('"-', "'-")):
                return True
        f = obj.child_by_field_name("function")
        obj = f.child_by_field_name("object") if f is not None else None
    return False


def _not_system(ws: set[str]) -> bool:
    """Not named for the system prompt: `systemMessages` is not the history, while
    `nonSystemMessages` (the history with the system messages taken out) is."""
    return "system" not in ws or "non" in ws


# A list named for a field of the messages or sessions, not for them: `sessionIds`,
# `stateHistoryTimestamps`, `historyKeys` (cutting it sends nothing different).
_FIELD_LIST = frozenset({"ids", "id", "timestamps", "times", "keys", "names", "paths", "urls"})


def is_history(src: Source, node: Node | None) -> bool:
    """A value named like a conversation: `messages`, `chatHistory`, `this.transcript`."""
    if node is None:
        return False
    named = words(value_name(src, node))
    ws = set(named)
    return bool(ws & _HISTORY) and _not_system(ws) and named[-1] not in _FIELD_LIST


def _typed_messages(src: Source, node: Node | None) -> bool:
    """A parameter declared as a list of messages (`all: ConversationMessage[]`,
    `items: Array<ChatMessage>`), whatever its own name: its type says it is a history."""
    if node is None or unwrap(node).type != "identifier":
        return False
    name = src.text(unwrap(node))
    fn = function_of(node)
    params = fn.child_by_field_name("parameters") if fn is not None else None
    for p in params.named_children if params is not None else []:
        pattern = p.child_by_field_name("pattern")
        typed = p.child_by_field_name("type")
        if pattern is None or typed is None or src.text(pattern) != name:
            continue
        text = src.text(typed).lstrip(": ").strip()
        listed = text.endswith("[]") or text.startswith(("Array<", "ReadonlyArray<"))
        ws = set(words(text))
        return listed and bool(ws & (_HISTORY | {"message"})) and _not_system(ws)
    return False


_EXPIRE = frozenset({"expire", "prune", "evict", "forget"})
_TOKENS = frozenset({"tokens", "budget"})
# Calls that only measure a history (`countTokens(messages, maxTokens)`) cut nothing.
MEASURE = frozenset({"count", "estimate", "measure", "tokenize", "encode", "log", "debug"})


_CUT = frozenset({"subset", "trim", "truncate", "fit", "window", "cut", "select", "prepare"})
# A history summarised in one step when it passes a limit is the remedy, not a window.
_COMPACT = frozenset({"compact", "compaction", "summarize", "summarise", "summary", "condense"})


def _cuts_messages(name: str) -> bool:
    """A call that works on the messages themselves (`getMessagesSubset`,
    `prepareMessagesWithFiles`), not one that only measures them or summarises them."""
    ws = set(words(name))
    if ws & (MEASURE | _COMPACT):
        return False
    return bool(ws & (_CUT | (_HISTORY - {"session"})))


def _is_conversation(src: Source, node: Node) -> bool:
    """A history by a narrower reading than `is_history`: not a `session` (often a login)."""
    ws = set(words(value_name(src, node)))
    return bool(ws & (_HISTORY - {"session"})) and _not_system(ws)


# The reply's length limit of a model call (`maxTokens`, `max_tokens`, `maxOutputTokens`): a
# cap on what the model writes, not on the history it is sent.
_OUTPUT = frozenset({"output", "completion", "response", "reply", "new", "generation"})


def _output_limit(name: str) -> bool:
    ws = set(words(name))
    return ws - {"max"} == {"tokens"} or bool(ws & _OUTPUT)


def _is_budget(src: Source, node: Node, cutting: bool = False) -> bool:
    """A token budget handed to a call: `systemTokens`, `{ contextLengthTokens }`; `maxTokens`
    only when the call is named for cutting (`trim`, `fit`): handed to a call that sends the
    messages (`chat(messages, { maxTokens: 200 })`) it limits the reply."""
    node = unwrap(node)
    names: list[str] = []
    if node.type == "object":
        for p in node.named_children:
            if p.type == "pair":
                names.append(key_name(src, p.child_by_field_name("key")) or "")
            elif p.type == "shorthand_property_identifier":
                names.append(src.text(p))
    elif node.type == "member_expression":
        names.append(src.text(node.child_by_field_name("property")))
    elif node.type == "identifier":
        names.append(src.text(node))
    return any(set(words(x)) & _TOKENS and (cutting or not _output_limit(x)) for x in names)


def _declared_params(src: Source) -> dict[str, list[list[Node]]]:
    """The parameters of each function declared in this file, by its name, in source order:
    one walk of the file for every call that asks (a walk per call is quadratic)."""
    out: dict[str, list[list[Node]]] = {}
    for n in walk(src.root):
        if n.type == "function_declaration":
            params = n.child_by_field_name("parameters")
            kids = [p for p in params.named_children if p.type != "comment"] if params else []
            out.setdefault(src.text(n.child_by_field_name("name")), []).append(kids)
    return out


def _cap_param(src: Source, declared: dict[str, list[list[Node]]], name: str, index: int) -> bool:
    """Whether a function `name` defined in this file (`declared`) names its parameter at
    `index` for a cap (`limit`, `max`, `keep`)."""
    for kids in declared.get(name, ()):
        if index < len(kids):
            p = kids[index]
            p = p.child_by_field_name("pattern") or p.child_by_field_name("left") or p
            return bool(set(words(src.text(p))) & _CAP_WORDS)
    return False


# A read named for the newest messages of a conversation, or their context
# (`getRecentContext(sessionId, 10)`, `fetchLatestMessages(id, 20)`).
_NEWEST_READ = frozenset({"recent", "latest", "newest"})
_READ_OF = _STORED | {"context", "chat"}


def _newest_count(src: Source, name: str, arg: Node) -> bool:
    """`getRecentContext(session.id, 10)`: a call named for the newest messages (or their
    context) handed a count past one: the window is cut by the call, wherever it is defined."""
    ws = set(words(name))
    text = src.text(arg)
    return (
        bool(ws & _NEWEST_READ and ws & _READ_OF)
        and arg.type == "number"
        and text.isdigit()
        and int(text) > 1
    )


def _is_cap(name: str) -> bool:
    ws = set(words(name))
    # `WINDOW_SIZE`: a sliding window's size is a count of the messages it keeps.
    return (bool(ws & _CAP) and bool(ws & _COUNTED)) or ws == {"window", "size"}


def _negative(src: Source, node: Node) -> bool:
    """`-N`, `-MAX` or `x.length - N`: a count from the end. `-1` is the latest message, read
    on its own, not a window kept of the history."""
    node = unwrap(node)
    text = "".join(src.text(node).split())
    if text in ("-1", "(-1)"):
        return False
    return text.startswith("-") or (".length-" in text)


_WINDOW = (
    "once the window is full its first message changes every turn, and every request misses "
    "the cache from the system prompt on; summarise or cut the history in large steps instead"
)
_DROPPED = (
    "a message an earlier request sent is gone from the next one, so the prefix breaks there "
    "and the rest of the history is sent again uncached; keep sent messages and add new ones"
)


def _method_at(call: Node) -> Node:
    """Where a window made by a method call is reported: at the method's name (`.slice`,
    `.splice`), the line that cuts, where a chain spreads the receiver over lines above it
    (`safeBody.history` then `.slice(-10)` on the next line)."""
    fn = call.child_by_field_name("function")
    at = (
        fn.child_by_field_name("property")
        if fn is not None and fn.type == "member_expression"
        else None
    )
    return at if at is not None else call


# Where a file keeps conversations (a browser's storage, a JSON file) and what says it asks a
# model: a store that never asks caps what it keeps for display and persistence.
_STORAGE = re.compile(
    r"\b(?:localStorage|sessionStorage|AsyncStorage|indexedDB|writeFileSync|readFileSync)\b"
)
_ASKS = frozenset(
    {"generate", "complete", "completion", "completions", "chat", "ask", "llm", "invoke"}
    | {"stream", "create", "send", "fetch", "request", "post", "query", "run", "prompt"}
)


_STORE_FILES = frozenset({"storage", "persistence", "persist"})


def _store_only(src: Source) -> bool:
    """A file that stores conversations and sends none: it uses a storage API or is named for
    one (`copilotStorage.ts`, `chatPersistence.ts`), and calls no function named for asking
    a model (`create`, `chat`, `fetch`, `streamText`...)."""
    stem = src.path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    if not (_STORAGE.search(src.text(src.root)) or set(words(stem)) & _STORE_FILES):
        return False
    for n in walk(src.root):
        if n.type in ("call_expression", "new_expression"):
            name = callee_name(src, n) if n.type == "call_expression" else ""
            if set(words(name)) & _ASKS:
                return False
    return True


def _assembling(src: Source) -> set[int]:
    """The functions (by id) of a file that assemble a model's context as an object (`return
    { systemPrompt, messages: recent }`): whoever sends it, their windows are the request's."""
    return {
        f.id
        for n in walk(src.root)
        if n.type == "object" and _request_shaped(src, n)
        for f in (function_of(n),)
        if f is not None
    }


def _request_shaped(src: Source, obj: Node) -> bool:
    """An object literal with a system prompt beside the messages (`{ systemPrompt: base,
    messages: recent }`, `{ system, messages }`): a model's context, not a stored record."""
    keys = [
        key_name(src, p.child_by_field_name("key")) or ""
        for p in obj.named_children
        if p.type == "pair"
    ] + [src.text(p) for p in obj.named_children if p.type == "shorthand_property_identifier"]
    said = [set(words(k)) for k in keys]
    return any(w == {"messages"} for w in said) and any(
        "system" in w or w == {"instructions"} for w in said
    )


def check_windows(src: Source) -> list[Finding]:
    out: list[Finding] = []
    # Retention caps of a store: what it keeps is read back for display; where the project
    # sends a conversation, its own request code is linted for windows. A store's function
    # that assembles the model's context itself is such request code.
    only = _assembling(src) if _store_only(src) else None
    if only is not None and not only:
        return out
    seen: set[int] = set()
    declared: dict[str, list[list[Node]]] | None = None  # made once, when a call first asks

    def add(node: Node, what: str, tail: str = _WINDOW) -> None:
        if only is not None and getattr(function_of(node), "id", None) not in only:
            return
        line, _ = src.pos(node)
        if line not in seen:
            seen.add(line)
            out.append(src.finding(node, "PL303", f"{what}: {tail}"))

    for n in walk(src.root):
        if (n.type == "for_statement" and _reverse_budget_for(src, n)) or (
            n.type == "for_in_statement" and _reversed_budget_for_of(src, n)
        ):
            add(n, "the conversation is filled from the newest message back while a budget lasts")
            continue
        if n.type == "variable_declarator" and _window_start(src, n):
            name = src.text(n.child_by_field_name("name"))
            add(_cut_at(src, n), f"the history is kept from `{name}` (its length less a cap) on")
            continue
        if n.type == "catch_clause" and (cut := _cut_on_overflow(src, n)) is not None:
            add(cut, "messages are dropped when a request overflows the context", _OVERFLOW)
            continue
        if n.type == "new_expression" and _window_memory(src, n):
            add(n, f"the history is kept to its newest messages (`{_short(src, n)}`)")
            continue
        if n.type != "call_expression":
            continue
        name = callee_name(src, n)
        args = arguments(n)
        if _auto_truncate(name) and not any(
            _auto_truncate(callee_name(src, p))
            for p in _ancestors(n)
            if p.type == "call_expression"
        ):
            # `createAutoTruncateStrategy({ truncate: ... })`: a retry that cuts the request
            # once the provider rejects it as too long (reported once, at the outermost call).
            add(n, f"the request is truncated when it overflows (`{name}`)", _OVERFLOW)
            continue
        if (
            name == "limit"
            and args
            and (_newest_of_store(src, n) or (_sorted_newest_first(src, n) and rows_sent(src, n)))
        ):
            add(n, f"the stored messages are read back to a count (`{_short(src, n)}`)")
            continue
        fn = n.child_by_field_name("function")
        obj = fn.child_by_field_name("object") if fn is not None else None
        if name == "trimMessages":
            add(n, "the conversation is trimmed to a budget (`trimMessages`)")
        elif (
            name == "slice"
            and args
            and _negative(src, args[0])
            and (is_history(src, _through_order_kept(src, obj)) or _typed_messages(src, obj))
            and not _for_side_request(src, n)
            and not _excerpted(src, n)
            and not _kept_in_record(src, n)
            and not _flattened_for_one_shot(src, n)
            and not _quoted_for_side_task(src, n)
        ):
            what = f"the conversation is cut to its last messages (`{_short(src, n)}`)"
            add(_method_at(n), what)
        elif (
            name == "slice"
            and len(args) == 1
            and _negative(src, args[0])
            and window_sent(src, n, aside=lambda c: _for_side_request(src, c))
            and not _for_side_request(src, n)
            and not _excerpted(src, n)
        ):
            # `base.slice(-20).map(...)` spread after the system message: whatever the list
            # is named, the request it reaches sends it as the history.
            what = f"the messages sent are cut to the last ones (`{_short(src, n)}`)"
            add(_method_at(n), what)
        elif (
            name == "slice"
            and len(args) == 1
            and is_history(src, obj)
            and _moving(src, args[0])
            and not _for_side_request(src, n)
            and not _rejoined(src, n, obj, args[0])
        ):
            add(
                _method_at(n),
                f"the conversation is cut from a moving position (`{_short(src, n)}`)",
            )
        elif name == "slice" and len(args) == 1 and _over_cap(src, n, obj, args[0]):
            add(
                _method_at(n),
                f"items past a cap are cut off once there are more (`{_short(src, n)}`)",
            )
        elif name in ("shift", "splice") and _in_budget_loop(src, n, obj):
            add(_method_at(n), f"messages are dropped while over a budget (`{_short(src, n)}`)")
        elif name == "slice" and _drops_first(src, n, args) and _in_budget_loop(src, n, obj):
            add(
                _method_at(n),
                f"messages are dropped from the front while over a budget (`{_short(src, n)}`)",
            )
        elif name == "splice" and _keeps_last(src, n, obj):
            add(_method_at(n), f"the conversation is cut to its last items (`{_short(src, n)}`)")
        elif set(words(name)) & _EXPIRE and any(is_history(src, a) for a in args):
            add(n, f"messages expire from the history (`{_short(src, n)}`)", _DROPPED)
        elif (
            _cuts_messages(name)
            and any(_is_conversation(src, a) for a in args)
            and (any(_is_budget(src, a, _named_to_cut(name)) for a in args) or _names_budget(name))
        ):
            add(n, f"the history is cut to a token budget (`{_short(src, n)}`)")
        else:
            for i, a in enumerate(args):
                a = unwrap(a)
                capped = a.type == "identifier" and _is_cap(src.text(a))
                if a.type == "member_expression":
                    # `settings.prompts?.maxTranscriptMessages`: a cap kept in the settings.
                    capped = _is_cap(src.text(a.child_by_field_name("property")))
                if a.type == "number" and name:
                    # `getConversationMessages(id, 20)` where this file defines it with
                    # `(conversationId, limit = 20)`: a count handed to the cap parameter.
                    if declared is None:
                        declared = _declared_params(src)
                    capped = _cap_param(src, declared, name, i) or _newest_count(src, name, a)
                if a.type == "object":
                    keys = [
                        key_name(src, p.child_by_field_name("key")) or ""
                        for p in a.named_children
                        if p.type == "pair"
                    ]
                    capped = any(_is_cap(k) for k in keys)
                    # `getMessages(id, { limit: 20 })`: a store call named for the messages
                    capped = capped or ("limit" in keys and bool(set(words(name)) & _STORED))
                # Named for the history, or for keeping the last of what it is handed:
                # `limitLast(transcript, maxTranscriptMessages)`.
                named = (
                    set(words(name)) & (_HISTORY | {"load", "trim"})
                    or _newest_count(src, name, a)
                    or (set(words(name)) & _CAP and any(is_history(src, x) for x in args))
                )
                if capped and name and named and not oldest_first(src, n):
                    add(
                        _method_at(n),
                        f"the history is loaded capped to a message count (`{_short(src, n)}`)",
                    )
                    break
    return out


_SIDE = SIDE_WORDS
_SEND = frozenset(
    {"create", "generateText", "streamText", "generateObject", "streamObject", "invoke", "stream"}
)


def check_side_requests(src: Source) -> list[Finding]:
    """PL305: a side request (summary, title, compaction) that sends the conversation as its
    messages under a system prompt written for it: nothing of the session's cached prefix is
    read, so the whole history is billed uncached."""
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "call_expression" or callee_name(src, n) not in _SEND:
            continue
        args = arguments(n)
        body = unwrap(args[0]) if args else None
        if body is None or body.type != "object":
            continue
        pairs: dict[str | None, Node | None] = {
            key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
            for p in body.named_children
            if p.type == "pair"
        }
        for p in body.named_children:
            if p.type == "shorthand_property_identifier":
                pairs[src.text(p)] = p
        system = pairs.get("system") or pairs.get("instructions")
        sent = pairs.get("messages")
        dropped = [
            v
            for k in ("system", "instructions", "tools")
            if (v := pairs.get(k)) is not None and _dropped_for_side_task(src, unwrap(v))
        ]
        if dropped and sent is not None:
            # `system: isCompactPrompt ? undefined : options.systemPrompt`: the compaction
            # request sends the same conversation without the session's system prompt or tools.
            out.append(
                src.finding(
                    dropped[0],
                    "PL305",
                    f"`{src.text(dropped[0])[:60]}`: the side request (a summary or a "
                    "compaction) sends the conversation without the session's system prompt or "
                    "tools, so none of it is read from the session's cache; send it after the "
                    "session's own prefix and ask for the summary in the newest user message",
                )
            )
            continue
        if system is None or sent is None or not _own_system(src, unwrap(system)):
            continue
        if not (
            any(is_history(src, x) for x in _parts(sent)) or _transcript_sent(src, unwrap(sent))
        ):
            continue
        fn = _enclosing_name(src, n)
        texts = [fn, src.text(system)[:80]]
        if not any(set(words(t)) & _SIDE for t in texts if t):
            continue
        out.append(
            src.finding(
                n,
                "PL305",
                "a side request sends the conversation under a system prompt written for it: "
                "none of it is read from the session's cache; send it after the session's own "
                "prefix (its system prompt and tools) instead",
            )
        )
    return out


def _dropped_for_side_task(src: Source, value: Node) -> bool:
    """`isCompactPrompt ? undefined : tools`: a prefix part left out (`undefined`, `null`,
    `[]`) when the condition names a side task."""
    if value.type != "ternary_expression":
        return False
    cond = value.child_by_field_name("condition")
    branches = [value.child_by_field_name("consequence"), value.child_by_field_name("alternative")]
    empty = any(
        b is not None and (src.text(unwrap(b)) in ("undefined", "null", "[]", '""', "''"))
        for b in branches
    )
    names = (
        [src.text(n) for n in walk(cond) if n.type in ("identifier", "property_identifier")]
        if cond is not None
        else []
    )
    return empty and any(set(words(x)) & _SIDE for x in names)


def _own_system(src: Source, system: Node) -> bool:
    """A system prompt written for the side request: literal text, or a builder or constant
    named for its job (`buildSummarizationSystemPrompt()`, `COMPACTION_PROMPT`)."""
    if system.type in ("string", "template_string"):
        return True
    if system.type in ("call_expression", "identifier", "member_expression"):
        head = system.child_by_field_name("function") if system.type == "call_expression" else None
        return bool(set(words(src.text(head if head is not None else system))) & _SIDE)
    return False


def _transcript_sent(src: Source, sent: Node) -> bool:
    """`messages: [{ role: "user", content: `<transcript>${transcript}</transcript>` }]`: the
    conversation flattened into the side request's one user message."""
    if sent.type != "array":
        return False
    for item in sent.named_children:
        item = unwrap(item)
        if item.type != "object":
            continue
        for p in item.named_children:
            if p.type != "pair" or key_name(src, p.child_by_field_name("key")) != "content":
                continue
            value = p.child_by_field_name("value")
            if value is not None and _carries_history(src, value):
                return True
    return False


def check_flattened_history(src: Source) -> list[Finding]:
    """PL305: a request of its own (`[{ role: "system", content: EXTRACTOR }, { role: "user",
    content: `${formatHistory(chatHistory)}` }]`, or the same messages `push`ed one by one into
    a list) that carries the conversation as text in one user message: its prefix is another
    system prompt, so every turn sends the whole history again uncached. Reported at the list,
    or, for one built by `push`, where the conversation is flattened into the user message."""
    out: list[Finding] = []
    lists: list[tuple[Node | None, list[Node]]] = []  # (the array literal, its messages)
    pushed: dict[tuple[int, str], list[Node]] = {}
    for n in walk(src.root):
        if n.type == "array":
            lists.append((n, list(n.named_children)))
        elif n.type == "call_expression" and callee_name(src, n) == "push":
            fn = n.child_by_field_name("function")
            obj = fn.child_by_field_name("object") if fn is not None else None
            if obj is not None and obj.type == "identifier":
                key = (scope_of(n).id, src.text(obj))
                pushed.setdefault(key, []).extend(arguments(n))
    lists += [(None, items) for items in pushed.values()]
    for array, items in lists:
        roles: dict[str, Node] = {}
        for item in items:
            item = unwrap(item)
            if item.type != "object":
                continue
            pairs = {
                key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
                for p in item.named_children
                if p.type == "pair"
            }
            role = string_value(src, _role_text(pairs.get("role")))
            content = pairs.get("content")
            if role is not None and content is not None:
                roles.setdefault(role, content)
        user = roles.get("user")
        if "system" not in roles or user is None or not _carries_history(src, user):
            continue
        if _excerpt_text(src, user):
            continue  # excerpts of the recent turns, asked about; not the conversation resent
        # `[system, ...chatContext, user]`: the history goes as messages, not as text.
        spread = any(
            x.type == "spread_element"
            and bool(x.named_children)
            and _history_or_alias(src, x.named_children[0])
            for x in items
        )
        if not spread and text_handed_in(src, user, _history_word):
            continue  # a transcript handed in as one string: one-shot work on a text
        how = "as messages after" if spread else "as text in one message under"
        out.append(
            src.finding(
                array if array is not None else user,
                "PL305",
                f"a side request sends the conversation {how} a system prompt of its own: none "
                "of it is read from the session's cache and the whole history is billed again "
                "every turn; send it after the session's own prefix (its system prompt, tools "
                "and messages) instead",
            )
        )
    return out


def _role_text(node: Node | None) -> Node | None:
    """`"user" as const` is the role "user"."""
    while node is not None and node.type in ("as_expression", "satisfies_expression"):
        node = node.named_children[0] if node.named_children else None
    return node


def _carries_history(src: Source, content: Node) -> bool:
    """A message text built from the conversation: `${formatHistory(chatHistory)}`,
    `${JSON.stringify(logs)}` where `logs = history.filter(...)`."""
    content = unwrap(content)
    if content.type not in ("template_string", "binary_expression", "call_expression"):
        if content.type != "identifier":
            return False
        # `content: summaryInput`, where `summaryInput = buildSummaryInput({ messages })`.
        value = _local_value(src, content)
        return value is not None and _carries_history(src, value)
    for x in walk(content):
        if x.type in ("identifier", "property_identifier") and _history_word(src.text(x)):
            return True
        if x.type == "identifier":
            value = _local_value(src, x)
            if value is not None and any(
                y.type in ("identifier", "property_identifier") and _history_word(src.text(y))
                for y in walk(value)
            ):
                return True
    return False


# Calls that cut a text to a length: `text.slice(0, 500)`, `substring(0, n)`, `truncate(t, n)`.
_CUTS = frozenset({"slice", "substring", "substr"})


def _cuts_text(src: Source, fn: Node) -> bool:
    """A callback that cuts each item's text to a length (`(m) => `${m.role}:
    ${m.content.slice(0, 500)}``)."""
    for c in walk(fn):
        if c.type != "call_expression":
            continue
        name = callee_name(src, c)
        args = arguments(c)
        if name in _CUTS and len(args) == 2 and src.text(unwrap(args[0])) == "0":
            return True
        if "truncate" in name.lower() and len(args) >= 2:
            return True
    return False


def _maps_to_cuts(src: Source, call: Node) -> bool:
    """A `map`/`flatMap` call whose callback cuts each item's text to a length."""
    return callee_name(src, call) in ("map", "flatMap") and any(
        unwrap(a).type in FUNCTIONS and _cuts_text(src, unwrap(a)) for a in arguments(call)
    )


def _excerpted(src: Source, window: Node) -> bool:
    """The window's messages are each cut to a length as they are made into text
    (`messages.slice(-20).map((m) => m.content.slice(0, 500)).join("\\n")`): excerpts of the
    recent turns handed to a side request (a memory extractor, a title), not the history
    sent again; the labels count a side request of excerpts as no breaker."""
    n = window
    for _ in range(4):
        member = n.parent
        if member is None or member.type != "member_expression":
            return False
        call = member.parent
        if call is None or call.type != "call_expression":
            return False
        if _maps_to_cuts(src, call):
            return True
        n = call
    return False


def _flattened_for_one_shot(src: Source, window: Node) -> bool:
    """The window is made into one text (`recent.slice(-6).map(fmt).join("\n")`, or a local
    of it read only through `.join` or `.map(fmt).join`, and counted) in a function whose request is
    one-shot (a fresh system and user pair, or a system prompt beside one user text): recent
    turns quoted in a one-shot request's user text, not a history sent as messages after a
    prefix that a later request reads again."""
    fn = function_of(window)
    if fn is None or not any(_one_shot_request(src, a) for a in walk(fn)):
        return False
    if _joined(src, window):
        return True
    n = window
    for _ in range(4):  # `const recent = history.slice(-6).filter(keep)`: the chain's end
        member = n.parent
        call = member.parent if member is not None else None
        if member is None or member.type != "member_expression" or call is None:
            break
        if call.type != "call_expression":
            break
        n = call
    holder = _past_default(src, n).parent
    if holder is None or holder.type != "variable_declarator":
        return False
    uses = local_uses(src, fn, holder)
    return bool(uses) and all(_joined(src, u) or _counted(src, u) for u in uses)


def _past_default(src: Source, n: Node) -> Node:
    """`history?.slice(-5) || []`, `(recent ?? [])`: the expression that only gives the
    window an empty list to fall back on, else `n` itself."""
    p = n.parent
    while p is not None:
        if p.type == "parenthesized_expression":
            n, p = p, p.parent
            continue
        if p.type != "binary_expression" or p.child_by_field_name("left") != n:
            return n
        op = p.child_by_field_name("operator")
        right = p.child_by_field_name("right")
        if op is None or src.text(op) not in ("||", "??") or right is None:
            return n
        if unwrap(right).type != "array" or unwrap(right).named_child_count:
            return n
        n, p = p, p.parent
    return n


def _counted(src: Source, n: Node) -> bool:
    """`recent.length`: a count read off the list, not the list handed on."""
    p = n.parent
    return (
        p is not None
        and p.type == "member_expression"
        and p.child_by_field_name("object") == n
        and src.text(p.child_by_field_name("property")) == "length"
    )


def _joined(src: Source, n: Node) -> bool:
    """`n.join("\n")` or `n.map(fmt).join("\n")`: made into one text within a short chain."""
    for _ in range(4):
        member = n.parent
        call = member.parent if member is not None else None
        if member is None or member.type != "member_expression" or call is None:
            return False
        if call.type != "call_expression" or member.child_by_field_name("object") != n:
            return False
        if callee_name(src, call) == "join":
            return True
        n = call
    return False


def _one_shot_request(src: Source, n: Node) -> bool:
    """A fresh system and user pair (`[{ role: "system" }, { role: "user" }]`), or a request
    with its own system prompt and one user text and no message list (`generateText({ system,
    prompt })`, `{ system, messages: [{ role: "user", ... }] }`)."""
    if n.type == "array":
        return fresh_pair(src, n) and "system" in src.text(n)
    if n.type != "object":
        return False
    pairs = object_pairs(src, n)
    if "system" not in pairs:
        return False
    sent = pairs.get("messages")
    if sent is None:
        return "prompt" in pairs
    sent = unwrap(sent)
    return sent.type == "array" and fresh_pair(src, sent)


def _quoted_for_side_task(src: Source, window: Node) -> bool:
    """The window is made into one text (`recent.map(fmt).join("\n")`, at once or through the
    local it is bound to) in a function named for a side task (`pickSummaryContext`): the
    recent turns quoted for a summary or a plan, not a history sent as messages. Where that
    text reaches a prompt's start, the sink's own check reports it."""
    fn = function_of(window)
    if fn is None or not set(words(_enclosing_name(src, window))) & _SIDE:
        return False
    if _joined(src, window):
        return True
    holder = window.parent
    if holder is None or holder.type != "variable_declarator":
        return False
    uses = local_uses(src, fn, holder)
    return bool(uses) and all(_joined(src, u) for u in uses)


def _quotes_recent_turns(src: Source, node: Node) -> bool:
    """A negative slice of a list made into one text: the last turns quoted (an excerpt)."""
    return (
        node.type == "call_expression"
        and callee_name(src, node) == "slice"
        and len(arguments(node)) == 1
        and _negative(src, arguments(node)[0])
        and _flattened_for_one_shot(src, node)
    )


def _excerpt_text(src: Source, content: Node) -> bool:
    """A user message's text made of excerpts of the conversation: its value (or the local
    it names) maps the messages to texts each cut to a length."""
    value: Node | None = unwrap(content)
    seen = 0
    while value is not None and value.type == "identifier" and seen < 3:
        value = _local_value(src, value)
        seen += 1
    if value is None:
        return False
    nodes = [value]
    for x in walk(value):
        if x.type == "identifier":
            local = _local_value(src, x)
            if local is not None and local.id != value.id:
                nodes.append(local)
    return any(
        c.type == "call_expression" and (_maps_to_cuts(src, c) or _quotes_recent_turns(src, c))
        for v in nodes
        for c in walk(v)
    )


# Side requests that ask about the conversation and leave it as it is.
_ASKS_ABOUT = frozenset({"title", "topic", "classify", "judge", "critique", "reflect"})
# What a tracker or a report does with recent turns: no request of the conversation.
_TRACKS = frozenset({"tracking", "track", "progress", "analytics", "metrics", "log", "audit"})
_SENDS_CONVERSATION = frozenset({"chat", "reply", "respond", "send", "stream", "complete"})


# Calls that write a record to a store (Convex's `ctx.db.patch`, an ORM's `update`).
_STORE_WRITES = frozenset({"patch", "insert", "update", "upsert", "save", "put"})


def _kept_in_record(src: Source, cut: Node) -> bool:
    """`updates.interaction_history = [...history, entry].slice(-50)` then
    `ctx.db.patch(id, updates)`: the cut is a field of a record the function writes to a
    store, the store's retention of a log; it is linted where a request reads it back, not
    here."""
    holder = cut.parent
    while holder is not None and holder.type in ("parenthesized_expression", "as_expression"):
        holder = holder.parent
    if holder is None or holder.type != "assignment_expression":
        return False
    left = holder.child_by_field_name("left")
    if left is None or left.type != "member_expression":
        return False
    record = unwrap(left.child_by_field_name("object"))  # type: ignore[arg-type]
    fn = function_of(holder)
    if record.type != "identifier" or fn is None:
        return False
    name = src.text(record)
    return any(
        c.type == "call_expression"
        and callee_name(src, c) in _STORE_WRITES
        and any(src.text(unwrap(a)) == name for a in arguments(c))
        for c in walk(fn)
    )


def _for_side_request(src: Source, node: Node) -> bool:
    """The window is bound to a name of a one-off side request (`topicMessages`,
    `titleMessages`, `summaryInput`): the recent turns a title or a summary is asked from, not
    the conversation sent each turn."""
    if set(words(_enclosing_name(src, node))) & _ASKS_ABOUT:
        # `generateTitle(messages)`: the function asks a title of the recent turns; it
        # replaces nothing (a summariser's or a compactor's cut does).
        return True
    args = node.parent
    if args is not None and args.type == "arguments" and args.parent is not None:
        # `runProgressTracking(ws, phone, turns.slice(-6))`: the recent turns handed to a
        # tracker or a side task, not the conversation a request sends.
        called = set(words(callee_name(src, args.parent)))
        if called & (_ASKS_ABOUT | _TRACKS) and not called & _SENDS_CONVERSATION:
            return True
    p = node.parent
    while p is not None and p.type in ("member_expression", "call_expression", "arguments"):
        p = p.parent
    if p is None or p.type != "variable_declarator":
        return False
    name = p.child_by_field_name("name")
    return name is not None and bool(set(words(src.text(name))) & (_SIDE | {"topic"}))


# Array methods whose result keeps the items in their order: a window cut after them is a
# window of the list they were called on.
# (Not `flatMap`: it makes other items, such as the attachments of the messages.)
_KEEP_ORDER = frozenset({"filter", "map", "concat"})
_ROLES = frozenset({"user", "assistant", "system", "tool", "model", "human", "ai"})


def _through_order_kept(src: Source, obj: Node | None) -> Node | None:
    """`messages.filter(isChat).map(toModel)` -> `messages`: the list an order-keeping chain
    starts from, so that `.slice(-20)` at its end cuts that history. A filter that keeps one
    role (`filter((m) => m.role === "user").slice(-2)`) picks messages, not the conversation:
    None."""
    while obj is not None:
        obj = unwrap(obj)
        if obj.type == "array":
            return _spread_first(obj)
        if obj.type != "call_expression" or callee_name(src, obj) not in _KEEP_ORDER:
            return obj
        if callee_name(src, obj) == "filter":
            roles = {
                string_value(src, x)
                for a in arguments(obj)
                for x in walk(a)
                if x.type == "string" and string_value(src, x) in _ROLES
            }
            if len(roles) == 1:
                return None
        fn = obj.child_by_field_name("function")
        obj = fn.child_by_field_name("object") if fn is not None else None
    return obj


def _spread_first(arr: Node) -> Node:
    """`[...messages, { role: "user", text }]` -> `messages`: a list that begins with the whole
    of another and appends the new turn keeps that list's order, so a window cut from its end
    is a window of it. Any other array literal is itself."""
    items = [c for c in arr.named_children if c.type != "comment"]
    if items and items[0].type == "spread_element" and items[0].named_children:
        return items[0].named_children[0]
    return arr


def _history_word(name: str) -> bool:
    ws = set(words(name))
    return bool(ws & _HISTORY) and _not_system(ws)


def _keeps_last(src: Source, call: Node, obj: Node | None) -> bool:
    """`items.splice(0, items.length - limit)`: everything but the last `limit` dropped from a
    history, or from any list a conversation store returns (a method of a class named for the
    conversation or the session: OpenAI Agents' `OpenAIConversationsSession.getItems`)."""
    args = arguments(call)
    if len(args) != 2 or src.text(unwrap(args[0])) != "0":
        return False
    if ".length-" not in "".join(src.text(unwrap(args[1])).split()):
        return False
    if is_history(src, obj):
        return True
    p = call.parent
    while p is not None:
        if p.type in ("class_declaration", "class") and p.child_by_field_name("name") is not None:
            ws = set(words(src.text(p.child_by_field_name("name"))))
            return bool(ws & (_HISTORY | {"conversations", "memory"}))
        p = p.parent
    return False


def _local_value(src: Source, ident: Node) -> Node | None:
    """The value a name is declared with in the function around `ident` (one step back)."""
    name = src.text(ident)
    fn = function_of(ident)
    if fn is None:
        return None
    for d in walk(fn):
        if d.type == "variable_declarator" and src.text(d.child_by_field_name("name")) == name:
            return d.child_by_field_name("value")
    return None


def _parts(node: Node) -> list[Node]:
    node = unwrap(node)
    if node.type == "array":
        return [unwrap(c) for c in node.named_children]
    return [node]


def _enclosing_name(src: Source, node: Node) -> str:
    p = node.parent
    while p is not None:
        if p.type in ("function_declaration", "method_definition"):
            return src.text(p.child_by_field_name("name"))
        if (
            p.type in ("arrow_function", "function_expression")
            and p.parent is not None
            and p.parent.type == "variable_declarator"
        ):
            return src.text(p.parent.child_by_field_name("name"))
        p = p.parent
    return ""


_BUDGET = frozenset({"token", "tokens", "budget", "remaining", "limit", "threshold", "max"})
_COMPARE = frozenset({"<", "<=", ">", ">="})
_POSITION = frozenset({"index", "idx", "id", "start", "offset", "from", "cut", "slice"})


_THIS_TURN = frozenset({"turn", "new", "current", "reply", "response"})


def _moving(src: Source, node: Node) -> bool:
    """A start index held in a name (`props.messageSliceId`, `startIndex`), not a literal;
    not where this turn began (`turnStart`, `newStart`): from there on are the messages this
    turn added, the newest ones, and no older message is left out of a request by it."""
    ws = set(words(value_name(src, node)))
    return bool(ws & _POSITION) and not ws & _THIS_TURN


def _rejoined(src: Source, call: Node, obj: Node | None, at: Node) -> bool:
    """`[...m.slice(0, i), extra, ...m.slice(i)]`: the list is split at `i` only to put
    something between its halves, and both halves are spread back into the same array, so no
    message is left out (an insertion, not a window)."""
    spread = call.parent
    if obj is None or spread is None or spread.type != "spread_element":
        return False
    array = spread.parent
    if array is None or array.type != "array":
        return False
    whole, cut = src.text(obj), src.text(at)
    for item in array.named_children:
        head = item.named_children[0] if item.type == "spread_element" else None
        if head is None or head.type != "call_expression" or callee_name(src, head) != "slice":
            continue
        fn = head.child_by_field_name("function")
        owner = fn.child_by_field_name("object") if fn is not None else None
        parts = arguments(head)
        if (
            owner is not None
            and src.text(owner) == whole
            and len(parts) == 2
            and src.text(parts[0]) == "0"
            and src.text(parts[1]) == cut
        ):
            return True
    return False


def _reverse_budget_for(src: Source, loop: Node) -> bool:
    """`for (let i = msgs.length - 1; ...; i--)` over a history, compared with a budget."""
    inc = loop.child_by_field_name("increment")
    if inc is None or not ("--" in src.text(inc) or "-=" in src.text(inc)):
        return False
    budget = history = False
    for n in walk(loop):
        if n.type == "binary_expression" and src.text(n.child_by_field_name("operator")) in (
            _COMPARE
        ):
            budget = budget or any(
                set(words(src.text(x))) & _BUDGET
                for x in walk(n)
                if x.type in ("identifier", "property_identifier")
            )
        elif n.type == "subscript_expression" and _history_or_alias(
            src, n.child_by_field_name("object")
        ):
            history = True
    return budget and history


def _history_or_alias(src: Source, node: Node | None) -> bool:
    """A history, or a local bound to one (`const source = Array.isArray(messages) ? messages :
    []`, `const list = [...history]`): a value named for the conversation in its declaration."""
    if node is None:
        return False
    if is_history(src, node):
        return True
    node = unwrap(node)
    value = _local_value(src, node) if node.type == "identifier" else None
    return value is not None and any(
        x.type == "identifier" and is_history(src, x) for x in walk(value)
    )


def _reversed_budget_for_of(src: Source, loop: Node) -> bool:
    """`for (const m of history.slice(0, -1).reverse()) { if (tokens > maxTokens) break; ... }`:
    the history walked newest first and left once a budget is spent."""
    right = loop.child_by_field_name("right")
    if right is None or right.type != "call_expression":
        return False
    if callee_name(src, right) not in ("reverse", "toReversed"):
        return False
    root: Node | None = right
    while root is not None and root.type == "call_expression":
        fn = unwrap(root.child_by_field_name("function"))  # type: ignore[arg-type]
        root = fn.child_by_field_name("object") if fn.type == "member_expression" else None
    if root is None or not is_history(src, root):
        return False
    body = loop.child_by_field_name("body")
    for n in walk(body) if body is not None else ():
        if n.type != "if_statement":
            continue
        cond = n.child_by_field_name("condition")
        if cond is None or not any(x.type == "break_statement" for x in walk(n)):
            continue
        if any(
            x.type == "binary_expression"
            and src.text(x.child_by_field_name("operator")) in _COMPARE
            and any(
                set(words(src.text(y))) & _BUDGET
                for y in walk(x)
                if y.type in ("identifier", "property_identifier")
            )
            for x in walk(cond)
        ):
            return True
    return False


def _in_budget_loop(src: Source, node: Node, obj: Node | None) -> bool:
    """Inside a `while` whose condition compares a count or a size with a bound, cutting a
    history (`messages.shift()`) or a list the condition measures as the messages' size against
    a budget (`while (messageChars(messages) > maxContextChars) recent.shift()`, `while
    (estimateMessageTokens(kept) > remainingBudget) kept = kept.slice(1)`)."""
    p = node.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "while_statement":
            cond_node = p.child_by_field_name("condition")
            cond = src.text(cond_node)
            if not (">" in cond or "<" in cond):
                return False
            if is_history(src, obj):
                return True
            if cond_node is not None and _history_or_alias(src, obj) and _bounded(src, cond_node):
                # `const recent = [...history]; while (tokens(recent) > maxTokens) recent.shift()`
                return True
            return cond_node is not None and (
                _measures_history(src, cond_node) or _measured_total(src, p, cond_node, obj)
            )
        p = p.parent
    return False


def _bounded(src: Source, cond: Node) -> bool:
    """A condition naming a budget or a cap (`maxTokens`, `MAX_HISTORY`), not a queue drained
    to empty (`queue.length > 0`)."""
    return any(
        set(words(src.text(x))) & (_BUDGET | _CAP_WORDS)
        for x in walk(cond)
        if x.type in ("identifier", "property_identifier")
    )


def _measured_total(src: Source, loop: Node, cond: Node, obj: Node | None) -> bool:
    """`while (totalTokens > limit) { prompt.shift(); totalTokens = chatTokenCount(prompt) }`:
    the condition's total is measured again, in the loop, from the list being cut, by a call
    named for a conversation's size."""
    if obj is None:
        return False
    cut = src.text(obj)
    totals = {src.text(x) for x in walk(cond) if x.type == "identifier"}
    body = loop.child_by_field_name("body")
    for n in walk(body) if body is not None else []:
        if n.type != "assignment_expression":
            continue
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if left is None or right is None or src.text(left) not in totals:
            continue
        for c in walk(right):
            if c.type != "call_expression":
                continue
            named = set(words(callee_name(src, c)))
            if (
                named & _SIZE
                and named & (_HISTORY | {"context"})
                and any(src.text(unwrap(a)) == cut for a in arguments(c))
            ):
                return True
    return False


def _measures_history(src: Source, cond: Node) -> bool:
    """A comparison of the messages' size with a budget: one side measures a history or is
    named for the messages' tokens or characters, the other is named for a bound."""
    for x in walk(cond):
        if x.type != "binary_expression" or src.text(x.child_by_field_name("operator")) not in (
            _COMPARE
        ):
            continue
        left, right = x.child_by_field_name("left"), x.child_by_field_name("right")
        if left is None or right is None:
            continue
        for a, b in ((left, right), (right, left)):
            bound = set(words(value_name(src, unwrap(b)))) & _BUDGET
            measured = unwrap(a)
            if not bound or measured.type != "call_expression":
                continue
            named = set(words(callee_name(src, measured)))
            if (named & _COUNTED and named & _SIZE) or any(
                is_history(src, arg) for arg in arguments(measured)
            ):
                return True
    return False


_SIZE = frozenset({"tokens", "token", "chars", "characters", "length", "size", "count"})


def _drops_first(src: Source, call: Node, args: list[Node]) -> bool:
    """`kept = kept.slice(1)`: the list bound again to itself less its first item."""
    if len(args) != 1 or src.text(unwrap(args[0])) != "1":
        return False
    p = call.parent
    if p is None or p.type != "assignment_expression":
        return False
    fn = call.child_by_field_name("function")
    obj = fn.child_by_field_name("object") if fn is not None else None
    left = p.child_by_field_name("left")
    return obj is not None and left is not None and src.text(left) == src.text(obj)


# Stems of a call named for cutting its messages (`trimMessages`, `runChatTrimmer`,
# `truncateHistory`): a `maxTokens` handed to one is the history's budget.
_CUTTING = ("trim", "truncat", "cut", "fit", "window", "subset", "clip", "prune")


def _named_to_cut(name: str) -> bool:
    return any(w.startswith(_CUTTING) for w in words(name))


def _names_budget(name: str) -> bool:
    """A helper named for cutting to a budget (`trimToTokenBudget`, `truncateToTokenLimit`)."""
    ws = set(words(name))
    return bool(ws & _CUT) and bool(ws & {"token", "tokens", "budget"})


def _short(src: Source, node: Node) -> str:
    text = " ".join(src.text(node).split())
    return text if len(text) <= 50 else text[:47] + "..."


_LOOPS = frozenset({"while_statement", "for_statement", "for_in_statement", "do_statement"})
# A step counter of an agent loop: `turnCount`, `step`, `iteration`.
_STEP = frozenset({"turn", "step", "steps", "iteration", "iter", "round", "attempt"})


def check_model_per_step(src: Source) -> list[Finding]:
    """PL302: the model chosen by the step of an agent loop (`const model = turnCount === 0 ?
    THINKING : BASE` inside the loop): each model has a cache of its own, so the steps after
    the switch read nothing the first one wrote."""
    out: list[Finding] = []
    for n, value in bindings(src, "model"):
        value = unwrap(value)
        cond = (
            value.child_by_field_name("condition") if value.type == "ternary_expression" else None
        )
        if cond is None or not _in_loop(n):
            continue
        step = next(
            (
                x
                for x in walk(cond)
                if x.type in ("identifier", "property_identifier")
                and set(words(src.text(x))) & _STEP
            ),
            None,
        )
        if step is None:
            continue
        out.append(
            src.finding(
                value,
                "PL302",
                f"the model is chosen by the loop's step (`{src.text(step)}`): each model has a "
                "cache of its own, so the steps after the switch read nothing the earlier ones "
                "wrote; keep one model for the whole loop",
            )
        )
    return out


def check_tools_per_step(src: Source) -> list[Finding]:
    """PL302: one model call made with another tool list at each step of a workflow over the
    same history (`chatWithTools(llm, tools, chatHistory)` in the main step, `chatWithTools(llm,
    [this.codeInterpreterTool], newChatHistory)` in the analysis step): the tool definitions,
    the first part of the prefix, change between the steps of one conversation. Calls in one
    class (or one file outside classes), each handed a history; the first tool list is the
    session's, each other one is reported."""
    out: list[Finding] = []
    groups: dict[tuple[int, str], list[tuple[Node, str]]] = {}
    for n in walk(src.root):
        if n.type != "call_expression":
            continue
        args = arguments(n)
        if not any(is_history(src, unwrap(a)) for a in args):
            continue
        tools = next((t for t in (_tool_list(src, a) for a in args) if t is not None), None)
        if tools is None:
            continue
        owner = n.parent
        while owner is not None and owner.type not in ("class_declaration", "class"):
            owner = owner.parent
        key = (owner.id if owner is not None else 0, callee_name(src, n))
        groups.setdefault(key, []).append((n, tools))
    for calls in groups.values():
        first = calls[0][1]
        for call, tools in calls[1:]:
            if tools != first:
                out.append(
                    src.finding(
                        call,
                        "PL302",
                        f"`{callee_name(src, call)}` is called with another tool list here "
                        f"({tools}) than at line {src.pos(calls[0][0])[0]} ({first}) over the "
                        "same conversation: the tool definitions, the first part of the prefix, "
                        "change between steps and every request after the change misses the "
                        "cache; send one tool list in every step",
                    )
                )
    return out


# Methods that run before the first request (a constructor, `init`, `setup`): the system
# message they write is the session's own.
_SETUP = frozenset({"constructor", "init", "setup", "start", "create", "build", "configure"})


def check_system_replaced(src: Source) -> list[Finding]:
    """PL302: the system message at the head of a live history replaced by a computed one
    (`this.pipeline.history[0] = { role: "system", content: config.instructions }` in
    `updateSession`): the prefix changes at its first message and every request after it misses
    the cache. In a method named for a change or one that sends the messages; not in a
    constructor or setup method, and not with fixed text (the same bytes)."""
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "assignment_expression":
            continue
        left = unwrap(n.child_by_field_name("left"))  # type: ignore[arg-type]
        right = unwrap(n.child_by_field_name("right"))  # type: ignore[arg-type]
        if left.type != "subscript_expression" or right.type != "object":
            continue
        index = left.child_by_field_name("index")
        if index is None or src.text(index) != "0":
            continue
        if not is_history(src, left.child_by_field_name("object")):
            continue
        if _role_of(src, right) != "system" or _fixed_content(src, right):
            continue
        owner = set(words(_enclosing_name(src, n)))
        if owner & _SETUP or not (owner & _CHANGE or _sends(src, n)):
            continue
        out.append(
            src.finding(
                n,
                "PL302",
                f"the system message at the head of the history is replaced (`{_short(src, n)}`): "
                "the prefix changes at its first message and every request after it misses the "
                "cache; keep the system message and send what changed in the newest message",
            )
        )
    return out


# A setter (`addSystemPrompt`) may run only before the first request; a method named for a
# change (`updateSession`) or one that also sends the messages runs mid-session.
_CHANGE = frozenset({"update", "change", "switch", "replace", "swap"})


def _sends(src: Source, node: Node) -> bool:
    """The function around `node` hands `messages` to a call (`create({ messages })`)."""
    fn = function_of(node)
    for x in walk(fn) if fn is not None else ():
        if x.type == "pair" and key_name(src, x.child_by_field_name("key")) == "messages":
            return True
        if x.type == "shorthand_property_identifier" and src.text(x) == "messages":
            return True
    return False


def _fixed_content(src: Source, obj: Node) -> bool:
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "content":
            value = p.child_by_field_name("value")
            return value is not None and string_value(src, unwrap(value)) is not None
    return True


def _tool_list(src: Source, arg: Node) -> str | None:
    """The tools an argument names: an array of tool-named values (`[this.codeInterpreterTool]`)
    or a local bound to one (`tools`); None for anything else."""
    a = unwrap(arg)
    if a.type == "identifier" and words(src.text(a))[-1:] == ["tools"]:
        value = _local_value(src, a)
        if value is None:
            return None
        a = unwrap(value)
    if a.type != "array" or not a.named_children:
        return None
    names = []
    for e in a.named_children:
        name = value_name(src, e)
        if not name or words(name)[-1:] != ["tool"]:
            return None
        names.append(name)
    return ", ".join(sorted(names))


def _in_loop(node: Node) -> bool:
    p = node.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type in _LOOPS:
            return True
        p = p.parent
    return False


# What was retrieved for the current request (the same words as the sinks' PL304).
_RETRIEVED = frozenset({"context", "results", "memories", "documents", "chunks", "passages"})
_SETTLED = frozenset({"profile", "persona", "system", "settings", "instructions"})


def check_content_before_history(src: Source) -> list[Finding]:
    """PL304: one text made of what was retrieved for this request followed by the
    conversation (`${context}\n\n${previousMessagesFormatted}`): the history after the
    retrieved part is sent again uncached each time it changes."""
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "template_string":
            continue
        subs = [
            unwrap(c.named_children[0])
            for c in n.named_children
            if c.type == "template_substitution" and c.named_children
        ]
        names = [src.text(x) if x.type == "identifier" else "" for x in subs]
        first = next((i for i, x in enumerate(names) if x and _retrieved(src, subs[i])), None)
        if first is None or not any(_history_word(x) for x in names[first + 1 :] if x):
            continue
        out.append(src.finding(subs[first], "PL304", _before_history(names[first])))
    return out + _appended_before_history(src)


def _before_history(name: str) -> str:
    return (
        f"`{name}` (retrieved for this request) comes before the conversation in one text: "
        "each time it changes, the history after it is sent again uncached; put it after the "
        "history, next to the newest message"
    )


def _appended_before_history(src: Source) -> list[Finding]:
    """The same text built a statement at a time: `prompt += `${memoryContext}\n\n`` and
    later `history.slice(-5).forEach((m) => { prompt += ... })` (or `prompt += history`)."""
    out: list[Finding] = []
    adds = [
        n
        for n in walk(src.root)
        if n.type == "augmented_assignment_expression"
        and src.text(n.child_by_field_name("operator")) == "+="
    ]
    reported: set[tuple[int, str]] = set()
    for a in adds:
        target = src.text(a.child_by_field_name("left"))
        first = _retrieved_in(src, a.child_by_field_name("right"))
        fn = scope_of(a)
        if first is None or (fn.id, target) in reported:
            continue
        for later in adds:
            if (
                later.start_byte > a.end_byte
                and src.text(later.child_by_field_name("left")) == target
                and _inside(later, fn)
                and _adds_history(src, later, fn)
            ):
                reported.add((fn.id, target))
                out.append(src.finding(first, "PL304", _before_history(src.text(first))))
                break
    return out


def _retrieved_in(src: Source, value: Node | None) -> Node | None:
    """The retrieved name a `+=` adds: itself, or a substitution of its template."""
    if value is None:
        return None
    value = unwrap(value)
    if value.type == "identifier":
        return value if _retrieved(src, value) else None
    if value.type == "template_string":
        for c in value.named_children:
            if c.type == "template_substitution" and c.named_children:
                x = unwrap(c.named_children[0])
                if x.type == "identifier" and _retrieved(src, x):
                    return x
    return None


def _inside(node: Node, fn: Node) -> bool:
    p = node.parent
    while p is not None:
        if p.id == fn.id:
            return True
        p = p.parent
    return False


def _adds_history(src: Source, add: Node, fn: Node) -> bool:
    """The `+=` writes the conversation: its value names the history, or it runs in a loop or a
    callback over the history (`this.history.slice(-5).forEach(...)`, `for (const m of
    messages)`)."""
    names = [add.child_by_field_name("right")]
    p = add.parent
    while p is not None and p.id != fn.id:
        if p.type == "call_expression":
            names.append(p.child_by_field_name("function"))
        elif p.type == "for_in_statement":
            names.append(p.child_by_field_name("right"))
        p = p.parent
    for n in names:
        for x in walk(n) if n is not None else ():
            if x.type in ("identifier", "property_identifier") and _history_word(src.text(x)):
                return True
    return False


# The state of this request or session as it is now (`input.currentSpec`,
# `currentBrowserContext`); not a clock (the volatile rules read those) nor who or what is
# configured (`currentUser`, `currentModel`), which stays within one conversation.
_NOW_STATE = frozenset({"current"})
_NOT_STATE = frozenset(
    {"date", "time", "timestamp", "year", "day", "user", "model", "locale", "language", "lang"}
)


def check_state_before_history(src: Source) -> list[Finding]:
    """PL304: a system message written from the request's current state (`{ role: 'system',
    content: `Current spec:\n${JSON.stringify(input.currentSpec)}` }`) put into the message list
    ahead of the conversation (`for (const m of history) messages.push(m)`, `...recent`): each
    time the state changes, every message after it is sent again uncached."""
    out: list[Finding] = []
    for n in walk(src.root):
        if n.type != "object" or _role_of(src, n) != "system":
            continue
        content = next(
            (
                p.child_by_field_name("value")
                for p in n.named_children
                if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "content"
            ),
            None,
        )
        state = _current_state(src, content) if content is not None else None
        if state is None:
            continue
        target = _list_receiving(src, n)
        if target is None or not _history_after(src, n, target):
            continue
        out.append(
            src.finding(
                state,
                "PL304",
                f"`{_short(src, state)}` (the current state of this request) is written into a "
                "system message ahead of the conversation history: each time it changes, the "
                "history after it is sent again uncached; put it in the newest user message",
            )
        )
    return out


def _role_of(src: Source, obj: Node) -> str | None:
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "role":
            return string_value(src, unwrap(p.child_by_field_name("value")))  # type: ignore[arg-type]
    return None


def _current_state(src: Source, content: Node) -> Node | None:
    """The first value in a message's content named for what holds now (`currentSpec`)."""
    for x in walk(content):
        if x.type not in ("identifier", "property_identifier", "shorthand_property_identifier"):
            continue
        ws = set(words(src.text(x)))
        if ws & _NOW_STATE and not ws & (_NOT_STATE | _SETTLED) and len(ws) > 1:
            p = x.parent
            if (
                p is not None
                and p.type == "member_expression"
                and p.child_by_field_name("property") == x
            ):
                return p
            if p is not None and p.type == "call_expression":
                continue  # a function named for the present, read by the volatile rules
            return x
    return None


def _list_receiving(src: Source, obj: Node) -> str | None:
    """The name of the list a message goes into: `messages.push({...})` or `const messages =
    [{...}]`."""
    p = obj.parent
    if p is not None and p.type == "arguments" and p.parent is not None:
        call = p.parent
        fn = call.child_by_field_name("function")
        if callee_name(src, call) == "push" and fn is not None:
            target = fn.child_by_field_name("object")
            return src.text(target) if target is not None else None
    if p is not None and p.type == "array" and p.parent is not None:
        decl = p.parent
        if decl.type == "variable_declarator":
            return src.text(decl.child_by_field_name("name"))
    return None


def _history_after(src: Source, obj: Node, target: str) -> bool:
    """After `obj` in the same function the history goes into the same list: pushed in a loop
    over it, spread into it, or spread later in the same array literal."""
    fn = function_of(obj)
    if fn is None:
        return False
    for x in walk(fn):
        if x.start_byte < obj.end_byte:
            continue
        if x.type == "spread_element" and x.named_children:
            spread = x.named_children[0]
            host = x.parent
            into = (
                host is not None
                and host.type == "array"
                and any(c.id == obj.id for c in host.named_children)
            ) or _pushed_into(src, x, target)
            if into and _history_or_alias(src, spread) and not _cut_from(src, fn, spread, target):
                return True
        if x.type == "call_expression" and callee_name(src, x) == "push":
            fnode = x.child_by_field_name("function")
            onto = fnode.child_by_field_name("object") if fnode is not None else None
            if onto is None or src.text(onto) != target:
                continue
            loop = x.parent
            while loop is not None and loop.type not in FUNCTIONS:
                if loop.type == "for_in_statement" and _history_or_alias(
                    src, loop.child_by_field_name("right")
                ):
                    return True
                loop = loop.parent
    return False


def _cut_from(src: Source, fn: Node, spread: Node, target: str) -> bool:
    """`keep = messages.slice(0, 2).concat(messages.slice(cut))` spread back into `messages`:
    the list's own messages put back after a cut, not a history arriving after what it
    already holds."""
    if spread.type != "identifier":
        return False
    name = src.text(spread)
    for d in walk(fn):
        if d.type != "variable_declarator":
            continue
        left, value = d.child_by_field_name("name"), d.child_by_field_name("value")
        if left is None or value is None or src.text(left) != name:
            continue
        if any(i.type == "identifier" and src.text(i) == target for i in walk(value)):
            return True
    return False


def _pushed_into(src: Source, spread: Node, target: str) -> bool:
    p = spread.parent
    if p is None or p.type != "arguments" or p.parent is None:
        return False
    fn = p.parent.child_by_field_name("function")
    onto = fn.child_by_field_name("object") if fn is not None else None
    return callee_name(src, p.parent) == "push" and onto is not None and src.text(onto) == target


def _retrieved(src: Source, ident: Node) -> bool:
    ws = words(src.text(ident))
    if not ws or ws[-1] not in _RETRIEVED or set(ws) & _SETTLED:
        return False
    if scope_of(ident).type == "program":
        return False
    value = _local_value(src, ident)
    return value is None or string_value(src, unwrap(value)) is None
