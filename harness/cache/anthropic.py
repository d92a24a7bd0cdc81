"""Anthropic's prompt cache: which entry a request reads and which entries it writes.

An entry is written only at a breakpoint (`cache_control`, TTL 5m or 1h) whose prefix reaches the
model's minimum; a request carries at most `MAX_BREAKPOINTS` of them; a read finds, from each such
breakpoint, the nearest earlier entry at most `LOOKBACK` (20) block positions back, and the
furthest of those wins; a longer TTL must come before a shorter one (`late_longer_ttl`)
(docs/providers.md#anthropic-breakpoints). The guard (its model of the
cache), the emulator (the cache it serves), the request builder and the proxy (where they place
breakpoints) all use these.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, get_args

from .prefix import Write
from .units import Unit

LOOKBACK = 20  # block positions a read looks back from each breakpoint
MAX_BREAKPOINTS = 4  # cache_control marks one request may carry (a top-level one included)
TTL = Literal["5m", "1h"]  # what a cache_control mark's `ttl` may say
DEFAULT_TTL: TTL = "5m"  # a mark without `ttl`
TTL_SECONDS: Mapping[str, float] = {"5m": 300.0, "1h": 3600.0}
TTL_LABELS: tuple[TTL, ...] = get_args(TTL)  # TTL_SECONDS's keys (a test keeps them equal)


def ttl_seconds(label: str | None) -> float:
    """Lifetime of an entry written at a breakpoint with TTL `label` (None: the default 5m)."""
    return TTL_SECONDS.get(label or DEFAULT_TTL, TTL_SECONDS[DEFAULT_TTL])


def shortest_ttl(labels: Iterable[str | None]) -> float:
    """How long what a request wrote stays whole without a hit: its shortest-lived entry's TTL
    (the default when it marked nothing)."""
    return min((ttl_seconds(label) for label in labels), default=TTL_SECONDS[DEFAULT_TTL])


def late_longer_ttl(labels: Iterable[str | None]) -> int | None:
    """Where the TTL order breaks: the index of the first of `labels` (the breakpoints' TTLs in
    processing order: tools, system, messages) that outlives a label before it, or None.

    A longer TTL must come before a shorter one, so Anthropic refuses a 1h mark after a 5m one.
    A label that is not a TTL (None included) counts as the default, as `ttl_seconds` reads it."""
    shortest = float("inf")
    for i, label in enumerate(labels):
        seconds = ttl_seconds(label)
        if seconds > shortest:
            return i
        shortest = min(shortest, seconds)
    return None


def eligible(units: Sequence[Unit], min_tokens: int) -> list[Unit]:
    """The breakpoints that can hold an entry: those whose prefix reaches the minimum."""
    return [u for u in units if u.breakpoint is not None and u.end >= min_tokens]


def read(
    units: Sequence[Unit],
    present: Callable[[Unit], bool],
    min_tokens: int,
    lookback: int = LOOKBACK,
) -> int:
    """Position of the unit whose entry the request reads, or -1.

    `present(unit)` asks the cache for the entry that ends at `unit` (and may refresh it); it is
    asked only where a later hit could still extend the read."""
    hit = -1
    for bp in eligible(units, min_tokens):
        for pos in range(bp.position, max(-1, bp.position - lookback), -1):
            if pos <= hit:
                break
            if present(units[pos]):
                hit = pos
                break
    return hit


def writes(units: Sequence[Unit], read_position: int, min_tokens: int) -> list[Write]:
    """The entries a request that read at `read_position` (-1: nothing) writes: one at each
    eligible breakpoint after it, spanning from the read point or the previous write."""
    out: list[Write] = []
    prev = units[read_position].end if read_position >= 0 else 0
    for bp in eligible(units[read_position + 1 :], min_tokens):
        out.append(Write(bp, bp.end - prev, ttl_seconds(bp.breakpoint)))
        prev = bp.end
    return out


def written(entries: Sequence[Write]) -> tuple[int, int]:
    """(5-minute, 1-hour) written tokens, as `cache_creation` reports them."""
    hour = sum(w.tokens for w in entries if w.unit.breakpoint == "1h")
    return sum(w.tokens for w in entries) - hour, hour
