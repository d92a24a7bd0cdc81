"""PL303 in TypeScript/JavaScript: earlier messages of the history changed in place. A loop over
the history that assigns into a message's content (`for (const m of messageHistory)
m.content.output = simplify(m.content.output)`) or a history replaced by a filtered copy of
itself (`messageHistory = messageHistory.filter(...)`) changes messages an earlier request
already sent: the prefix breaks at the first changed message and everything after it is sent
again uncached.

Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .structure import is_history
from .syntax import FUNCTIONS, Source, arguments, callee_name, unwrap, walk

# The request a client sent: its messages cleaned on arrival are not the agent's history.
_INCOMING = frozenset({"body", "req", "request"})
# Parts of a message that are sent as its text.
_TEXT_PARTS = frozenset({"content", "text", "parts", "output"})


def check_rewrites(src: Source) -> list[Finding]:
    out: list[Finding] = []

    def add(node: Node, what: str) -> None:
        out.append(
            src.finding(
                node,
                "PL303",
                f"{what}: messages an earlier request already sent change, so the prefix "
                "breaks there and the rest of the history is sent again uncached; leave sent "
                "messages as they are and add what changed as a new message",
            )
        )

    for n in walk(src.root):
        if n.type == "for_in_statement":
            hit = _content_write(src, n)
            if hit is not None:
                add(hit, f"messages of the history are rewritten in a loop (`{_short(src, hit)}`)")
        elif n.type == "for_statement":
            hit = _indexed_write(src, n)
            if hit is not None:
                add(hit, f"earlier messages are cut once over a bound (`{_short(src, hit)}`)")
        elif n.type == "spread_element" and _attached_to_each(src, n):
            add(
                n,
                f"every message of the history is rebuilt with what this request attaches "
                f"(`{_short(src, n)}`)",
            )
        elif n.type == "assignment_expression" and _last_role_write(src, n):
            add(n, f"the last message's role is changed by its position (`{_short(src, n)}`)")
        elif n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            if left is None or right is None or not is_history(src, left):
                continue
            r = unwrap(right)
            if r.type != "call_expression" or callee_name(src, r) != "filter":
                continue
            fn = r.child_by_field_name("function")
            obj = fn.child_by_field_name("object") if fn is not None else None
            if set(src.text(left).replace("?.", ".").split(".")) & _INCOMING:
                continue  # cleaning the request a client sent, the same way every time
            if obj is not None and src.text(unwrap(obj)) == src.text(left) and not _by_id(src, r):
                add(n, f"messages are filtered out of the history (`{_short(src, n)}`)")
    return out


def _attached_to_each(src: Source, spread: Node) -> bool:
    """`messages: history.map((m) => ({ role: m.role, content: m.content,
    ...addSelectedImages() }))`: a call of this file's own function, handed nothing, spread into
    each message the map rebuilds from the history. It reads what the app holds now (the images
    picked for the new message), so earlier messages carry it in this request and lose it, or
    carry other ones, in the next: their bytes change."""
    call = unwrap(spread.named_children[0]) if spread.named_children else None
    if call is None or call.type != "call_expression" or arguments(call):
        return False
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "identifier" or not _defined_in(src, src.text(fn)):
        return False
    obj = spread.parent
    cb = obj.parent if obj is not None else None
    while cb is not None and cb.type not in FUNCTIONS:
        cb = cb.parent  # the callback that builds the message
    args = cb.parent if cb is not None else None
    mapping = args.parent if args is not None and args.type == "arguments" else None
    if mapping is None or callee_name(src, mapping) != "map":
        return False
    over = mapping.child_by_field_name("function")
    items = over.child_by_field_name("object") if over is not None else None
    if (
        items is not None
        and items.type == "member_expression"
        and (src.text(items.child_by_field_name("property")) == "current")
    ):
        items = items.child_by_field_name("object")  # React's `messagesRef.current`
    return items is not None and is_history(src, items)


def _defined_in(src: Source, name: str) -> bool:
    """A function this file defines (`const addSelectedImages = () => ...`, `function f()`)."""
    for n in walk(src.root):
        if n.type == "function_declaration" and src.text(n.child_by_field_name("name")) == name:
            return True
        if n.type == "variable_declarator" and src.text(n.child_by_field_name("name")) == name:
            value = n.child_by_field_name("value")
            return value is not None and unwrap(value).type in FUNCTIONS
    return False


def _by_id(src: Source, call: Node) -> bool:
    """`messages.filter((m) => m.id !== id)`: one message removed by its identity (a deleted
    message, a typing placeholder taken away), an edit the user makes, not a rule that rewrites
    the conversation's past turn by turn."""
    args = arguments(call)
    if len(args) != 1 or unwrap(args[0]).type != "arrow_function":
        return False
    body = unwrap(args[0]).child_by_field_name("body")
    if body is None or unwrap(body).type != "binary_expression":
        return False
    b = unwrap(body)
    op = b.child_by_field_name("operator")
    left = b.child_by_field_name("left")
    if op is None or src.text(op) not in ("!==", "!=") or left is None:
        return False
    return unwrap(left).type == "member_expression" and words(
        src.text(unwrap(left).child_by_field_name("property"))
    )[-1:] == ["id"]


