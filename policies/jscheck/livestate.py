"""PL106 in TypeScript/JavaScript: the app's live state, read when a message is sent, written into
the system prompt that heads the conversation. Two readings of the same cause:

    const { events } = useCalendar();            // a component's custom hook: the app's state
    const system = `Current events: ${JSON.stringify(events)}`;
    messages: [{ role: "system", content: system }, ...messages, { role: "user", content }]

    function editorStatePrompt(ctx) { const s = ctx.getState(); return [...].join("\\n"); }
    function buildAgentSystemPrompt(ctx) { return assemble([...], editorStatePrompt(ctx)); }

A store's snapshot (`store.getState()`, as zustand, redux and editor contexts give it) or a
value a component's own hook returns is whatever the app shows right now: the events the
assistant's own tools just created, the timeline it just edited. Read again for each message and
placed before the replayed history, every change to it rewrites the prefix and the whole history
after it is sent again uncached. Left alone: values placed after the history (in the newest user
message), a system message with no history after it (one-shot work), what a hook gives that is
fixed for the session (the signed-in user, settings, a translator) and functions a hook returns.
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from .structure import is_history
from .syntax import (
    FUNCTIONS,
    Source,
    callee_name,
    function_name,
    function_of,
    key_name,
    string_value,
    unwrap,
    walk,
)

# A component's own hook (`useCalendar`, `useEditorStore`); React's and routers' hooks give
# state the component keeps (its history, its refs) or settings, not the app's live records.
_HOOK = re.compile(r"^use[A-Z]\w*$")
_HOOK_CALL = re.compile(rb"\b(use[A-Z]\w*)\s*\(")
_BUILTIN_HOOKS = frozenset(
    {
        "useState",
        "useRef",
        "useMemo",
        "useCallback",
        "useEffect",
        "useLayoutEffect",
        "useId",
        "useTransition",
        "useDeferredValue",
        "useReducer",
        "useImperativeHandle",
        "useTranslation",
        "useRouter",
        "useNavigate",
        "useParams",
        "useSearchParams",
        "usePathname",
        "useTheme",
        "useToast",
        "useForm",
    }
)
# What a hook gives that is fixed for the session, or no state at all: the signed-in user,
# settings, a translator, a client handle, the chat itself.
_SETTLED = frozenset(
    {"user", "users", "auth", "session", "settings", "config", "preferences", "prefs"}
    | {"profile", "persona", "locale", "language", "lang", "theme", "model", "options"}
    | {"client", "api", "t", "i18n", "id", "name", "loading", "error", "token", "key"}
    | {"prompt", "instructions", "template", "input", "timezone", "tz", "zone"}
    | HISTORY_WORDS
)
_WHY = (
    "`{name}` is the app's live state ({source}, line {line}), read when the message is sent "
    "and written into the system prompt ahead of the conversation history: each change to it "
    "(an edit the user or the agent's own tools make) rewrites the prefix and the whole history "
    "after it is sent again uncached; put it in the newest user message"
)


def _system_builder(name: str) -> bool:
    ws = set(words(name))
    return "system" in ws and bool(ws & {"prompt", "message", "instructions", "instruction"})


def _state_read(src: Source, value: Node) -> str | None:
    """What a declarator's value reads the app's state from: a store's snapshot
    (`ctx.getState()`) or a component's own hook (`useCalendar()`); None otherwise."""
    v = unwrap(value)
    if v.type == "as_expression" and v.named_children:
        v = unwrap(v.named_children[0])  # `useCalendar() as any`
    if v.type == "member_expression":
        v = unwrap(v.child_by_field_name("object") or v)  # `useStore.getState().items`
    if v.type != "call_expression":
        return None
    name = callee_name(src, v)
    fn = v.child_by_field_name("function")
    if name == "getState" and fn is not None and fn.type == "member_expression":
        return f"`{src.text(fn)}()`"
    if (
        fn is not None
        and fn.type == "identifier"
        and _HOOK.match(name)
        and name not in _BUILTIN_HOOKS
        and not set(words(name)) & _SETTLED
    ):
        return f"`{name}()`"
    return None


def _live_names(src: Source) -> dict[int, dict[str, tuple[int, str]]]:
    """The locals bound to the app's live state, by the id of the function that declares them,
    with the line and what they read: `const s = ctx.getState()`, `const { events } =
    useCalendar()`; a name the file calls is a function the hook hands back, not state."""
    called = {
        src.text(c.child_by_field_name("function"))
        for c in walk(src.root)
        if c.type == "call_expression"
    }
    out: dict[int, dict[str, tuple[int, str]]] = {}
    for d in walk(src.root):
        if d.type != "variable_declarator":
            continue
        value, pattern = d.child_by_field_name("value"), d.child_by_field_name("name")
        fn = function_of(d)
        if value is None or pattern is None or fn is None:
            continue
        source = _state_read(src, value)
        if source is None:
            continue
        names: list[Node | None]
        if pattern.type == "identifier":
            names = [pattern]
        elif pattern.type == "object_pattern":
            names = [
                (c.child_by_field_name("value") if c.type == "pair_pattern" else c)
                for c in pattern.named_children
            ]
        else:
            continue
        for n in names:
            if n is None or n.type not in ("identifier", "shorthand_property_identifier_pattern"):
                continue
            name = src.text(n)
            if name in called or set(words(name)) & _SETTLED:
                continue
            out.setdefault(fn.id, {})[name] = (src.pos(d)[0], source)
    return out


