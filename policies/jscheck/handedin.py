"""PL304 in a prompt builder's own file: what a caller in another file hands it per request,
written into the prompt it returns. The route reads the request (`const { goals } = await
req.json()`) and calls `getChatPrompt({ tone: "calm", goals })` for its `system`; the builder,
in its own module, writes `${options.goals.join("\n")}` into the text. The importing file's own
PL304 finding (its one-off and reach gates applied) says the value is per request and reaches a
system prompt ahead of the history; this reports it in the builder too, at the first line
where that argument's text enters a template or a concatenation, naming the caller. A user who
lints only the builder (a pre-commit hook on changed files) otherwise sees nothing, though the
line that puts the value ahead of the history is here.

Only what the caller hands per request is followed: of an object literal argument, the keys
whose values are not literal text (`tone: "calm"` is fixed, `goals` is not); of any other
argument, the whole parameter. Pure: the importing files come through the importers' search
and the check the engine passes.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .placedelsewhere import (
    _MAX_IMPORTERS,
    _SYSTEM_SINK,
    Check,
    _exported_names,
    _line_text,
    _shown,
)
from .reach import Importers
from .secondsystem import _SETTLED as SETTLED
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    key_name,
    object_pairs,
    parse,
    string_value,
    unwrap,
    walk,
)

# A builder named for a prompt's text (`getSystemPrompt`, `buildChatPrompt`, `instructionsFor`).
_PROMPT_WORDS = frozenset({"prompt", "system", "instructions", "instruction", "persona"})
_SINK = re.compile(r"is written into `([^`]+)`")
# Values a caller writes out: the same on every call.
_LITERALS = frozenset({"string", "number", "true", "false", "null", "undefined"})


def _builders(src: Source) -> dict[str, Node]:
    """This file's exported functions named for a prompt, by name."""
    exported = {n for n in _exported_names(src) if set(words(n)) & _PROMPT_WORDS}
    out: dict[str, Node] = {}
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        name = fn.child_by_field_name("name")
        if name is None and fn.parent is not None and fn.parent.type == "variable_declarator":
            name = fn.parent.child_by_field_name("name")
        if name is not None and src.text(name) in exported:
            out.setdefault(src.text(name), fn)
    return out


def _params(fn: Node) -> list[Node]:
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if params is None:
        return []
    if params.type == "identifier":
        return [params]
    out = []
    for p in params.named_children:
        pat = p.child_by_field_name("pattern") or p
        if pat.type == "assignment_pattern":
            pat = pat.child_by_field_name("left") or pat
        out.append(pat)
    return out


def _handed(src: Source, arg: Node) -> set[str] | None:
    """What an argument brings that may differ per call: the keys of an object literal whose
    values are not literal text (an empty set: nothing), or None for the whole argument."""
    arg = unwrap(arg)
    if arg.type == "object":
        keys: set[str] = set()
        for c in arg.named_children:
            if c.type == "shorthand_property_identifier":
                keys.add(src.text(c))
            elif c.type == "pair":
                k = key_name(src, c.child_by_field_name("key"))
                v = c.child_by_field_name("value")
                if k is None or v is None:
                    continue
                if unwrap(v).type in _LITERALS or string_value(src, v) is not None:
                    continue
                keys.add(k)
        return keys
    if arg.type in _LITERALS or string_value(src, arg) is not None:
        return set()
    return None


def _in_text(node: Node) -> bool:
    """`node` is written into text: inside a template's `${...}` or a `+` of strings."""
    p = node.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "template_substitution":
            return True
        if (
            p.type == "binary_expression"
            and (op := p.child_by_field_name("operator")) is not None
            and op.type == "+"
            and any(c.type in ("string", "template_string") for c in p.children)
        ):
            return True
        if p.type in ("statement_block", "if_statement", "arguments"):
            # `if (ctx.user)`, `f(ctx.mode)`: read for a choice or handed on, not written here
            return p.type == "arguments" and _in_text(p)
        p = p.parent
    return False


def _settled(field: str) -> bool:
    """`customPrompt`, `persona`, `settings`: what the user set for the whole session, handed
    in again with each call but the same each time."""
    return bool(set(words(field)) & SETTLED)


