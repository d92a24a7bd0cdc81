"""The ceiling: how many tokens of a request the cache keeps readable for the next one.

What a later request could read at best, whatever it sends: where the cache writes at breakpoints,
the prefix up to the last breakpoint; where it stores whole blocks, the prompt in whole blocks.
Nothing under the model's minimum. The ledger (over the part two requests share) and the trace
report (over what a request left) both measure against it.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Sequence

from . import openai
from .units import Unit


def cacheable(tokens: int, minimum: int) -> int:
    """`tokens` if a prefix that long can be cached at all, else 0."""
    return tokens if tokens >= minimum else 0


def readable(
    units: Sequence[Unit], breakpoints: bool, minimum: int, upto: int | None = None
) -> int:
    """Tokens of the first `upto` units (all by default) that a later request can read.

    `breakpoints`: the cache writes only at breakpoints (`rules.writes_at_breakpoints`), so the
    last breakpoint among those units bounds it; else whole blocks from the model's minimum."""
    n = len(units) if upto is None else upto
    if n <= 0:
        return 0
    if breakpoints:
        for i in range(n - 1, -1, -1):  # breakpoints sit near the end: scan back
            if units[i].breakpoint is not None:
                return cacheable(units[i].end, minimum)
        return 0
    tokens = units[n - 1].end
    return openai.cached_tokens(tokens // openai.BLOCK_TOKENS, tokens, minimum)