def _reads(src: Source, node: Node, names: dict[str, tuple[int, str]]) -> list[Node]:
    """Each read of one of `names` in a substitution of a template (or an operand of a
    concatenation) under `node`, the first of each name."""
    out: list[Node] = []
    for n in walk(node):
        if n.type != "identifier" or src.text(n) in {src.text(x) for x in out}:
            continue
        if src.text(n) in names:
            p = n.parent
            while p is not None and p.id != node.id:
                if p.type in ("template_substitution", "binary_expression"):
                    out.append(n)
                    break
                p = p.parent
    return out


def _text_of(src: Source, fn: Node, value: Node) -> Node:
    """A local's template where `value` names it (`content: systemPrompt`)."""
    v = unwrap(value)
    if v.type != "identifier":
        return v
    for d in walk(fn):
        if d.type == "variable_declarator" and src.text(d.child_by_field_name("name")) == src.text(
            v
        ):
            got = d.child_by_field_name("value")
            if got is not None:
                return unwrap(got)
    return v


def _spreads_history(src: Source, node: Node) -> bool:
    """`...messages`, `...history.map(...)`, `...messages.filter(...).map(...)`."""
    if node.type != "spread_element":
        return False
    inner = unwrap(node.named_children[0]) if node.named_children else None
    while inner is not None and inner.type == "call_expression":
        f = inner.child_by_field_name("function")
        inner = f.child_by_field_name("object") if f is not None else None
    return inner is not None and is_history(src, inner)


def _system_ahead(src: Source) -> list[Node]:
    """The texts the file sends as a system prompt with a history after it: a `{ role:
    "system" }` message of an array literal that spreads a history later, or `system:` beside a
    `messages:` history."""
    out: list[Node] = []
    for n in walk(src.root):
        if n.type == "array":
            items = n.named_children
            for i, item in enumerate(items):
                obj = unwrap(item)
                if obj.type != "object":
                    continue
                pairs = _pairs(src, obj)
                if string_value(src, pairs.get("role")) != "system":
                    continue
                content = pairs.get("content")
                if content is not None and any(_spreads_history(src, c) for c in items[i + 1 :]):
                    out.append(content)
        elif n.type == "object":
            pairs = _pairs(src, n)
            system, messages = pairs.get("system"), pairs.get("messages")
            if system is None or messages is None:
                continue
            m = unwrap(messages)
            if is_history(src, m) or (
                m.type == "array" and any(_spreads_history(src, c) for c in m.named_children)
            ):
                out.append(system)
    return out


def _pairs(src: Source, obj: Node) -> dict[str | None, Node | None]:
    return {
        key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
        for p in obj.named_children
        if p.type == "pair"
    }


def _returns_text(src: Source, fn: Node) -> bool:
    """A function whose result is text: a template, a concatenation, a `join`."""
    body = fn.child_by_field_name("body")
    if body is None:
        return False
    rets = [body] if body.type != "statement_block" else []
    rets += [
        r.named_children[0] for r in walk(body) if r.type == "return_statement" and r.named_children
    ]
    for r in rets:
        r = unwrap(r)
        if r.type in ("template_string", "binary_expression"):
            return True
        if r.type == "call_expression" and callee_name(src, r) == "join":
            return True
    return False


def _functions(src: Source) -> dict[str, Node]:
    out: dict[str, Node] = {}
    for n in walk(src.root):
        if n.type in FUNCTIONS and (name := function_name(src, n)):
            out.setdefault(name, n)
    return out


def _scopes(fn: Node | None) -> list[Node]:
    """`fn` and the functions around it, innermost first."""
    out: list[Node] = []
    while fn is not None:
        out.append(fn)
        fn = function_of(fn)
    return out


def check_live_state(src: Source) -> list[Finding]:
    out: list[Finding] = []
    data = src.data
    hooks = {m.decode() for m in _HOOK_CALL.findall(data)} - _BUILTIN_HOOKS
    if b"system" not in data.lower() or not (b"getState" in data or hooks):
        return out  # no system prompt, or no live state read in the file: skip the walks
    bound = _live_names(src)
    if not bound:
        return out
    seen: set[int] = set()

    def report(at: Node, name: str, line: int, source: str) -> None:
        here = src.pos(at)[0]
        if here not in seen:
            seen.add(here)
            out.append(src.finding(at, "PL106", _WHY.format(name=name, source=source, line=line)))

    # A system message ahead of the history whose text reads a live local of its function or
    # of one around it (the component whose hook a nested send handler reads).
    for sent in _system_ahead(src):
        fn = function_of(sent)
        live: dict[str, tuple[int, str]] = {}
        for scope in reversed(_scopes(fn)):
            live.update(bound.get(scope.id, {}))
        if live and fn is not None:
            for hit in _reads(src, _text_of(src, fn, sent), live):
                line, source = live[src.text(hit)]
                report(hit, src.text(hit), line, source)
    # A function that reads a store's snapshot and returns text (a state section of a prompt),
    # called by a builder of the file named for the system prompt.
    sections: dict[str, tuple[int, str]] = {}
    for name, fn in _functions(src).items():
        snapshots = [v for v in bound.get(fn.id, {}).values() if "getState" in v[1]]
        if snapshots and _returns_text(src, fn):
            sections[name] = snapshots[0]
    if not sections:
        return out
    for c in walk(src.root):
        f = c.child_by_field_name("function") if c.type == "call_expression" else None
        if f is None or f.type != "identifier" or src.text(f) not in sections:
            continue
        caller = function_of(c)
        if caller is not None and _system_builder(function_name(src, caller)):
            line, source = sections[src.text(f)]
            report(c, f"{src.text(f)}()", line, source)
    return out
