"""Unit: one cacheable unit of a request, held packed in a single bytes object.

A request holds a unit per block of its conversation, and the builder's chain memo keeps them
for the conversation's life, so a long chat holds one per block it ever sent. As a slotted
dataclass a unit cost ~240 bytes (the object, two int objects past 256 and an 81-byte hex
string for its chain); packed, it is one ~80-byte object. The fields read as before (`chain`
is the hex string, made on each read); equal fields give equal bytes, so equality and hashing
are by value, as the dataclass's were.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import struct
from typing import Any

# The usual values, stored as a one-byte code; anything else is stored as its text.
_SECTIONS = ("tools", "system", "messages", "settings")
_MARKS = (None, "5m", "1h", "implicit")
_GENERAL = 255  # a code meaning: the value is in the text tail
# position, tokens, end; section code, breakpoint code; whether the chain is a 16-byte digest.
_HEAD = struct.Struct("<IIIBB?")  # tokens fit 32 bits: no context window nears 4e9
_POSITION_AT, _TOKENS_AT, _END_AT = 0, 4, 8  # the counts' offsets in the head
_SECTION_AT, _MARK_AT, _DIGEST_AT = 12, 13, 14  # the codes' offsets in the head
_COUNT = struct.Struct("<I")  # one count of the head
_TEXT_LENGTHS = struct.Struct("<III")  # the general form: lengths of section, chain, breakpoint
_HEX = frozenset("0123456789abcdef")


def _is_digest_hex(chain: str) -> bool:
    return len(chain) == 32 and _HEX.issuperset(chain)


class Unit(bytes):
    """One cacheable unit of a request: its section, position among the request's units, the
    chained hash of it and everything before it, its tokens, the running total through it, and
    the breakpoint it carries ("5m" | "1h" | ...; None: none)."""

    __slots__ = ()

    def __new__(
        cls,
        section: str,
        position: int,
        chain: str,
        tokens: int,
        end: int,
        breakpoint: str | None = None,
    ) -> Unit:
        s = _SECTIONS.index(section) if section in _SECTIONS else _GENERAL
        b = _MARKS.index(breakpoint) if breakpoint in _MARKS else _GENERAL
        digest = _is_digest_hex(chain) and s != _GENERAL and b != _GENERAL
        head = _HEAD.pack(position, tokens, end, s, b, digest)
        if digest:
            return super().__new__(cls, head + bytes.fromhex(chain))
        # Rare (a test's made-up chain, a label prefixlock does not know): the text, in full.
        texts = [
            section.encode() if s == _GENERAL else b"",
            chain.encode(),
            (breakpoint or "").encode() if b == _GENERAL else b"",
        ]
        lengths = _TEXT_LENGTHS.pack(*map(len, texts))
        return super().__new__(cls, head + lengths + b"".join(texts))

    def _texts(self) -> tuple[str, str, str]:
        """The general form's section, chain and breakpoint texts."""
        n_section, n_chain, n_mark = _TEXT_LENGTHS.unpack_from(self, _HEAD.size)
        at = _HEAD.size + _TEXT_LENGTHS.size
        raw = bytes(self[at:])
        return (
            raw[:n_section].decode(),
            raw[n_section : n_section + n_chain].decode(),
            raw[n_section + n_chain : n_section + n_chain + n_mark].decode(),
        )

    @property
    def section(self) -> str:
        code = self[_SECTION_AT]
        return _SECTIONS[code] if code != _GENERAL else self._texts()[0]

    def _count(self, at: int) -> int:
        """The head's unsigned 32-bit field at byte `at` (position, tokens or end)."""
        value: int = _COUNT.unpack_from(self, at)[0]
        return value

    @property
    def position(self) -> int:
        """Index among all units of the request."""
        return self._count(_POSITION_AT)

    @property
    def chain(self) -> str:
        """Hash of this unit and everything before it (hex)."""
        if self[_DIGEST_AT]:
            return self[_HEAD.size :].hex()
        return self._texts()[1]

    @property
    def tokens(self) -> int:
        """Tokens in this unit."""
        return self._count(_TOKENS_AT)

    @property
    def end(self) -> int:
        """Tokens from the start of the request through this unit."""
        return self._count(_END_AT)

    @property
    def breakpoint(self) -> str | None:
        """ "5m" | "1h" | ... where this unit carries a breakpoint (None: none)."""
        code = self[_MARK_AT]
        return _MARKS[code] if code != _GENERAL else self._texts()[2]

    def with_breakpoint(self, breakpoint: str | None) -> Unit:
        """This unit carrying `breakpoint` instead (None: none); the other fields as they are."""
        return Unit(self.section, self.position, self.chain, self.tokens, self.end, breakpoint)

    def __reduce__(self) -> tuple[Any, ...]:
        # copy and pickle rebuild it from its fields (bytes' own reduce would drop the class).
        return (
            Unit,
            (self.section, self.position, self.chain, self.tokens, self.end, self.breakpoint),
        )

    def __repr__(self) -> str:
        return (
            f"Unit(section={self.section!r}, position={self.position!r}, chain={self.chain!r}, "
            f"tokens={self.tokens!r}, end={self.end!r}, breakpoint={self.breakpoint!r})"
        )

    __str__ = __repr__
