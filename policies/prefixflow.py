"""Where a write to a request's message list or system prompt lands, and whether it breaks the
cached prefix: the classification both front ends share once they have followed a model call's
`messages` / `system` argument back to the writes that made it.

Judged by position and flow, not by names. A write at the end (append, push, extend) only adds
after what is cached: fine. A write before the end (an earlier message rewritten, inserted,
dropped, reordered or filtered out) changes bytes an earlier request already sent: a breaker
where the list is the kept history; where it is a copy rebuilt per call, only where what is
written is made from what this request brings or from what changes per step (otherwise the
same history always yields the same bytes). A system prompt that comes before the history
and is made from what this request brings (the newest message, or the history itself)
differs per request.
Pure: facts in, a verdict and a message out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import TypeVar

_V = TypeVar("_V")


class Write(Enum):
    """What a write does to the list, by where it lands."""

    APPEND = "append"  # after every message: the cached prefix stays
    REWRITE = "rewrite"  # an earlier message replaced or edited
    INSERT = "insert"  # a message inserted before the end, after the head
    HEAD = "head"  # a message put at the head only where the head is not one already
    DROP = "drop"  # an earlier message removed (pop(0), del, shift, splice)
    REORDER = "reorder"  # the messages sorted or reversed
    FILTER = "filter"  # messages kept by a condition (a comprehension, filter)


def breaks(write: Write, *, kept: bool, varies: bool) -> bool:
    """Whether a write breaks the prefix: `kept` when it lands on the history kept between
    requests (not a per-call copy), `varies` when what it writes (or the condition it keeps
    by) is made from what this request brings or from what changes per step."""
    if write is Write.APPEND:
        return False
    if write is Write.HEAD:
        # Put first only where the list's head is not one already (`if m[0].role !=
        # "system"`): it goes in once, so a history kept between requests keeps its prefix;
        # only a message made per request changes it.
        return varies
    return kept or varies


_WHAT = {
    Write.REWRITE: "an earlier message of the history is rewritten",
    Write.INSERT: "a message is inserted before the end of the history",
    Write.HEAD: "a message made per request is put at the head of the history",
    Write.DROP: "an earlier message is dropped from the history",
    Write.REORDER: "the history is reordered",
    Write.FILTER: "messages are filtered out of the history",
}


def history_message(write: Write, code: str, *, kept: bool) -> str:
    """The PL303 message for a breaking write (`code`: the write, as written)."""
    how = "in the kept history" if kept else "with what this request brings, in the copy sent"
    return (
        f"{_WHAT[write]} (`{code}`, {how}) before the messages the model has cached: the "
        "prefix breaks there and the rest of the conversation is sent again uncached; add what "
        "changed as a new message at the end instead"
    )


def system_message(name: str, *, per_step: bool = False) -> str:
    """The PL304 message for a system prompt made from what this request brings, or (`per_step`)
    from what changes on each pass of the loop that sends it."""
    source = (
        "what changes on each pass of the loop that sends it (the loop's item, an earlier "
        "step's answer)"
        if per_step
        else "what this request brings (its newest message or the history)"
    )
    return (
        f"`{name}` is made from {source} and written into the system prompt, which comes "
        "before the conversation history: the prefix changes on every request and the whole "
        "history is sent again uncached; put it in the newest user message"
    )


def made_from(
    seeds: set[str],
    assigned: Mapping[str, Sequence[_V]],
    name: str,
    fed: Callable[[_V, set[str]], bool],
) -> set[str]:
    """The seeds and the locals made from them, to a fixed point: a local (not the list
    `name` itself) joins once one of the values written to it is `fed` by what is made."""
    made = set(seeds)
    changed = True
    while changed:
        changed = False
        for target, values in assigned.items():
            if target in made or target == name:
                continue
            if any(fed(v, made) for v in values):
                made.add(target)
                changed = True
    return made
