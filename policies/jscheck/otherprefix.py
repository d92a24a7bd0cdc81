"""PL305 in TypeScript: the same conversation sent under two system prompts by two functions
of one class (or one module outside classes). Where one method writes its messages as
`[{ role: "system", content: A }, ...history, ...]` and another as `[{ role: "system", content:
B }, ...history, ...]` (or LangChain.js's `fromMessages([["system", A], new
MessagesPlaceholder("messages")])`, `new SystemMessage(A)`), the second request (a rewrite of
the reply, a sub-agent) shares nothing of the first one's cached prefix: the whole history is
sent again uncached on every turn it runs. The first list written is taken as the
conversation's own; each later one with another system text, in another function, is
reported at its system text (where the two differ). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .syntax import (
    FUNCTIONS,
    Source,
    callee_name,
    declared_value,
    function_name,
    key_name,
    object_pairs,
    string_value,
    unwrap,
    walk,
)

_OWNERS = ("class_declaration", "class", "program")
_LC_SYSTEM = frozenset({"SystemMessage", "SystemChatMessage"})


def _system_text(src: Source, element: Node) -> tuple[Node, Node] | None:
    """The system text of `{ role: "system", content: X }`, `["system", X]` or `new
    SystemMessage(X)`, and the node a finding stands at: the text itself, or the role marker
    of a pair (its text may run over many lines below it)."""
    e = unwrap(element)
    if e.type == "array" and len(e.named_children) == 2:
        role, text = e.named_children
        return (text, role) if string_value(src, role) == "system" else None
    if e.type == "new_expression":
        ctor = e.child_by_field_name("constructor")
        args = e.child_by_field_name("arguments")
        if ctor is None or src.text(ctor) not in _LC_SYSTEM or args is None:
            return None
        return (args.named_children[0], e) if args.named_children else None
    if e.type != "object":
        return None
    pairs = {
        key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
        for p in e.named_children
        if p.type == "pair"
    }
    content = pairs.get("content")
    if string_value(src, pairs.get("role")) != "system" or content is None:
        return None
    return content, content


def _history_named(src: Source, value: Node) -> bool:
    """`history`, `trimmedHistory.map((turn) => ...)`, `memory.chatHistory`, `(input.history ??
    [])`: a value whose root or one of whose fields is named for the conversation (a method
    called on it, `map`, names no data)."""
    node = unwrap(value)
    if node.type == "binary_expression":
        left = node.child_by_field_name("left")
        node = unwrap(left) if left is not None else node
    while node.type in ("call_expression", "member_expression"):
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            called = node.parent is not None and node.parent.type == "call_expression"
            if prop is not None and not called and set(words(src.text(prop))) & HISTORY_WORDS:
                return True
        inner = node.child_by_field_name("function") or node.child_by_field_name("object")
        if inner is None:
            break
        node = unwrap(inner)
    return node.type == "identifier" and bool(set(words(src.text(node))) & HISTORY_WORDS)


def _spreads_history(src: Source, array: Node) -> bool:
    """`...history` spread in, or LangChain.js's `new MessagesPlaceholder("history")`."""
    for e in array.named_children:
        if e.type == "spread_element" and e.named_children:
            if _history_named(src, e.named_children[0]):
                return True
        elif e.type == "new_expression":
            ctor = e.child_by_field_name("constructor")
            if ctor is not None and src.text(ctor) == "MessagesPlaceholder":
                return True
    return False


def _function(node: Node) -> int:
    p = node.parent
    while p is not None and p.type not in FUNCTIONS:
        p = p.parent
    return p.id if p is not None else 0


def _owner(node: Node) -> Node:
    p = node.parent
    while p is not None and p.type not in _OWNERS:
        p = p.parent
    return p if p is not None else node


def _bare_requests(src: Source) -> dict[int, list[Node]]:
    """By owner: requests that send a history with no system prompt (`generateText({ model,
    messages })`, `messages` named for the conversation, no `system` beside it)."""
    out: dict[int, list[Node]] = {}
    for n in walk(src.root):
        # a spread may bring a system prompt in: such a request is not known to be bare
        if n.type != "object" or any(c.type == "spread_element" for c in n.named_children):
            continue
        keys = object_pairs(src, n)
        sent = keys.get("messages")
        if "model" not in keys or sent is None or keys.keys() & _SYSTEM_KEYS:
            continue
        sent = unwrap(sent)
        if (
            sent.type in ("identifier", "shorthand_property_identifier")
            and set(words(src.text(sent))) & HISTORY_WORDS
            and _handed_bare(src, n, src.text(sent))
        ):
            out.setdefault(_owner(n).id, []).append(n)
    return out


