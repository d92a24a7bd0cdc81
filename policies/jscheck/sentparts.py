"""PL303 and PL304 in TypeScript/JavaScript, read from the parts of the message list each
request sends, in the order it sends them: one reading per request site instead of one rule per
shape. From each request the data-flow pass finds (`prefixflow.SendingFunction.requests`: a call
given `messages`, a list built here and returned, a list handed by position inside a loop that
grows it) the list is read as its parts: the items of its literal, then what is pushed onto it
(or put at its head) in source order. Each part is a message (its role and text) or the
replayed history (a spread, `push(...h)`, or a loop over stored rows that pushes each row with
its own role). A message part is per request when its text is made from this turn's input (the
names its user messages are made from), from the history, or from what was recalled for it (a
search, retrieval, memory or summary call, or such a field of what a loop walks). Reported:
a per-request message placed before the history (PL304), and a history part cut to its newest
messages (`h.slice(-n)`, `h.slice(h.length - n)`), also where the kept history is reassigned
to such a cut of itself after a reply (PL303). Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .prefixflow import (
    _LOOPS,
    SendingFunction,
    _at_head,
    _head_pick,
    _named_item,
    _names,
    _pushes,
    _read,
    _role,
    _system_spread,
)
from .syntax import FUNCTIONS, Source, callee_name, object_pairs, unwrap, walk

# What a call or a field is named for when it holds what was recalled for this turn.
_RECALLED = frozenset(
    {
        "search",
        "retrieve",
        "retrieved",
        "retrieval",
        "recall",
        "recalled",
        "memory",
        "memories",
        "summary",
        "summaries",
        "summarize",
        "summarise",
        "facts",
        "passages",
        "chunks",
        "rag",
        "embeddings",
        "relevant",
    }
)
# What a history part may be named for (besides the conversation's own words): the newest
# turns replayed.
_HISTORY = HISTORY_WORDS | {"recent"}
_PL304 = (
    "`{name}` ({why}) is sent in a message placed before the replayed conversation: that "
    "message changes on every request, so the prefix breaks there and the whole history after "
    "it is sent again uncached; put it in the newest user message, after the history"
)
_PL303 = (
    "the replayed conversation is cut to its newest messages (`{code}`) in the list this "
    "request sends: once the window is full its first message changes every turn, and every "
    "request misses the cache from that point on; summarise or cut the history in large steps "
    "instead"
)
_PL303_KEPT = (
    "the kept conversation is replaced by its newest messages (`{code}`) after a reply: once it "
    "is longer than the cut, the first message the next request sends changes every turn and "
    "the cache misses from the system prompt on; summarise or cut the history in large steps "
    "instead"
)


@dataclass(frozen=True)
class _Part:
    """One part of a message list, in the order it is sent: a message (`role`, its text), or
    the replayed history (`role` None, `node` the list it replays)."""

    role: str | None
    node: Node
    content: Node | None = None
    replayed: bool = False  # rows pushed one by one with their own roles: the conversation


def _conditional_items(node: Node) -> list[Node]:
    """The items of the arrays a spread's conditional picks from (`...(ctx ? [msg] : [])`)."""
    node = unwrap(node)
    if node.type == "ternary_expression":
        out: list[Node] = []
        for key in ("consequence", "alternative"):
            branch = node.child_by_field_name(key)
            if branch is not None:
                out += _conditional_items(branch)
        return out
    if node.type == "array":
        return [c for c in node.named_children if c.type != "comment"]
    return []


