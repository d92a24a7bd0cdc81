"""PL302 in TypeScript: a system-prompt builder whose sections follow a mode its caller hands
in. `buildSystemPrompt(mode, ...)` that writes `Current mode: ${mode}`, pushes
`loadSection("approach-" + developmentMode)`, keeps a section only `if (mode !== "plan")`,
or calls a section builder with the mode (`buildModePromptSection(options.mode)`,
`creativeModePrompt(ctx.getCreativeMode())`), or lists the skills active for the message
(`buildSkillSection(options.activeSkillNames)`): the caller rebuilds the prompt when the user
switches modes or picks a skill, so the system prompt ahead of the same history changes from
that section on. The mode must come from the builder's own parameters (a parameter, a field of
one, or a getter called on one): a module constant or a local worked out inside is no choice of
the caller's. In any function, too, a system prompt appended under a test of such a mode
(`if (communicationMode === "sms") { systemInstruction += SMS_RULES }`). One finding per mode
value and function, at its first use. Pure: a syntax tree in,
findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .sinks import prefix_name
from .syntax import FUNCTIONS, Source, arguments, function_name, function_of, unwrap, walk

# Words of a builder that returns prompt text (`buildSystemPrompt`, `generatePrompt`,
# `buildModePromptSection`, `buildSystemInstructions`); not one that builds the user's turn or
# a message list, nor where the text is kept (`getSystemPromptFilePath`).
_BUILT = frozenset({"prompt", "preamble"})
_INSTRUCTIONS = frozenset({"instructions", "instruction"})
_OF_INSTRUCTIONS = frozenset({"system", "build", "compose", "assemble"})
_WHERE = frozenset({"path", "paths", "url", "dir", "directory", "key", "id", "name", "names"})
_NOT_PREFIX = frozenset({"user", "query", "question", "messages", "title", "summary", "image"})
# A mode the user switches (`developmentMode`, `mode`, `phase`); a skill picked for the message
# (`activeSkillNames`, `selectedSkill`).
_MODE = frozenset({"mode", "phase"})
_SKILL = frozenset({"skill", "skills"})
_PICKED = frozenset({"active", "selected", "current", "enabled"})
# Modes fixed for a client or a run, not switched by the user within a chat: how an override
# is applied, the output format, a permission level the process starts with.
_FIXED = frozenset({"override", "output", "format", "render", "stream", "dark", "theme", "debug"})
_COMPARE = frozenset({"===", "!==", "==", "!="})


def _mode_name(name: str) -> bool:
    ws = words(name)
    s = set(ws)
    if s & _FIXED or name[:1].isupper():
        return False
    return bool(s & _MODE) or (bool(s & _SKILL) and bool(s & _PICKED))


def _params(src: Source, fn: Node) -> set[str]:
    """The names a function's parameters bind (`mode`, `{ mode, skills }`, `opts = {}`)."""
    ps = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if ps is None:
        return set()
    out: set[str] = set()
    for n in walk(ps):
        if n.type in ("identifier", "shorthand_property_identifier_pattern"):
            p = n.parent
            # not a type's name (`mode: Mode`) nor a default value's names
            if p is not None and p.type in ("type_annotation", "type_identifier"):
                continue
            out.add(src.text(n))
    return out


def _mode_ref(src: Source, n: Node, params: set[str]) -> Node | None:
    """`n` as a mode handed in: a parameter named for one (`developmentMode`), a field of a
    parameter (`options.mode`, `opts.activeSkillNames`), or a getter called on a parameter
    (`ctx.getCreativeMode()`, `ctx.getMode?.()`)."""
    n = unwrap(n)
    if n.type == "call_expression" and not arguments(n):
        fn = n.child_by_field_name("function")
        if fn is None or unwrap(fn).type != "member_expression":
            return None
        fn = unwrap(fn)
        obj = unwrap(fn.child_by_field_name("object"))  # type: ignore[arg-type]
        prop = src.text(fn.child_by_field_name("property"))
        if obj.type == "identifier" and src.text(obj) in params and words(prop)[:1] == ["get"]:
            return n if _mode_name(prop) else None
        return None
    if n.type == "member_expression":
        obj = unwrap(n.child_by_field_name("object"))  # type: ignore[arg-type]
        prop = src.text(n.child_by_field_name("property"))
        if obj.type == "identifier" and src.text(obj) in params and _mode_name(prop):
            return n
        return None
    if n.type == "identifier" and src.text(n) in params and _mode_name(src.text(n)):
        return n
    return None


