"""PL302 in TypeScript: the tool list changed between the requests of one turn. Two shapes:

- one function sends the same conversation twice with different tools: a tool loop followed
  by a final request with no tools (`callModel({ tools, messages })`, then
  `callModel({ response_format, messages })`), or a follow-up chained to the first response
  (`previous_response_id: response.id`) with a shorter list;
- a tool list emptied by the loop's step or by the request's own classification
  (`iterations < MAX_DEPTH ? tools : []`, `classification.useTools ? tools : undefined`).

Tools come first in the prefix, so every request after the change misses the whole cache.
Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..meaning import words
from .syntax import FUNCTIONS, Source, arguments, bindings, key_name, scope_of, unwrap, walk

# Keys of a request object that carry the conversation.
_CONVERSATION_KEYS = frozenset({"messages", "input", "history", "contents"})
# Keys that chain a request to the one before it (the Responses API's stored conversation).
_CHAIN_KEYS = frozenset({"previous_response_id", "previousResponseId"})
# Words of a loop's step counter, or of the verdict a classifier gave on this request.
_STEP = frozenset({"iteration", "iterations", "depth", "step", "steps", "turn", "round"})
_VERDICT = frozenset({"classification", "classified", "complexity", "intent", "routing"})
_EMPTY = frozenset({"[]", "undefined", "null", "{}"})
_COMPARE = frozenset({"<", "<=", ">", ">=", "==", "===", "!=", "!=="})


def _request(src: Source, call: Node) -> dict[str, Node] | None:
    """The pairs of a call's request object, where it carries a conversation."""
    for a in arguments(call):
        a = unwrap(a)
        if a.type != "object":
            continue
        pairs: dict[str, Node] = {}
        for p in a.named_children:
            if p.type == "pair":
                key = key_name(src, p.child_by_field_name("key"))
                if key:
                    pairs[key] = p
            elif p.type == "shorthand_property_identifier":
                pairs[src.text(p)] = p
        if _CONVERSATION_KEYS & pairs.keys():
            return pairs
    return None


def _value_text(src: Source, pair: Node) -> str:
    if pair.type == "shorthand_property_identifier":
        return src.text(pair)
    value = pair.child_by_field_name("value")
    return src.text(value) if value is not None else ""


def _result_name(call: Node, src: Source) -> str | None:
    """`response` in `const response = await client.create(...)`."""
    p = call.parent
    if p is not None and p.type == "await_expression":
        p = p.parent
    if p is not None and p.type == "variable_declarator":
        name = p.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            return src.text(name)
    return None


def _same_turn(src: Source, first: tuple[Node, dict[str, Node]], later: dict[str, Node]) -> bool:
    """The later request goes on with the first one's conversation: the same history value,
    or chained to the first response."""
    call, pairs = first
    for key in _CONVERSATION_KEYS & pairs.keys() & later.keys():
        text = _value_text(src, pairs[key])
        if text and text == _value_text(src, later[key]) and not text.startswith("["):
            return True
    result = _result_name(call, src)
    for key in _CHAIN_KEYS & later.keys():
        chained = _value_text(src, later[key])
        if result and chained.startswith(result + "."):
            return True
    return False


def check_tools_between_calls(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for fn in walk(src.root):
        if fn.type not in FUNCTIONS:
            continue
        calls: dict[str, list[tuple[Node, dict[str, Node]]]] = {}
        for n in walk(fn):
            if n.type != "call_expression" or scope_of(n).id != fn.id:
                continue
            callee = n.child_by_field_name("function")
            pairs = _request(src, n)
            if callee is None or pairs is None:
                continue
            calls.setdefault(src.text(callee), []).append((n, pairs))
        for name, group in calls.items():
            with_tools = [c for c in group if "tools" in c[1]]
            if not with_tools:
                continue
            first = with_tools[0]
            tools = _value_text(src, first[1]["tools"])
            for call, pairs in group:
                if call.start_byte <= first[0].start_byte or not _same_turn(src, first, pairs):
                    continue
                mine = _value_text(src, pairs["tools"]) if "tools" in pairs else None
                if mine == tools:
                    continue
                where = pairs["tools"] if mine is not None else call
                other = "no tools" if mine is None else "another tool list"
                out.append(
                    src.finding(
                        where,
                        "PL302",
                        f"`{name}` sends the same conversation with {other} here, unlike at line "
                        f"{src.pos(first[0])[0]}: the tool definitions, the first part of the "
                        "prefix, change between the requests of one turn and each misses the "
                        "cache; send the same tools and restrict them by `tool_choice` or by "
                        "instruction",
                    )
                )
    return out


def _step_or_verdict(src: Source, cond: Node) -> Node | None:
    """The loop's step compared with a limit (`iterations < MAX_DEPTH`), or the verdict a
    classifier gave on this request (`classification.useTools`), read in a condition."""
    for x in walk(cond):
        if x.type not in ("identifier", "property_identifier"):
            continue
        ws = set(words(src.text(x)))
        if ws & _VERDICT:
            return x
        p = x.parent
        while p is not None and p.type == "member_expression":
            p = p.parent
        compared = (
            p is not None
            and p.type == "binary_expression"
            and any(src.text(o) in _COMPARE for o in p.children if not o.is_named)
        )
        if ws & _STEP and compared:
            return x
    return None


def check_tools_emptied_by_step(src: Source) -> list[Finding]:
    out: list[Finding] = []
    for _, value in bindings(src, "tools"):
        v = unwrap(value)
        if v.type != "ternary_expression":
            continue
        cond = v.child_by_field_name("condition")
        branches = [v.child_by_field_name("consequence"), v.child_by_field_name("alternative")]
        if cond is None or not any(b is not None and src.text(b) in _EMPTY for b in branches):
            continue
        by = _step_or_verdict(src, cond)
        kept = next((b for b in branches if b is not None and src.text(b) not in _EMPTY), None)
        # `event.tools ? describe(event.tools) : []`: a list present or not, no choice
        if by is None or (kept is not None and src.text(cond) in src.text(kept)):
            continue
        out.append(
            src.finding(
                v,
                "PL302",
                f"the tool list is sent or left out by `{src.text(by)}`, which changes between "
                "the requests of one conversation: the tool definitions, the first part of the "
                "prefix, change and every request after the change misses the cache; send the "
                "same tools and stop tool calls by `tool_choice` or by instruction",
            )
        )
    return out