class _Reading:
    """The parts of the lists one function's requests send."""

    def __init__(self, src: Source, fn: Node) -> None:
        self.src = src
        self.fn = fn
        self.f = SendingFunction(src, fn)

    def sent(self) -> list[Node]:
        """The lists this function's requests send, and the lists it builds and returns, bare
        or as the `messages` of an object (`return { messages, tokensUsed }`): its caller sends
        them."""
        out = [unwrap(s) for _, s in self.f.requests()]
        for n in self.f.nodes:
            if n.type != "return_statement" or not n.named_child_count:
                continue
            value = unwrap(n.named_children[0])
            if value.type == "object":
                got = object_pairs(self.src, value)
                value = unwrap(got["messages"]) if "messages" in got else value
            named = value.type in ("identifier", "shorthand_property_identifier")
            if (named or value.type == "call_expression") and not any(
                s.id == value.id for s in out
            ):
                out.append(value)
        return [_passed(s) for s in out]

    def items(self, arr: Node) -> list[_Part]:
        out: list[_Part] = []
        for c in arr.named_children:
            if c.type == "comment":
                continue
            if c.type == "spread_element" and c.named_children:
                inner = unwrap(c.named_children[0])
                picked = _conditional_items(inner)
                if picked:
                    out += [p for x in picked for p in self._message(x)]
                elif not _system_spread(self.src, c):
                    out.append(_Part(None, inner))
                continue
            out += self._message(c)
        return out

    def _message(self, item: Node) -> list[_Part]:
        obj = _named_item(self.src, item, self.f.assigned)
        r = _role(self.src, obj)
        return [_Part(r[0], obj, r[1])] if r is not None else []

    def parts(self, sent: Node) -> list[_Part]:
        """The parts of the list a request sends: a literal's items; for a local, its first
        literal's items, then what is pushed onto it and put at its head, in source order."""
        sent = unwrap(sent)
        if sent.type == "array":
            return self.items(sent)
        if sent.type not in ("identifier", "shorthand_property_identifier"):
            return []
        name = self.src.text(sent)
        literals = [unwrap(v) for v in self.f.assigned.get(name, []) if unwrap(v).type == "array"]
        if not literals:
            return []
        head: list[_Part] = []
        out = self.items(literals[0])
        pushes = [
            (verb, args, call)
            for verb, args, call in sorted(self.f.method_calls(name), key=lambda x: x[2].start_byte)
            if verb in ("push", "unshift")
        ]
        # A loop that replays its rows with their own roles is the history as a whole: a
        # branch of it that writes a row's role out (`role: 'user'` for a row with an image)
        # still replays that row.
        replaying: dict[tuple[int, int], Node] = {}
        for _verb, args, call in pushes:
            loop = _loop_of(call)
            for a in args:
                if loop is not None and (row := self._replayed_row(call, a)) is not None:
                    replaying[(loop.start_byte, loop.end_byte)] = row
        for verb, args, call in pushes:
            loop = _loop_of(call)
            looped = replaying.get((loop.start_byte, loop.end_byte)) if loop else None
            got: list[_Part] = []
            for a in args:
                if a.type == "spread_element" and a.named_children:
                    got.append(_Part(None, unwrap(a.named_children[0])))
                elif (row := self._replayed_row(call, a)) is not None:
                    got.append(_Part(None, row, replayed=True))
                elif looped is not None:
                    got.append(_Part(None, looped, replayed=True))
                else:
                    got += self._message(a)
            if verb == "unshift":
                head = got + head
            else:
                out += got
        return head + out

    def _replayed_row(self, call: Node, arg: Node) -> Node | None:
        """The list a loop around a push walks, where the push replays its rows: the row itself
        (`for (const m of recent) list.push(m)`) or a message keeping the row's own role
        (`list.push({ role: m.role, content })`)."""
        arg = unwrap(arg)
        p = call.parent
        while p is not None and p.type not in FUNCTIONS:
            if p.type == "for_in_statement":
                left, right = p.child_by_field_name("left"), p.child_by_field_name("right")
                row = (
                    {self.src.text(x) for x in walk(left) if x.type == "identifier"}
                    if left
                    else set()
                )
                if right is None or not row:
                    return None
                if arg.type == "identifier" and self.src.text(arg) in row:
                    return unwrap(right)
                if arg.type != "object":
                    return None
                role = next(
                    (
                        c
                        for c in arg.named_children
                        if c.type == "pair"
                        and self.src.text(c.child_by_field_name("key")) == "role"
                    ),
                    None,
                )
                value = role.child_by_field_name("value") if role is not None else None
                if value is not None and _names(self.src, value) & row:
                    return unwrap(right)
                return None
            p = p.parent
        return None

    def is_history(self, part: _Part, sent: Node) -> bool:
        """Whether a history part replays the conversation: named for it, a parameter typed
        or named so, or the list a loop around the request grows."""
        if part.replayed:
            return True
        node = part.node
        while node.type == "call_expression":
            f = node.child_by_field_name("function")
            if f is None or f.type != "member_expression":
                break
            node = unwrap(f.child_by_field_name("object") or node)
        text = self.src.text(node)
        if set(words(text)) & _HISTORY and not set(words(text)) & {"system", "tools", "tool"}:
            return True
        return node.type == "identifier" and self.grown_in_loop(text, sent)

    def grown_in_loop(self, name: str, sent: Node) -> bool:
        """Whether a loop around the request pushes onto `name`: each pass sends it and adds
        to it, so it is the conversation kept between those requests."""
        p = sent.parent
        while p is not None and p.type not in FUNCTIONS:
            if p.type in _LOOPS and _pushes(self.src, p, name):
                return True
            p = p.parent
        return False

    def read_through(
        self, content: Node, seeds: set[str], made: set[str]
    ) -> tuple[Node | None, set[int]]:
        """Where a seed enters a message's text: read in it, or in the values written to the
        made locals it reads, followed back (`content: system`, `system = base + glossary`,
        `base = base + facts`: the read of `facts`), so the finding lands where the recalled
        value goes in; and the lines of the values followed."""
        seen: set[str] = set()
        lines: set[int] = set()
        todo = [unwrap(content)]
        while todo:
            v = todo.pop(0)
            lines |= set(range(v.start_point[0] + 1, v.end_point[0] + 2))
            hit = _read(self.src, v, seeds)
            if hit is not None:
                return hit, lines
            for x in _idents_in(v):
                name = self.src.text(x)
                if name in made and name not in seen:
                    seen.add(name)
                    todo += [unwrap(w) for w in self.f.assigned.get(name, [])]
        return None, lines

    def recalled(self) -> set[str]:
        """The locals bound to what was recalled for this turn: a call named for a search, a
        retrieval, a memory or a summary (`await memory.getPinnedFacts(id)`)."""
        out: set[str] = set()
        for name, values in self.f.assigned.items():
            for v in values:
                v = unwrap(v)
                if v.type == "await_expression" and v.named_children:
                    v = unwrap(v.named_children[0])
                if (
                    v.type == "call_expression"
                    and set(words(callee_name(self.src, v))) & _RECALLED
                    and not _fixed_key(self.src, v)
                ):
                    out.add(name)
        return out

    def seeds(self, history: set[str]) -> set[str]:
        """What this request brings: its user messages' names, its history, what was
        recalled for it."""
        seeds = set(history) | self.f.converted_from(history) | self.recalled()
        for n in self.f.nodes:
            r = _role(self.src, n) if n.type == "object" else None
            if r is not None and r[0] == "user" and not _at_head(self.src, n):
                seeds |= _names(self.src, r[1])
        return (seeds | self.f.newest_sent()) - {"this"}


