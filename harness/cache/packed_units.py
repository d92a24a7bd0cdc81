"""A conversation's cache units packed end to end, and a request's units read through them.

A request names a unit per block of its conversation, and the builder's chain memo keeps them
for the conversation's life (prefixlock.providers._incremental). As `Unit` objects (~80 bytes
each, the collector's header included) in the memo's list and in the newest request's tuple a
long chat held ~100 bytes a block; packed, a unit is its 31 bytes in one buffer (`UnitBuffer`),
and a request's units (`PackedUnits`) are the prefix's units, a length of that buffer, the few
units the request marks, and its volatile units after them: `Unit`s are made as they are read.

`PackedUnits` is a tuple (a request's `units` is one), whose own storage is empty: every read
goes through its methods (length, items, slices, iteration, equality, hashing, copying). The
buffer is only appended to while a request may read it; the memo cuts it by making a new one.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, SupportsIndex, overload

from .unit import Unit

_RECORD = 31  # a unit's bytes with a digest chain and the usual codes (`Unit`'s short form)
_NONE: Mapping[int, Unit] = {}


class UnitBuffer:
    """Units appended end to end: each in `_RECORD` bytes, any other (a made-up chain, a label
    prefixlock does not know) kept as itself beside them."""

    __slots__ = ("_buf", "_n", "_odd")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._odd: dict[int, Unit] = {}
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def append(self, unit: Unit) -> None:
        if len(unit) == _RECORD:
            self._buf += unit
        else:
            self._odd[self._n] = unit
            self._buf += bytes(_RECORD)
        self._n += 1

    def __getitem__(self, i: int) -> Unit:
        """Unit `i` (0 <= i < len)."""
        if not 0 <= i < self._n:
            raise IndexError(f"unit {i} outside 0..{self._n - 1}")
        return _read(self._buf, self._odd, i)

    def __iter__(self) -> Iterator[Unit]:
        buf, odd = self._buf, self._odd
        for i in range(self._n):
            yield _read(buf, odd, i)

    def truncate(self, n: int) -> None:
        """Keep the first `n` units. A new buffer: requests made before read the old one."""
        if n < self._n:
            self._buf = self._buf[: n * _RECORD]
            self._odd = {i: u for i, u in self._odd.items() if i < n}
            self._n = n

    def units(
        self,
        head: tuple[Unit, ...] = (),
        marked: Mapping[int, Unit] = _NONE,
        tail: tuple[Unit, ...] = (),
    ) -> PackedUnits:
        """A request's units: `head`, then these units (by position, `marked` in their place),
        then `tail`."""
        odd = dict(self._odd) if self._odd else _NONE
        return PackedUnits._make(head, self._buf, self._n, odd, dict(marked), tail)


def _read(buf: bytearray, odd: Mapping[int, Unit], i: int) -> Unit:
    held = odd.get(i) if odd else None
    if held is not None:
        return held
    unit: Unit = bytes.__new__(Unit, buf[i * _RECORD : (i + 1) * _RECORD])
    return unit


class PackedUnits(tuple[Unit, ...]):
    """A request's units (see the module's docstring): a tuple whose items are made as read."""

    _head: tuple[Unit, ...]
    _buf: bytearray
    _n: int
    _odd: Mapping[int, Unit]
    _marked: Mapping[int, Unit]
    _tail: tuple[Unit, ...]

    @classmethod
    def _make(
        cls,
        head: tuple[Unit, ...],
        buf: bytearray,
        n: int,
        odd: Mapping[int, Unit],
        marked: Mapping[int, Unit],
        tail: tuple[Unit, ...],
    ) -> PackedUnits:
        self = tuple.__new__(cls)
        self._head, self._buf, self._n, self._odd = head, buf, n, odd
        self._marked, self._tail = marked, tail
        return self

    def __len__(self) -> int:
        return len(self._head) + self._n + len(self._tail)

    def __bool__(self) -> bool:
        return len(self) > 0

    def _at(self, i: int) -> Unit:
        h = len(self._head)
        if i < h:
            return self._head[i]
        held = self._marked.get(i) if self._marked else None
        if held is not None:
            return held
        if i < h + self._n:
            return _read(self._buf, self._odd, i - h)
        return self._tail[i - h - self._n]

    @overload
    def __getitem__(self, key: SupportsIndex) -> Unit: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[Unit, ...]: ...

    def __getitem__(self, key: SupportsIndex | slice) -> Unit | tuple[Unit, ...]:
        n = len(self)
        if isinstance(key, slice):
            return tuple(self._at(i) for i in range(*key.indices(n)))
        i = key.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("tuple index out of range")
        return self._at(i)

    def __iter__(self) -> Iterator[Unit]:
        yield from self._head
        h, n, buf, odd, marked = len(self._head), self._n, self._buf, self._odd, self._marked
        for j in range(n):
            held = marked.get(h + j) if marked else None
            yield held if held is not None else _read(buf, odd, j)
        for j, unit in enumerate(self._tail):
            held = marked.get(h + n + j) if marked else None
            yield held if held is not None else unit

    def marking(self, changes: Mapping[int, Unit | None]) -> PackedUnits:
        """These units with those at the positions in `changes` replaced (None: the unit as
        held, unmarked); each past the prefix's units."""
        h = len(self._head)
        marked = dict(self._marked)
        for i, unit in changes.items():
            if i < h:
                raise IndexError(f"unit {i} is the prefix's")
            if unit is None:
                marked.pop(i, None)
            else:
                marked[i] = unit
        return PackedUnits._make(self._head, self._buf, self._n, self._odd, marked, self._tail)

    def message_marks(self) -> tuple[int, ...]:
        """The positions this request marks past the prefix's units."""
        return tuple(self._marked)

    def __reversed__(self) -> Iterator[Unit]:
        for i in range(len(self) - 1, -1, -1):
            yield self._at(i)

    def __contains__(self, item: object) -> bool:
        return any(u == item for u in self)

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = 2**62) -> int:
        for i in range(*slice(start, stop).indices(len(self))):
            if self._at(i) == value:
                return i
        raise ValueError("tuple.index(x): x not in tuple")

    def count(self, value: Any) -> int:
        return sum(1 for u in self if u == value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, tuple) or len(self) != len(other):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: tuple[Unit, ...]) -> bool:
        return tuple(self) < tuple(other)

    def __le__(self, other: tuple[Unit, ...]) -> bool:
        return tuple(self) <= tuple(other)

    def __gt__(self, other: tuple[Unit, ...]) -> bool:
        return tuple(self) > tuple(other)

    def __ge__(self, other: tuple[Unit, ...]) -> bool:
        return tuple(self) >= tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: tuple[Any, ...]) -> tuple[Any, ...]:
        return (*self, *other)

    def __radd__(self, other: tuple[Any, ...]) -> tuple[Any, ...]:
        return (*other, *self)

    def __mul__(self, n: SupportsIndex) -> tuple[Unit, ...]:
        return tuple(self) * n

    __rmul__ = __mul__

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (tuple(self),))  # a plain tuple of the same units

    def __copy__(self) -> PackedUnits:
        return self  # immutable

    def __deepcopy__(self, memo: dict[int, Any]) -> PackedUnits:
        return self

    def __repr__(self) -> str:
        return repr(tuple(self))


def as_tuple(units: Sequence[Unit]) -> tuple[Unit, ...]:
    """`units` as a tuple: itself where it is one (a `PackedUnits` stays packed)."""
    return units if isinstance(units, tuple) else tuple(units)