def _is_string(n: Node) -> bool:
    return unwrap(n).type in ("string", "template_string")


def _picks(src: Source, body: Node, params: set[str]) -> list[Node]:
    """Where the builder's text follows a handed-in mode: compared with a literal, tested as
    a condition, written into a template, handed to a section builder."""
    out: list[Node] = []
    stack = [body]
    while stack:
        n = stack.pop()
        t = n.type
        if t in FUNCTIONS and n.id != body.id:
            continue  # a callback's own logic is not this builder's
        ref: Node | None = None
        if t == "binary_expression":
            op = n.child_by_field_name("operator")
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if op is not None and src.text(op) in _COMPARE and left is not None and right:
                if _is_string(right):
                    ref = _mode_ref(src, left, params)
                elif _is_string(left):
                    ref = _mode_ref(src, right, params)
        elif t == "template_substitution" and n.named_children:
            ref = _mode_ref(src, n.named_children[0], params)
        elif t in ("ternary_expression", "if_statement"):
            cond = n.child_by_field_name("condition")
            if cond is not None:
                c = unwrap(cond)
                if c.type == "unary_expression" and c.named_children:
                    c = unwrap(c.named_children[0])
                ref = _mode_ref(src, c, params)
        elif t == "call_expression":
            for a in arguments(n):
                ref = _mode_ref(src, a, params)
                if ref is None and unwrap(a).type == "call_expression":
                    # `creativeModePrompt(findSkill(ctx.getCreativeMode()))`
                    for b in arguments(unwrap(a)):
                        ref = ref or _mode_ref(src, b, params)
                if ref is not None:
                    break
        if ref is not None:
            out.append(ref)
        stack.extend(reversed(n.children))
    return out


def _appended_per_mode(src: Source, body: Node, params: set[str]) -> list[Node]:
    """`if (communicationMode === "smartphone") { finalSystemInstruction += PROTOCOL }` in any
    function: a system prompt's text written under a test of a handed-in mode."""
    out: list[Node] = []
    for n in walk(body):
        if n.type != "if_statement":
            continue
        inner = function_of(n)  # in a callback defined in the function: runs apart from it
        if inner is not None and body.parent is not None and inner.id != body.parent.id:
            continue
        cond, then = n.child_by_field_name("condition"), n.child_by_field_name("consequence")
        if cond is None or then is None:
            continue
        refs = _picks(src, cond, params)
        if not refs:
            continue
        for a in walk(then):
            if a.type not in ("assignment_expression", "augmented_assignment_expression"):
                continue
            left = a.child_by_field_name("left")
            if left is not None and left.type == "identifier" and prefix_name(src.text(left)):
                out.append(refs[0])
                break
    return out


def check_mode_sections(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        name = function_name(src, fn)
        ws = set(words(name))
        built = ws & _BUILT or (ws & _INSTRUCTIONS and ws & _OF_INSTRUCTIONS)
        last = words(name)[-1:]
        builder = bool(built) and not ws & _NOT_PREFIX and not (last and last[0] in _WHERE)
        body = fn.child_by_field_name("body")
        params = _params(src, fn)
        if body is None or not params:
            continue
        picks = _picks(src, body, params) if builder else _appended_per_mode(src, body, params)
        told: set[str] = set()
        lines: set[int] = set()
        for ref in sorted(picks, key=lambda r: r.start_byte):
            text = src.text(ref)
            line = ref.start_point[0]
            if text in told or line in lines:
                continue
            told.add(text)
            lines.add(line)
            what = "the skills picked" if set(words(text)) & _SKILL else "the mode"
            where = f"`{name}()`" if builder else f"the system prompt built in `{name}()`"
            out.append(
                src.finding(
                    ref,
                    "PL302",
                    f"a section of {where} is chosen by `{text}`, {what} its caller hands "
                    "in: switching it within a conversation rebuilds the prompt from that "
                    "section on, and every request after the switch misses the cache; keep "
                    "one prompt and state the mode in the newest user turn",
                )
            )
    return out
