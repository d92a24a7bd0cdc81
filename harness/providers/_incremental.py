"""The incremental part of request building: per-message wire dicts and cache units, computed
once and reused, so a turn costs the new content, not the whole context.

A builder turns each transcript message into wire dicts and unit data once (memoized on the
frozen Message). The chained hashes depend on everything before them, so they live here, in a
memo of the last transcript built: messages that are the same objects as last time, after the
same prefix, keep their units; only the rest is hashed. Editing the past is a fork, which gives
new Message objects from the fork point on, so the identity check is enough.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cacheunits import Section, Unit
from ..canonical import chain_hash
from ..transcript import Message


@dataclass(frozen=True, slots=True)
class MessageParts:
    """One message on the wire: its wire dicts and what the cache hashes of it."""

    wire: tuple[dict[str, Any], ...]
    units: tuple[tuple[Section, bytes, int], ...]  # (section, hashed bytes, tokens)


class ChainMemo:
    """Units and wire dicts of the last transcript built after one prefix (`seed`)."""

    __slots__ = (
        "_base_pos",
        "_base_total",
        "_convert",
        "_ends",
        "_messages",
        "_seed",
        "_units",
        "_wire",
        "_wire_ends",
    )

    def __init__(self, convert: Callable[[Message], MessageParts]) -> None:
        self._convert = convert
        self._seed = ""
        self._base_pos = 0
        self._base_total = 0
        self._messages: list[Message] = []
        self._units: list[Unit] = []
        self._ends: list[int] = []  # len(self._units) after message i
        self._wire: list[dict[str, Any]] = []
        self._wire_ends: list[int] = []

    def sync(
        self, messages: Sequence[Message], seed: str, base_pos: int, base_total: int
    ) -> None:
        """Bring the memo up to `messages` after a prefix whose chain is `seed`."""
        if (seed, base_pos, base_total) != (self._seed, self._base_pos, self._base_total):
            self._seed, self._base_pos, self._base_total = seed, base_pos, base_total
            self._truncate(0)
        keep = 0
        mine = self._messages
        limit = min(len(mine), len(messages))
        while keep < limit and mine[keep] is messages[keep]:
            keep += 1
        if keep < len(mine):
            self._truncate(keep)
        chain = self.chain_after(keep)
        total = self.total_after(keep)
        units = self._units
        for m in messages[keep:]:
            parts = self._convert(m)
            for section, data, tokens in parts.units:
                chain = chain_hash(chain, data)
                total += tokens
                units.append(Unit(section, self._base_pos + len(units), chain, tokens, total))
            self._messages.append(m)
            self._ends.append(len(units))
            self._wire.extend(parts.wire)
            self._wire_ends.append(len(self._wire))

    def _truncate(self, n: int) -> None:
        self._units = self._units[: self._ends[n - 1]] if n else []
        self._wire = self._wire[: self._wire_ends[n - 1]] if n else []
        del self._messages[n:], self._ends[n:], self._wire_ends[n:]

    def chain_after(self, n: int) -> str:
        """Chain through message n-1 (the seed for n == 0)."""
        return self._units[self._ends[n - 1] - 1].chain if n and self._ends[n - 1] else (
            self._seed if n == 0 else self.chain_after(n - 1)
        )

    def total_after(self, n: int) -> int:
        if n == 0:
            return self._base_total
        end = self._ends[n - 1]
        return self._units[end - 1].end if end else self.total_after(n - 1)

    @property
    def units(self) -> list[Unit]:
        return self._units

    @property
    def wire(self) -> list[dict[str, Any]]:
        return self._wire

    def message_unit_range(self, i: int) -> tuple[int, int]:
        """Indexes into `units` of message i's units (start, stop)."""
        return (self._ends[i - 1] if i else 0), self._ends[i]

    def message_wire_range(self, i: int) -> tuple[int, int]:
        return (self._wire_ends[i - 1] if i else 0), self._wire_ends[i]


def with_breakpoint(unit: Unit, ttl: str) -> Unit:
    return Unit(unit.section, unit.position, unit.chain, unit.tokens, unit.end, ttl)