def _first_use(src: Source, fn: Node, param: Node, keys: set[str] | None) -> Node | None:
    """The first place in `fn` where what the caller handed in through `param` is written
    into text: `${options.goals}` for the key `goals`, `${ctx.viewing}` for the whole
    argument; of a destructured parameter (`{ goals, tone }`), the names bound from the keys."""
    names: dict[str, str | None] = {}  # local name -> the key it is read by (None: any)
    if param.type == "identifier":
        names[src.text(param)] = None
    elif param.type == "object_pattern":
        for c in param.named_children:
            if c.type == "shorthand_property_identifier_pattern":
                names[src.text(c)] = src.text(c)
            elif c.type == "pair_pattern":
                k = key_name(src, c.child_by_field_name("key"))
                v = c.child_by_field_name("value")
                if k is not None and v is not None and v.type == "identifier":
                    names[src.text(v)] = k
    body = fn.child_by_field_name("body")
    if body is None:
        return None
    uses: list[Node] = []
    for n in walk(body):
        if n.type != "identifier" or src.text(n) not in names:
            continue
        key = names[src.text(n)]
        if key is None:
            # the whole parameter: a field read off it (`options.goals`, `ctx?.viewing`)
            parent = n.parent
            if parent is not None and parent.type == "member_expression":
                field = src.text(parent.child_by_field_name("property"))
                if (keys is not None and field not in keys) or _settled(field):
                    continue
            elif keys is not None:
                continue  # the object itself, of which only some keys vary
        elif (keys is not None and key not in keys) or _settled(key):
            continue
        if _in_text(n):
            uses.append(n)
    return min(uses, key=lambda u: u.start_byte) if uses else None


def _calls_at(other: Source, local: str, line: int, col: int) -> list[Node]:
    """Calls of `local` in `other` whose text holds the position (line, col) of a finding."""
    out = []
    for n in walk(other.root):
        if n.type != "call_expression":
            continue
        fn = n.child_by_field_name("function")
        if fn is None or other.text(unwrap(fn)) != local:
            continue
        start, end = n.start_point, n.end_point
        if (start[0] + 1, start[1] + 1) <= (line, col) <= (end[0] + 1, end[1] + 1):
            out.append(n)
    return out


def _one_shot(src: Source, call: Node) -> bool:
    """The builder's text is the `system` of a request object that sends one `prompt` and no
    `messages`: a one-off request, no history after the prompt."""
    p = call.parent
    while p is not None and p.type not in FUNCTIONS:
        if p.type == "object":
            keys = set(object_pairs(src, p))
            if "system" in keys:
                return "prompt" in keys and not keys & {"messages", "input"}
        p = p.parent
    return False


def check_handed_in(src: Source, importers: Importers | None, check: Check) -> list[Finding]:
    """PL304 at the first line where a prompt builder of this file writes what an importing
    file hands it per request, where that file's own PL304 says the value reaches a system
    prompt ahead of the history."""
    if importers is None:
        return []
    builders = _builders(src)
    out: list[Finding] = []
    seen: set[int] = set()
    for name, fn in builders.items():
        found = importers(src.path, name)
        if len(found) > _MAX_IMPORTERS:
            continue
        params = _params(fn)
        for other, local in found:
            if not local:
                continue
            text = other.data.decode("utf-8", "replace")
            findings = [f for f in check(other.path, text) if f.code == "PL304"]
            if not findings:
                continue
            parsed = parse(other.path, text)
            for f in findings:
                sink = _SINK.search(f.message)
                if sink is None or not _SYSTEM_SINK.search(sink.group(1)):
                    continue
                for call in _calls_at(parsed, local, f.line, f.col):
                    if _one_shot(parsed, call):
                        continue
                    for i, arg in enumerate(arguments(call)[: len(params)]):
                        keys = _handed(parsed, arg)
                        if keys is not None and not keys:
                            continue
                        use = _first_use(src, fn, params[i], keys)
                        if use is None:
                            continue
                        line = src.pos(use)[0]
                        if line in seen:
                            continue
                        seen.add(line)
                        out.append(
                            Finding(
                                src.path,
                                line,
                                src.pos(use)[1],
                                "PL304",
                                f"`{src.text(use.parent or use)[:60]}`, handed to `{name}()` per "
                                f"request (line {f.line} of {_shown(other.path, src.path)}), is "
                                f"written into the prompt it returns, which that file sends as "
                                f"{sink.group(1)} ahead of the conversation history: the prefix "
                                "changes there whenever the value does and the whole history is "
                                "sent again uncached; put it in the newest user message",
                                source_line=_line_text(src, line),
                            )
                        )
    return out
