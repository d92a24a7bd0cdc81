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

from tree_sitter import Node

from ..findings import Finding, source_lines
from ..meaning import words
from .syntax import Source, arguments, callee_name, key_name, unwrap, walk

_HISTORY = frozenset(
    {"history", "messages", "conversation", "transcript", "turns", "msgs", "chat", "session"}
)
_CAP = frozenset({"max", "limit", "last", "keep", "recent", "window"})
_COUNTED = frozenset({"messages", "message", "turns", "turn", "history", "msgs"})


def _is_history(src: Source, node: Node | None) -> bool:
    if node is None:
        return False
    node = unwrap(node)
    if node.type == "member_expression":
        name = src.text(node.child_by_field_name("property"))
    elif node.type in ("identifier", "shorthand_property_identifier"):
        name = src.text(node)
    else:
        return False
    ws = set(words(name))
    return bool(ws & _HISTORY) and "system" not in ws


def _is_cap(name: str) -> bool:
    ws = set(words(name))
    return bool(ws & _CAP) and bool(ws & _COUNTED)


def _negative(src: Source, node: Node) -> bool:
    """`-N`, `-MAX` or `x.length - N`: a count from the end."""
    node = unwrap(node)
    text = "".join(src.text(node).split())
    return text.startswith("-") or (".length-" in text)


def check_windows(src: Source) -> list[Finding]:
    lines = source_lines(src.data.decode("utf-8", "replace"))
    out: list[Finding] = []
    seen: set[int] = set()

    def add(node: Node, what: str) -> None:
        line, col = src.pos(node)
        if line in seen:
            return
        seen.add(line)
        out.append(
            Finding(
                src.path,
                line,
                col,
                "PL303",
                f"{what}: once the window is full its first message changes every turn, and "
                "every request misses the cache from the system prompt on; summarise or cut "
                "the history in large steps instead",
                source_line=lines[line - 1] if line <= len(lines) else "",
            )
        )

    for n in walk(src.root):
        if n.type == "for_statement" and _reverse_budget_for(src, n):
            add(n, "the conversation is filled from the newest message back while a budget lasts")
            continue
        if n.type != "call_expression":
            continue
        name = callee_name(src, n)
        args = arguments(n)
        fn = n.child_by_field_name("function")
        obj = fn.child_by_field_name("object") if fn is not None else None
        if name == "trimMessages":
            add(n, "the conversation is trimmed to a budget (`trimMessages`)")
        elif name == "slice" and args and _negative(src, args[0]) and _is_history(src, obj):
            add(n, f"the conversation is cut to its last messages (`{_short(src, n)}`)")
        elif name == "slice" and len(args) == 1 and _is_history(src, obj) and _moving(src, args[0]):
            add(n, f"the conversation is cut from a moving position (`{_short(src, n)}`)")
        elif name in ("shift", "splice") and _is_history(src, obj) and _in_budget_loop(src, n):
            add(n, f"messages are dropped while over a budget (`{_short(src, n)}`)")
        else:
            for a in args:
                a = unwrap(a)
                capped = a.type == "identifier" and _is_cap(src.text(a))
                if a.type == "object":
                    keys = [
                        key_name(src, p.child_by_field_name("key")) or ""
                        for p in a.named_children
                        if p.type == "pair"
                    ]
                    capped = any(_is_cap(k) for k in keys)
                if capped and name and set(words(name)) & (_HISTORY | {"load", "trim"}):
                    add(n, f"the history is loaded capped to a message count (`{_short(src, n)}`)")
                    break
    return out


_SIDE = frozenset(
    {
        "summary",
        "summarize",
        "summarise",
        "summarization",
        "title",
        "compress",
        "compact",
        "compaction",
        "condense",
        "classify",
        "judge",
        "critique",
        "reflect",
        "plan",
        "planning",
    }
)
_SEND = frozenset(
    {"create", "generateText", "streamText", "generateObject", "streamObject", "invoke", "stream"}
)


def check_side_requests(src: Source) -> list[Finding]:
    """PL305: a side request (summary, title, compaction) that sends the conversation as its
    messages under a system prompt written for it: nothing of the session's cached prefix is
    read, so the whole history is billed uncached."""
    lines = source_lines(src.data.decode("utf-8", "replace"))
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
        if (
            system is None
            or sent is None
            or unwrap(system).type not in ("string", "template_string")
        ):
            continue
        if not any(_is_history(src, x) for x in _parts(sent)):
            continue
        fn = _enclosing_name(src, n)
        texts = [fn, src.text(system)[:80]]
        if not any(set(words(t)) & _SIDE for t in texts if t):
            continue
        line, col = src.pos(n)
        out.append(
            Finding(
                src.path,
                line,
                col,
                "PL305",
                "a side request sends the conversation under a system prompt written for it: "
                "none of it is read from the session's cache; send it after the session's own "
                "prefix (its system prompt and tools) instead",
                source_line=lines[line - 1] if line <= len(lines) else "",
            )
        )
    return out


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


def _moving(src: Source, node: Node) -> bool:
    """A start index held in a name (`props.messageSliceId`, `startIndex`), not a literal."""
    node = unwrap(node)
    if node.type == "member_expression":
        name = src.text(node.child_by_field_name("property"))
    elif node.type == "identifier":
        name = src.text(node)
    else:
        return False
    return bool(set(words(name)) & _POSITION)


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
        elif n.type == "subscript_expression" and _is_history(src, n.child_by_field_name("object")):
            history = True
    return budget and history


def _in_budget_loop(src: Source, node: Node) -> bool:
    """Inside a `while` whose condition compares a count or a size with a bound."""
    p = node.parent
    while p is not None:
        if p.type == "while_statement":
            cond = src.text(p.child_by_field_name("condition"))
            return ">" in cond or "<" in cond
        p = p.parent
    return False


def _short(src: Source, node: Node) -> str:
    text = " ".join(src.text(node).split())
    return text if len(text) <= 50 else text[:47] + "..."
