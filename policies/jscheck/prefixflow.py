"""PL303 and PL304 by data flow, in TypeScript/JavaScript: the Python pass's twin
(`..pycheck.prefixflow`), sharing its classification (`..prefixflow`). From each request (an
object argument with `messages`) back to the writes of the list (`m[i] = v`, `m.splice(k, ...)`,
`m.unshift(v)`, `m.shift()`, `m.sort()`, `m.reverse()`, `m = m.filter(...)`; a push is fine) and
of the system prompt at its head (`system:` beside it, or the list's first `{ role: "system" }`
message), whatever the names. What the request brings: the names in its user messages and the
history spread into the list (`...history`, `push(...history)`), and the locals made from them.
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from ..prefixflow import Write, breaks, history_message, made_from, system_message
from .syntax import (
    FUNCTIONS,
    Source,
    callee_name,
    function_name,
    object_pairs,
    string_value,
    unwrap,
    walk,
)

_COPIES = frozenset({"slice", "concat", "map", "from"})
_ASSIGN = frozenset({"assignment_expression", "augmented_assignment_expression"})
_PATTERNS = frozenset({"object_pattern", "array_pattern"})
_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})


def _body(fn: Node) -> Iterator[Node]:
    """The nodes of a function, not those of functions nested in it."""
    stack = list(reversed(fn.children))
    while stack:
        n = stack.pop()
        yield n
        if n.type not in FUNCTIONS:
            stack.extend(reversed(n.children))


def _idents(src: Source, node: Node | None) -> Iterator[Node]:
    """The identifiers a value reads (not a property's name, not what a call calls by name)."""
    if node is None:
        return
    for n in walk(node):
        if n.type != "identifier":
            continue
        p = n.parent
        if p is not None and p.type == "call_expression" and p.child_by_field_name("function") == n:
            continue
        yield n


def _names(src: Source, node: Node | None) -> set[str]:
    return {src.text(n) for n in _idents(src, node)}


def _path(src: Source, node: Node) -> str:
    """A read's text as a path (`req.messages`, also written `req?.messages`)."""
    return src.text(node).replace("?.", ".")


def _source(src: Source, node: Node | None) -> set[str]:
    """The histories a value adds to a list: a local's name, or a field's or a call's text
    (`body.messages`): it makes the list a history, but nothing else read from its owner."""
    if node is None:
        return set()
    node = unwrap(node)
    if node.type == "spread_element" and node.named_children:
        node = unwrap(node.named_children[0])
    while node.type == "call_expression" and callee_name(src, node) in _KEEPS:
        # `working.slice(-10).map(toModel)`: a part of `working`, in its order; what is read
        # off it is read off that history.
        f = node.child_by_field_name("function")
        obj = f.child_by_field_name("object") if f is not None else None
        if f is None or f.type != "member_expression" or obj is None:
            break
        node = unwrap(obj)
    if node.type == "identifier":
        return {src.text(node)}
    return {_path(src, node)}


# Array methods whose result is a part of the list they are called on, in its order.
_KEEPS = frozenset({"slice", "map", "filter"})


def _named_item(src: Source, item: Node, assigned: dict[str, list[Node]] | None) -> Node:
    """A list's item as written, or the one object literal a local it names is bound to
    (`const system = { role: "system", content }` then `[system, ...recent]`)."""
    item = unwrap(item)
    if item.type == "identifier" and assigned is not None:
        values = assigned.get(src.text(item), [])
        if len(values) == 1 and unwrap(values[0]).type == "object":
            return unwrap(values[0])
    return item


def _read(src: Source, value: Node | None, made: set[str]) -> Node | None:
    """The first read in a value of a made local or of a history read by its field
    (`body.messages`, also inside `body.messages.at(-1).content`); None if none."""
    if value is None:
        return None
    for n in walk(value):
        if n.type == "identifier" and src.text(n) in made:
            p = n.parent
            if _settled_field(src, n):
                continue
            if p is None or p.type != "call_expression" or p.child_by_field_name("function") != n:
                return n
        if n.type == "member_expression" and _path(src, n) in made:
            return n
    return None


# Fields of a request's options that the caller sets for the whole conversation (its own
# system prompt, persona, model), not content of this request (`opts.systemPrompt ??
# SYSTEM_PROMPT` beside `opts.userMessage`).
_SETTLED = frozenset({"system", "instructions", "persona", "profile", "settings", "model"})


def _settled_field(src: Source, ident: Node) -> bool:
    """Whether `ident` is read only for such a field: `opts` in `opts.systemPrompt`."""
    p = ident.parent
    if p is None or p.type != "member_expression" or p.child_by_field_name("object") != ident:
        return False
    return bool(set(words(src.text(p.child_by_field_name("property")))) & _SETTLED)


# A helper named for the history's first message (`extractFirstUserMessageText(messages)`).
_FIRST = frozenset({"first", "initial", "opening"})


def _system_spread(src: Source, e: Node) -> bool:
    """`...systemMessages`: the system messages spread at a list's head, built for this
    request, not a history (a local named for the system prompt)."""
    inner = unwrap(e.named_children[0]) if e.type == "spread_element" and e.named_children else None
    return (
        inner is not None
        and inner.type == "identifier"
        and bool(set(words(src.text(inner))) & {"system", "instructions"})
    )


def _head_pick(src: Source, value: Node, made: set[str]) -> bool:
    """Whether a value picks the head of a history (`h[0]`, `h[0].content`, `h.find(...)`):
    what was cached first, the same on every request, so nothing made from it."""
    node = unwrap(value)
    while node.type in ("member_expression", "subscript_expression", "call_expression"):
        inner = node.child_by_field_name("object") or node.child_by_field_name("function")
        if inner is None:
            return False
        if node.type == "subscript_expression" and src.text(inner) in made:
            return src.text(node.child_by_field_name("index")) == "0"
        if (
            node.type == "call_expression"
            and inner.type == "member_expression"
            and _path(src, inner.child_by_field_name("object") or inner) in made
        ):
            return src.text(inner.child_by_field_name("property")) == "find"
        if (
            node.type == "call_expression"
            and inner.type == "identifier"
            and set(words(src.text(inner))) & _FIRST
        ):
            # `extractFirstUserMessageText(messages)`: a helper named for the head's text.
            args = node.child_by_field_name("arguments")
            return args is not None and any(
                _path(src, unwrap(a)) in made for a in args.named_children
            )
        node = unwrap(inner)
    return False


def _at_head(src: Source, obj: Node) -> bool:
    """Whether a message object is put at a list's head (`unshift(obj)`, `splice(0, 0, obj)`):
    no newest message."""
    args = obj.parent
    call = args.parent if args is not None else None
    if call is None or call.type != "call_expression":
        return False
    fn = call.child_by_field_name("function")
    prop = fn.child_by_field_name("property") if fn is not None else None
    return prop is not None and src.text(prop) in ("unshift", "splice")


def _role(src: Source, node: Node) -> tuple[str, Node | None] | None:
    """A message's role and its text (`content`, or Gemini's `parts`)."""
    node = unwrap(node)
    if node.type != "object":
        return None
    got = object_pairs(src, node)
    role = string_value(src, got.get("role"))
    return (role, got.get("content") or got.get("parts")) if role is not None else None


def _spreads(value: Node) -> bool:
    """An array literal that spreads another list into it (`[...history, turn]`)."""
    return value.type == "array" and any(e.type == "spread_element" for e in value.named_children)


# A chat session's calls that send the newest turn (Gemini's `chat.sendMessage(text)`).
_SEND_TURN = frozenset({"sendMessage", "sendMessageStream"})


class SendingFunction:
    def __init__(self, src: Source, fn: Node) -> None:
        self.src = src
        self.nodes = list(_body(fn))
        params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        self.params = _names(src, params) if params is not None else set()
        self.assigned: dict[str, list[Node]] = {}  # name -> values written to it
        # Names bound to one field of a value (`const { messages, model } = opts`).
        self.fields: set[str] = set()
        # The names a loop or an array callback walks the list by (`for (let i...)`,
        # `for (const m of msgs)`, `msgs.forEach((m, i) => ...)`): the list's own.
        self.loop_vars: set[str] = set()
        for n in self.nodes:
            head = None
            if n.type == "for_statement":
                head = n.child_by_field_name("initializer")
            elif n.type == "for_in_statement":
                head = n.child_by_field_name("left")
            elif n.type in ("arrow_function", "function_expression"):
                head = n.child_by_field_name("parameters") or n.child_by_field_name("parameter")
            if head is not None:
                self.loop_vars |= {src.text(x) for x in walk(head) if x.type == "identifier"}
        for n in self.nodes:
            if n.type == "variable_declarator":
                name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                if name is not None and name.type == "identifier" and value is not None:
                    self.assigned.setdefault(src.text(name), []).append(value)
                elif name is not None and name.type in _PATTERNS and value is not None:
                    # `const { messages, model } = body`: each name bound is made from `body`.
                    for x in walk(name):
                        if x.type in ("shorthand_property_identifier_pattern", "identifier"):
                            self.assigned.setdefault(src.text(x), []).append(value)
                            self.fields.add(src.text(x))
            elif n.type in _ASSIGN:
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if left is not None and left.type == "identifier" and right is not None:
                    self.assigned.setdefault(src.text(left), []).append(right)

    def requests(self) -> Iterator[tuple[Node, Node]]:
        """(request object, its `messages` value) of each call handed one; (the return, its
        value) of each message list built here and returned (its caller sends it)."""
        for n in self.nodes:
            if n.type == "return_statement" and n.named_child_count:
                value = unwrap(n.named_children[0])
                if self.builds(value):
                    yield n, value
            if n.type != "call_expression":
                continue
            args = n.child_by_field_name("arguments")
            for a in args.named_children if args is not None else []:
                if unwrap(a).type == "identifier" and self._loop_list(n, self.src.text(unwrap(a))):
                    yield n, unwrap(a)  # also `payload as any`
                    continue
                if a.type != "object":
                    continue
                got = object_pairs(self.src, a)
                if "messages" in got:
                    yield a, unwrap(got["messages"])
                elif (sent := self._turns(n, got)) is not None:
                    yield a, sent

    def _loop_list(self, call: Node, name: str) -> bool:
        """A message list handed to a call by position (`provider.createWithTools(messages,
        model, tools)`) inside a loop that pushes onto the same list: each pass sends the list
        and adds to it, so the call sends a conversation whatever its name. The list is one
        built here from message objects (`[{ role: "system", ... }, ...]`)."""
        values = [unwrap(v) for v in self.assigned.get(name, [])]
        built = [v for v in values if v.type == "array" and _has_role(self.src, v, self.assigned)]
        if not built:
            return False
        # The list, or a history spread into it (`[system, ...working.slice(-10)]` where the
        # loop pushes each reply onto `working`): each pass sends what the last one added.
        lists = {name} | {
            x
            for v in built
            for e in v.named_children
            if e.type == "spread_element"
            for x in _source(self.src, e)
        }
        p = call.parent
        while p is not None and p.type not in FUNCTIONS:
            if p.type in _LOOPS and any(_pushes(self.src, p, x) for x in lists):
                return True
            p = p.parent
        return False

    def _turns(self, call: Node, got: dict[str, Node]) -> Node | None:
        """The other spellings of a conversation sent: Gemini's `startChat({ history })`, and
        Gemini's `contents` or the Responses API's `input` beside the model, its config or
        instructions (`generateContent({ model, contents, config })`, `responses.create({
        model, instructions, input })`) where it holds earlier turns (an array with a spread,
        or a local named for the history): a prompt's text sent there is one turn, not a
        conversation."""
        if callee_name(self.src, call) == "startChat" and "history" in got:
            history = unwrap(got["history"])
            return None if history.type == "array" and not history.named_children else history
        key = next((k for k in ("contents", "input") if k in got), None)
        if key is None or not got.keys() & {"model", "config", "systemInstruction", "instructions"}:
            return None
        sent = unwrap(got[key])
        if sent.type == "identifier":
            values = [unwrap(v) for v in self.assigned.get(self.src.text(sent), [])]
            if set(words(self.src.text(sent))) & HISTORY_WORDS or any(_spreads(v) for v in values):
                return sent
            return None
        return sent if _spreads(sent) else None

    def system_heads(self, request: Node) -> list[Node]:
        """The system prompt beside a request: its `system` (Anthropic, the AI SDK), its
        `instructions` (the Responses API), Gemini's `systemInstruction` in it or its
        `config`, and, for a Gemini conversation, the `systemInstruction` its model was made
        with in this function (`getGenerativeModel({ model, systemInstruction })`)."""
        got = object_pairs(self.src, request)
        heads = [got[k] for k in ("system", "systemInstruction", "instructions") if k in got]
        config = unwrap(got["config"]) if "config" in got else None
        if config is not None and config.type == "object":
            heads += [
                v for k, v in object_pairs(self.src, config).items() if k == "systemInstruction"
            ]
        if "messages" not in got and not heads:
            for n in self.nodes:
                if n.type == "object" and n.parent is not None and n.parent.type == "arguments":
                    made = n.parent.parent
                    if made is not None and callee_name(self.src, made) == "getGenerativeModel":
                        heads += [
                            v
                            for k, v in object_pairs(self.src, n).items()
                            if k == "systemInstruction"
                        ]
        return heads

    def newest_sent(self) -> set[str]:
        """The names a Gemini chat's newest turn is sent from (`chat.sendMessage(text)`, where
        `chat = model.startChat(...)` here): not a messenger's `bot.sendMessage(chatId, ...)`."""
        out: set[str] = set()
        for n in self.nodes:
            if n.type != "call_expression" or callee_name(self.src, n) not in _SEND_TURN:
                continue
            f = n.child_by_field_name("function")
            chat = f.child_by_field_name("object") if f is not None else None
            if chat is None or chat.type != "identifier":
                continue
            made = [unwrap(v) for v in self.assigned.get(self.src.text(chat), [])]
            if any(
                v.type == "call_expression" and callee_name(self.src, v) == "startChat"
                for v in made
            ):
                out |= _names(self.src, n.child_by_field_name("arguments"))
        return out

    def builds(self, value: Node) -> bool:
        """Whether a value is a message list written here: an array literal with a message in
        it, or a local bound to one."""
        values = [value]
        if value.type == "identifier":
            values = [unwrap(v) for v in self.assigned.get(self.src.text(value), [])]
        return any(
            v.type == "array" and any(_role(self.src, e) is not None for e in v.named_children)
            for v in values
        )

    def method_calls(self, name: str) -> Iterator[tuple[str, list[Node], Node]]:
        for n in self.nodes:
            f = n.child_by_field_name("function") if n.type == "call_expression" else None
            if f is not None and f.type == "member_expression":
                obj = f.child_by_field_name("object")
                if obj is not None and self.src.text(obj) == name:
                    args = n.child_by_field_name("arguments")
                    kids = list(args.named_children) if args is not None else []
                    yield self.src.text(f.child_by_field_name("property")), kids, n

    def origin(self, name: str) -> tuple[bool, set[str], list[Node]]:
        """(kept, history names, array literals) of the list a request sends."""
        kept = name in self.params and name not in self.assigned
        history: set[str] = set()
        arrays: list[Node] = []
        for v in self.assigned.get(name, []):
            v = unwrap(v)
            if v.type == "array":
                arrays.append(v)
                for e in v.named_children:
                    if e.type == "spread_element" and not _system_spread(self.src, e):
                        history |= _source(self.src, e)
            elif v.type == "member_expression" and self.src.text(v).startswith("this."):
                kept = True
                history.add(name)
            elif v.type == "identifier" and self.src.text(v) in self.params:
                kept = True
                # `const { messages } = opts`: the history is that field, as `opts.messages`
                # would be, not the options' other fields (`system`, `skipPrefix`).
                history.add(name if name in self.fields else self.src.text(v))
            elif v.type == "call_expression":
                f = v.child_by_field_name("function")
                if f is not None and f.type == "member_expression":
                    prop = self.src.text(f.child_by_field_name("property"))
                    if prop in _COPIES:
                        history |= _source(self.src, f.child_by_field_name("object"))
        for verb, args, _ in self.method_calls(name):
            if verb == "push":
                for a in args:
                    if a.type == "spread_element":
                        history |= _source(self.src, a)
        history -= {name}
        if not arrays:
            # Not built here: a parameter, a request body's field, a call's result, a field.
            history.add(name)
        return kept, history, arrays

    def writes(self, name: str) -> Iterator[tuple[Node, Write, Node | None]]:
        src = self.src
        for n in self.nodes:
            if n.type in _ASSIGN:
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                base = left
                while base is not None and base.type in (
                    "member_expression",
                    "subscript_expression",
                ):
                    if base.type == "subscript_expression":
                        obj = base.child_by_field_name("object")
                        idx = src.text(base.child_by_field_name("index"))
                        if obj is not None and src.text(obj) == name and not _at_end(idx, name):
                            yield n, Write.REWRITE, right
                        break
                    base = base.child_by_field_name("object")
                if (
                    left is not None
                    and src.text(left) == name
                    and right is not None
                    and src.text(right).startswith(f"{name}.filter(")
                ):
                    yield n, Write.FILTER, right
        for verb, args, call in self.method_calls(name):
            if verb == "unshift":
                yield call, Write.INSERT, args[0] if args else None
            elif verb == "splice" and args and not _at_end(src.text(args[0]), name):
                write = Write.INSERT if len(args) > 2 and src.text(args[1]) == "0" else Write.DROP
                yield call, write, args[2] if len(args) > 2 else None
            elif verb == "shift":
                yield call, Write.DROP, None
            elif verb in ("sort", "reverse"):
                yield call, Write.REORDER, None

    def converted_from(self, history: set[str]) -> set[str]:
        """The histories a history local is converted from, one call of one argument deep
        (`processed = assembleModelMessages(history)`, `convertToModelMessages(messages)`):
        what is read off `history` (its newest message) is this request's too."""
        out: set[str] = set()
        for h in history:
            for v in self.assigned.get(h, []):
                v = unwrap(v)
                if v.type == "await_expression" and v.named_children:
                    v = unwrap(v.named_children[0])
                args = v.child_by_field_name("arguments") if v.type == "call_expression" else None
                kids = [a for a in args.named_children if a.type != "comment"] if args else []
                if len(kids) == 1 and unwrap(kids[0]).type == "identifier":
                    out.add(self.src.text(unwrap(kids[0])))
        return out - history

    def made(self, seeds: set[str], name: str) -> set[str]:
        return made_from(
            seeds,
            self.assigned,
            name,
            lambda v, made: (
                not _head_pick(self.src, v, made) and _read(self.src, v, made) is not None
            ),
        )


def _at_end(index: str, name: str) -> bool:
    compact = index.replace(" ", "")
    return compact in (f"{name}.length-1", f"{name}.length", "-1")


def check_prefix_flow(src: Source) -> list[Finding]:
    """The writes that break the prefix of the lists and system prompts sent."""
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        f = SendingFunction(src, fn)
        requests = list(f.requests())
        at = [src.pos(r)[0] for r, _ in requests]
        loops = [
            (n.start_point[0] + 1, n.end_point[0] + 1)
            for n in f.nodes
            if n.type in ("for_statement", "for_in_statement", "while_statement", "do_statement")
        ]
        reported: set[int] = set()
        for request, sent in requests:
            name = (
                src.text(sent)
                if sent.type in ("identifier", "shorthand_property_identifier")
                else ""
            )
            kept, history, arrays = f.origin(name) if name else (False, set(), [])
            if sent.type == "array":
                arrays = [sent]
                history = {
                    x
                    for e in sent.named_children
                    if e.type == "spread_element" and not _system_spread(src, e)
                    for x in _source(src, e)
                }
            line = src.pos(request)[0]
            around = [
                n
                for n in f.nodes
                if n.type in _LOOPS and n.start_point[0] + 1 <= line <= n.end_point[0] + 1
            ]
            if name and any(_pushes(src, lp, name) for lp in around):
                # Built here (or from a history handed in), but each pass of the loop sends it
                # and adds to it: the history kept between those requests.
                history, kept = history or {name}, True
            if not history:
                continue
            stepped = f.made(_per_step(src, around), name)
            seeds = set(history) | f.converted_from(history)
            for n in f.nodes:
                r = _role(src, n) if n.type == "object" else None
                if r is not None and r[0] == "user" and not _at_head(src, n):
                    seeds |= _names(src, r[1])
            seeds |= f.newest_sent()
            made = f.made(seeds - {"this"} - ({name} if arrays else set()), name)
            if name:
                # Writes before the end of a list that holds a history: a breaker on the kept
                # history; on a copy, where what is written is made from this request or step.
                own = {name} | f.loop_vars
                for node, write, value in f.writes(name):
                    line = src.pos(node)[0]
                    reaches = any(r > line for r in at) or any(
                        a <= line <= b and any(a <= r <= b for r in at) for a, b in loops
                    )
                    if not reaches or node.start_byte in reported:
                        continue  # written after the last request: nothing sends it here
                    read = _read(src, value, (made | stepped) - own)
                    if breaks(write, kept=kept, varies=read is not None):
                        reported.add(node.start_byte)
                        code = src.text(node).split("\n")[0][:60]
                        out.append(
                            src.finding(node, "PL303", history_message(write, code, kept=kept))
                        )
            heads = f.system_heads(request) if request.type == "object" else []
            for arr in arrays:
                heads += _leading_system(src, arr, f.assigned)
            for head in heads:
                head = unwrap(head)
                values = (
                    f.assigned.get(src.text(head), [])
                    if head.type in ("identifier", "shorthand_property_identifier")
                    else [head]
                )
                for v in values:
                    if _head_pick(src, v, made):
                        continue  # the history's own first message, passed on
                    hit = _read(src, v, made | stepped)
                    if hit is not None:
                        said = _path(src, hit)
                        message = system_message(said, per_step=said not in made)
                        out.append(src.finding(hit, "PL304", message))
                        continue
                    hit = _fed_by_callers(src, fn, f, seeds & f.params, v)
                    if hit is not None:
                        out.append(src.finding(hit, "PL304", system_message(_path(src, hit))))
                if not values and head.type == "identifier":
                    # `{ role: "system", content: facts }`, `facts` a parameter.
                    hit = _fed_by_callers(src, fn, f, seeds & f.params, head)
                    if hit is not None:
                        out.append(src.finding(hit, "PL304", system_message(_path(src, hit))))
    return out


def _parameters(src: Source, fn: Node) -> list[str]:
    """A function's parameter names in order; "" for a destructured one."""
    params = fn.child_by_field_name("parameters")
    out: list[str] = []
    for p in params.named_children if params is not None else []:
        if p.type == "comment":
            continue
        x = p.child_by_field_name("pattern") or p
        if x.type == "assignment_pattern":
            x = x.child_by_field_name("left") or x
        out.append(src.text(x) if x.type == "identifier" else "")
    return out


def _fed_by_callers(
    src: Source, fn: Node, f: SendingFunction, seeded: set[str], value: Node
) -> Node | None:
    """A parameter read in a system prompt's value (`{ role: "system", content: facts }` in
    `buildMessages(history, text, facts)`) that a caller in this file fills from what it hands
    the function as the request's history or newest message (`facts = await kb.lookup(text)`,
    then `buildMessages(history, text, facts)`): this request's content, one call away."""
    names = _parameters(src, fn)
    read = {n for n in names if n} - seeded
    hit = _read(src, value, read) if seeded else None
    if hit is None:
        return None
    at = names.index(src.text(hit))
    fed = [i for i, n in enumerate(names) if n in seeded]
    callee = function_name(src, fn)
    if not callee:
        return None
    for call in walk(src.root):
        if call.type != "call_expression" or callee_name(src, call) != callee:
            continue
        args = [a for a in (call.child_by_field_name("arguments") or call).named_children]
        args = [a for a in args if a.type != "comment"]
        if at >= len(args) or any(a.type == "spread_element" for a in args):
            continue
        caller = call.parent
        while caller is not None and caller.type not in FUNCTIONS:
            caller = caller.parent
        if caller is None or caller.id == fn.id:
            continue
        there = SendingFunction(src, caller)
        handed = {x for i in fed if i < len(args) for x in _names(src, args[i])}
        if handed and _read(src, args[at], there.made(handed, "")) is not None:
            return hit
    return None


def _leading_system(
    src: Source, arr: Node, assigned: dict[str, list[Node]] | None = None
) -> list[Node]:
    """The texts of the system messages a list literal starts with, each one up to the first
    message of another role or the first list spread in (`[{ role: "system", content: BASE },
    { role: "system", content: found }, ...history]`: both head the history), or the system
    messages spread first (`[...systemMessages, ...history]`)."""
    out: list[Node] = []
    for item in [c for c in arr.named_children if c.type != "comment"]:
        r = _role(src, _named_item(src, item, assigned))
        if r is not None and r[0] == "system":
            if r[1] is not None:
                out.append(r[1])
            continue
        if not out and _system_spread(src, item):
            out.append(item.named_children[0])
        break
    return out


def _pushes(src: Source, loop: Node, name: str) -> bool:
    """Whether a loop pushes onto the list `name`."""
    return any(
        n.type == "call_expression"
        and src.text(n.child_by_field_name("function")) == f"{name}.push"
        for n in walk(loop)
    )


def _per_step(src: Source, loops: list[Node]) -> set[str]:
    """What changes on each pass of the loops around a request: a `for...of` item and what a
    request's answer (a call given an object with `messages`) is bound to inside them."""
    out: set[str] = set()
    for lp in loops:
        left = lp.child_by_field_name("left")
        if lp.type == "for_in_statement" and left is not None:
            out |= {src.text(x) for x in walk(left) if x.type == "identifier"}
        for n in walk(lp):
            if n.type != "variable_declarator":
                continue
            value, bound = n.child_by_field_name("value"), n.child_by_field_name("name")
            call = unwrap(value) if value is not None else None
            if call is None or call.type != "call_expression" or bound is None:
                continue
            args = call.child_by_field_name("arguments")
            if args is not None and any(
                a.type == "object" and "messages" in object_pairs(src, a)
                for a in args.named_children
            ):
                out |= {src.text(x) for x in walk(bound) if x.type == "identifier"}
    return out


def _has_role(src: Source, array: Node, assigned: dict[str, list[Node]] | None = None) -> bool:
    """Whether an array literal holds a message object (`{ role: "system", content }`), as
    written or by a local bound to one."""
    items = [_named_item(src, c, assigned) for c in array.named_children]
    return any(c.type == "object" and "role" in object_pairs(src, c) for c in items)
