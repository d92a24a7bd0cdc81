"""DeepSeek's prompt cache: whole stored units, best effort.

A hit needs a full match of a stored prefix unit, and the longest one wins. A request whose
input reaches the minimum stores three units (at the end of each request's input and output, and
for common prefixes: docs/providers.md#deepseek-cache-units): its whole input, its input through
the reply as the client sends it back (`units.openai_reply_chain`), so the next turn reads through
the previous reply, and its fixed part (settings, system, tools), the prefix every later request
shares. The guard and the emulator both call these.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Sequence

from .units import Unit


def read(units: Sequence[Unit], present: Callable[[Unit], bool]) -> int:
    """Position of the longest unit of the request that is stored, or -1. `present(unit)` asks
    the cache (and may refresh the unit), from the last unit back until one is found."""
    for u in reversed(units):
        if present(u):
            return u.position
    return -1


def stored(units: Sequence[Unit], min_tokens: int, reply_chain: str | None = None) -> list[str]:
    """Chains of the units a request stores: its fixed part (when that alone reaches the
    minimum), its whole input, and its input through the reply (`reply_chain`, when known).
    Nothing when the input is under the minimum."""
    if not units or units[-1].end < min_tokens:
        return []
    out: list[str] = []
    fixed = [u for u in units if u.section != "messages"]
    if fixed and fixed[-1].end >= min_tokens:
        out.append(fixed[-1].chain)
    out.append(units[-1].chain)
    if reply_chain is not None:
        out.append(reply_chain)
    return out