def _loop_of(call: Node) -> Node | None:
    """The nearest `for ... of/in` loop around a call, within its function."""
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "for_in_statement":
            return p
        p = p.parent
    return None


def _passed(sent: Node) -> Node:
    """The list a call of one argument is handed (`consolidateMessages(messages)`,
    `toModelMessages(list)`): what it returns is that list, converted."""
    sent = unwrap(sent)
    if sent.type == "await_expression" and sent.named_children:
        sent = unwrap(sent.named_children[0])
    if sent.type != "call_expression":
        return sent
    args = sent.child_by_field_name("arguments")
    kids = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    if len(kids) == 1 and unwrap(kids[0]).type == "identifier":
        return unwrap(kids[0])
    return sent


def _idents_in(node: Node) -> list[Node]:
    """The identifiers a value reads (a shorthand message text included)."""
    if node.type in ("identifier", "shorthand_property_identifier"):
        return [node]
    return [n for n in walk(node) if n.type == "identifier"]


def _fixed_key(src: Source, call: Node) -> bool:
    """A recall handed only fixed text (`retrieve('glossary')`): the same every turn."""
    args = call.child_by_field_name("arguments")
    kids = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    return bool(kids) and all(
        unwrap(a).type in ("string", "number")
        or (unwrap(a).type == "template_string" and not unwrap(a).named_children)
        for a in kids
    )


def _recalled_field(src: Source, content: Node) -> Node | None:
    """A field named for what was recalled, read in a message's text (`checkpoint.summary`)."""
    for n in walk(content):
        if n.type == "member_expression":
            prop = n.child_by_field_name("property")
            obj = n.child_by_field_name("object")
            if obj is not None and obj.type == "this":
                continue  # a field set elsewhere, whenever it is set
            if prop is not None and set(words(src.text(prop))) & _RECALLED:
                return n
    return None


def _window(src: Source, node: Node) -> Node | None:
    """The cut to the newest messages along a chain of array calls (`h.slice(-10).map(f)`,
    `h.slice(h.length - n)`): the slice call, or None."""
    node = unwrap(node)
    while node.type == "call_expression":
        f = node.child_by_field_name("function")
        if f is None or f.type != "member_expression":
            return None
        if src.text(f.child_by_field_name("property")) == "slice":
            args = node.child_by_field_name("arguments")
            kids = [a for a in args.named_children if a.type != "comment"] if args else []
            if len(kids) == 1 and _newest(src, kids[0]):
                return node
        node = unwrap(f.child_by_field_name("object") or node)
    return None


def _cut_name(cut: Node) -> Node:
    """Where a cut is reported: its `slice`, on the line it cuts (a chain may span lines)."""
    f = cut.child_by_field_name("function")
    prop = f.child_by_field_name("property") if f is not None else None
    return prop if prop is not None else cut