def _sent_here(src: Source, array: Node) -> bool:
    """Whether the function that writes `array` sends it itself: as the `messages` of a request
    (`{ model, messages: promptMessages }`), directly or through the local it is bound to. A
    builder that returns the list is sent where its callers send it, not seen here."""
    fn = array.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    if fn is None:
        return False
    holder = array.parent
    names = {src.text(array)}
    if holder is not None and holder.type == "variable_declarator":
        names.add(src.text(holder.child_by_field_name("name")))
    for p in walk(fn):
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "messages":
            value = p.child_by_field_name("value")
            if value is not None and src.text(unwrap(value)) in names:
                return True
        elif (
            p.type == "shorthand_property_identifier"
            and src.text(p) == "messages"
            and "messages" in names
        ):
            return True
    return False


def _handed_bare(src: Source, request: Node, name: str) -> bool:
    """Whether the history a request sends is a parameter of its function that no call in
    this file hands a list starting with a system message (`callOpenAI([{ role: "system" },
    ...history])` sends a system prompt after all, through the helper)."""
    fn = request.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    params = fn.child_by_field_name("parameters") if fn is not None else None
    if fn is None or params is None:
        return False
    declared = [src.text(p.child_by_field_name("pattern") or p) for p in params.named_children]
    if name not in declared:
        return False
    position = declared.index(name)
    fname = function_name(src, fn)
    for c in walk(src.root):
        if c.type != "call_expression" or not fname or callee_name(src, c) != fname:
            continue
        args = c.child_by_field_name("arguments")
        given = args.named_children if args is not None else []
        if len(given) <= position:
            continue
        arg = unwrap(given[position])
        if arg.type == "identifier":
            bound = declared_value(src, c, src.text(arg))
            arg = unwrap(bound) if bound is not None else arg
        if (
            arg.type == "array"
            and arg.named_children
            and _system_text(src, arg.named_children[0]) is not None
        ):
            return False
    return True


_SYSTEM_KEYS = frozenset({"system", "instructions", "systemInstruction", "systemPrompt"})


def check_other_prefix(src: Source) -> list[Finding]:
    out: list[Finding] = []
    first: dict[int, tuple[Node, str]] = {}
    bare: dict[int, list[Node]] | None = None  # made once, when a list first asks
    for n in walk(src.root):
        if n.type != "array" or not n.named_children:
            continue
        found = _system_text(src, n.named_children[0])
        if found is None or not _spreads_history(src, n):
            continue
        content, at = found
        key = _owner(n).id
        text = src.text(content)
        if bare is None:
            bare = _bare_requests(src)
        plain = [b for b in bare.get(key, []) if _function(b) != _function(n)]
        if plain and _sent_here(src, n):
            # The conversation's own request sends the history with no system prompt; this
            # one puts a system message of its own ahead of the same history.
            out.append(
                src.finding(
                    at,
                    "PL305",
                    f"the conversation is sent here under a system prompt of its own "
                    f"(`{text[:60]}`), while the request at line {src.pos(plain[0])[0]} sends it "
                    "with none: this request reads nothing of the conversation's cached prefix "
                    "and the whole history is sent again uncached; send it as the conversation "
                    "is sent and put the task in the newest message",
                )
            )
            continue
        if key not in first:
            first[key] = (content, text)
            continue
        mine, theirs = first[key]
        if text == theirs or _function(mine) == _function(n):
            continue  # lists built side by side in one function are one request's choice
        out.append(
            src.finding(
                at,
                "PL305",
                f"the conversation is sent here under another system prompt (`{text[:60]}`) than "
                f"at line {src.pos(mine)[0]} (`{theirs[:60]}`): this request reads nothing of the "
                "conversation's cached prefix and the whole history is sent again uncached; "
                "send it under the same system prompt and put the task in the newest message",
            )
        )
    return out