def _last_role_write(src: Source, node: Node) -> bool:
    """`lastMessage.role = "user"` where `lastMessage = messages[messages.length - 1]` (or
    `messages.at(-1)`), or `messages[messages.length - 1].role = ...`: the message gets another
    role only while it is the last one, and the next request, where it is not, sends it with
    its own role again."""
    left = node.child_by_field_name("left")
    if left is None or left.type != "member_expression":
        return False
    if src.text(left.child_by_field_name("property")) != "role":
        return False
    obj = unwrap(left.child_by_field_name("object"))  # type: ignore[arg-type]
    if obj.type == "identifier":
        scope = obj.parent
        while scope is not None and scope.type not in FUNCTIONS and scope.parent is not None:
            scope = scope.parent
        value = None
        for d in walk(scope) if scope is not None else []:
            if d.type == "variable_declarator" and src.text(
                d.child_by_field_name("name")
            ) == src.text(obj):
                value = d.child_by_field_name("value")
        if value is None:
            return False
        obj = unwrap(value)
    if obj.type == "subscript_expression":
        base = obj.child_by_field_name("object")
        index = "".join(src.text(obj.child_by_field_name("index")).split())
        return is_history(src, base) and index.endswith(".length-1")
    if obj.type == "call_expression" and callee_name(src, obj) == "at":
        fn = obj.child_by_field_name("function")
        base = fn.child_by_field_name("object") if fn is not None else None
        args = obj.child_by_field_name("arguments")
        return is_history(src, base) and args is not None and src.text(args) == "(-1)"
    return False


def _content_write(src: Source, loop: Node) -> Node | None:
    """The first assignment into a message's text inside `for (const m of history)`."""
    right = loop.child_by_field_name("right")
    var = loop.child_by_field_name("left")
    if right is None or var is None or not is_history(src, right):
        return None
    names = {src.text(var)}
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    for n in walk(body):
        if n.type == "variable_declarator":
            value = n.child_by_field_name("value")
            name = n.child_by_field_name("name")
            if value is not None and name is not None and src.text(unwrap(value)) in names:
                names.add(src.text(name))  # `const m = message as ToolMessage`
        elif n.type in ("assignment_expression", "augmented_assignment_expression"):
            left = n.child_by_field_name("left")
            if left is None or left.type != "member_expression":
                continue
            parts = src.text(left).replace("?.", ".").split(".")
            if parts[0] in names and set(parts[1:]) & _TEXT_PARTS:
                return n
    return None


# Words of a bound the history is compared with before its messages are cut.
_BOUND = frozenset({"tokens", "token", "budget", "limit", "threshold", "max", "maximum"})
# Calls that shorten a message (`truncateMessage(m, n)`, `compressContent(m)`).
_SHORTEN = frozenset({"truncate", "trim", "shorten", "compress", "cut", "sub", "clip"})


def _indexed_write(src: Source, loop: Node) -> Node | None:
    """`for (let i = 0; ...; i++) { const m = messages[i]; m.content = ... }` or
    `output[i] = truncateMessage(output[i], n)`, run only while the history is over a bound
    (the loop's condition or an `if` around it compares with a budget or a threshold): the
    messages already sent are cut once the conversation grows past it."""
    if not _under_bound(src, loop):
        return None
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    names: set[str] = set()
    for n in walk(body):
        if n.type == "variable_declarator":
            value = n.child_by_field_name("value")
            name = n.child_by_field_name("name")
            if value is not None and name is not None and _history_item(src, unwrap(value)):
                names.add(src.text(name))  # `const message = this.messages[i]`
        elif n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            if left is None or right is None:
                continue
            if left.type == "subscript_expression":
                r = unwrap(right)
                shortened = r.type == "call_expression" and bool(
                    set(words(callee_name(src, r))) & _SHORTEN
                )
                if shortened and (
                    _history_item(src, left) or "message" in words(callee_name(src, r))
                ):
                    return n
            elif left.type == "member_expression":
                parts = src.text(left).replace("?.", ".").split(".")
                obj = unwrap(left.child_by_field_name("object"))  # type: ignore[arg-type]
                mine = parts[0] in names or _history_item(src, obj)
                if mine and set(parts[1:]) & _TEXT_PARTS:
                    return n
    return None


def _history_item(src: Source, node: Node) -> bool:
    """`messages[i]`, `this.messages[i]`: an element of the history by its position."""
    return node.type == "subscript_expression" and is_history(
        src, node.child_by_field_name("object")
    )


def _under_bound(src: Source, loop: Node) -> bool:
    """The loop's condition, or an `if` around the loop in its function, compares with a
    budget, a limit or a threshold."""
    conds = [loop.child_by_field_name("condition")]
    p = loop.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "if_statement":
            conds.append(p.child_by_field_name("condition"))
        p = p.parent
    for c in conds:
        if c is None:
            continue
        for x in walk(c):
            if x.type == "binary_expression" and src.text(x.child_by_field_name("operator")) in (
                "<",
                "<=",
                ">",
                ">=",
            ):
                ids = [
                    src.text(i) for i in walk(x) if i.type in ("identifier", "property_identifier")
                ]
                if any(set(words(i)) & _BOUND for i in ids):
                    return True
    return False


def _short(src: Source, node: Node) -> str:
    text = " ".join(src.text(node).split())
    return text if len(text) <= 50 else text[:47] + "..."