def _cut_text(src: Source, cut: Node) -> str:
    """The cut as written, from the list it cuts (`working.slice(-10)`), on one line."""
    return " ".join(src.text(cut).split())[-60:]


def _newest(src: Source, arg: Node) -> bool:
    """A slice start counted from the end: `-10`, `-n`, `h.length - n`."""
    arg = unwrap(arg)
    if arg.type == "unary_expression" and src.text(arg).startswith("-"):
        return True
    compact = src.text(arg).replace(" ", "")
    return arg.type == "binary_expression" and ".length-" in compact


def check_sent_parts(src: Source, told: frozenset[int] = frozenset()) -> list[Finding]:
    """The findings of the parts of each list sent; `told`: the lines where a PL304 is already
    reported (a system prompt's flow followed through one of them is not reported again)."""
    out: list[Finding] = []
    seen: set[tuple[str, int]] = set()

    def add(node: Node, code: str, message: str) -> None:
        key = (code, src.pos(node)[0])
        if key not in seen:
            seen.add(key)
            out.append(src.finding(node, code, message))

    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        r = _Reading(src, fn)
        for sent in r.sent():
            kept = _kept_path(src, sent)
            if kept is not None:
                for again in _cut_in_place(src, kept):
                    add(_cut_name(again), "PL303", _PL303_KEPT.format(code=_cut_text(src, again)))
            parts = r.parts(sent)
            at = next(
                (i for i, p in enumerate(parts) if p.role is None and r.is_history(p, sent)),
                None,
            )
            if at is None:
                continue
            history = {src.text(p.node) for p in parts if p.role is None}
            made = r.f.made(r.seeds(history), src.text(sent) if sent.type != "array" else "")
            fetched = r.recalled()
            recalled = r.f.made(fetched, src.text(sent) if sent.type != "array" else "")
            leading = True
            for p in parts[:at]:
                leading = leading and p.role == "system"
                if p.content is None:
                    continue
                # The system prompt at the head is followed from this turn's input by the
                # data-flow pass (`prefixflow`); here, from what was recalled for it.
                hit = _recalled_field(src, p.content)
                why = "recalled for this turn"
                if hit is None and leading:
                    hit, lines = r.read_through(p.content, fetched, recalled)
                    if lines & told:
                        continue  # the same flow, already reported where it is written in
                elif hit is None and not _head_pick(src, p.content, made):
                    hit = _read(src, p.content, made)
                    why = "made from this turn's input, its history or what was recalled for it"
                if hit is not None:
                    name = src.text(hit).replace("?.", ".")[:60]
                    add(hit, "PL304", _PL304.format(name=name, why=why))
            # A window over a history that heads the list moves the whole request alike; one
            # behind a message the model caches first (the system prompt) breaks its prefix.
            for p in parts[at:] if at > 0 else []:
                if p.role is not None or not r.is_history(p, sent):
                    continue
                cut = _window(src, p.node)
                if cut is None and p.node.type == "identifier":
                    values = r.f.assigned.get(src.text(p.node), [])
                    cut = next((c for v in values if (c := _window(src, v)) is not None), None)
                if cut is not None:
                    add(_cut_name(cut), "PL303", _PL303.format(code=_cut_text(src, cut)))
    return out


def _kept_path(src: Source, sent: Node) -> str | None:
    """The path of a list kept between requests that a request sends as it is: a field of
    `this`, or an entry of a map declared outside every function (`chatHistory[chatId]`)."""
    sent = unwrap(sent)
    if sent.type not in ("member_expression", "subscript_expression"):
        return None
    root = sent
    while root.type in ("member_expression", "subscript_expression"):
        root = unwrap(root.child_by_field_name("object") or root)
    text = src.text(sent)
    if root.type == "this":
        return text
    if root.type != "identifier":
        return None
    name = src.text(root)
    for n in walk(src.root):
        if n.type == "variable_declarator" and src.text(n.child_by_field_name("name")) == name:
            p = n.parent
            while p is not None and p.type not in FUNCTIONS:
                p = p.parent
            if p is None:
                return text
    return None


def _cut_in_place(src: Source, path: str) -> list[Node]:
    """`path = path.slice(-n)`: the kept list replaced by its newest messages."""
    out: list[Node] = []
    for n in walk(src.root):
        if n.type != "assignment_expression":
            continue
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if left is None or right is None or src.text(left) != path:
            continue
        cut = _window(src, right)
        if cut is not None and src.text(cut).startswith(f"{path}.slice("):
            out.append(cut)
    return out


__all__ = ["check_sent_parts"]
