"""Prefixes of chained cache units: how far two requests agree, and what a cache write covers.

A unit's chain hashes it together with everything before it, so two requests share their first
n units exactly when their n-th chains are equal, and equality only ever stops once: the shared
length can be found by bisection. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .units import Unit


def shared_units(prev: Sequence[Unit], cur: Sequence[Unit]) -> int:
    """Number of leading units the two requests share (same chained hash)."""
    n = min(len(prev), len(cur))
    if n and prev[n - 1].chain == cur[n - 1].chain:
        return n  # the common case (same prefix, appended turn): one comparison
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if prev[mid - 1].chain == cur[mid - 1].chain:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(frozen=True, slots=True)
class Write:
    """One cache entry a request writes: at `unit`, kept `seconds` (refreshed by each hit).

    `tokens` is the span it adds, from the read point or the previous write up to `unit`: the
    written tokens a provider bills, split by the entry's TTL."""

    unit: Unit
    tokens: int
    seconds: float
