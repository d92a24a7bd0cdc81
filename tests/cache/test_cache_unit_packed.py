"""A Unit is one packed bytes object: its fields read back as given, equal fields give equal
units (and hashes), and values prefixlock does not know (a made-up chain, another section or
mark) are kept in full."""

from __future__ import annotations

import copy
import pickle
import sys

from prefixlock.cache.units import IMPLICIT, Unit
from prefixlock.canonical import chain_hash


def _fields(u: Unit) -> tuple[object, ...]:
    return (u.section, u.position, u.chain, u.tokens, u.end, u.breakpoint)


def test_fields_read_back_as_given() -> None:
    chain = chain_hash("", b"x")
    cases = [
        ("messages", 300, chain, 5, 100_000, None),
        ("tools", 0, chain, 1200, 1200, "1h"),
        ("system", 1, chain, 7, 1207, "5m"),
        ("settings", 2, chain, 0, 1207, IMPLICIT),
        ("messages", 3, "prefix-3", 1, 2, "5m"),  # not a digest: kept as text
        ("other", 4, chain, 1, 2, "24h"),  # an unknown section and mark
        ("messages", 5, "", 0, 0, ""),
    ]
    for case in cases:
        u = Unit(*case)
        assert _fields(u) == case
        names = ("section", "position", "chain", "tokens", "end", "breakpoint")
        assert Unit(**dict(zip(names, case, strict=True))) == u  # type: ignore[arg-type]
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, case, strict=True))
        assert repr(u) == f"Unit({shown})"


def test_equal_fields_are_equal_units_and_copies_keep_the_class() -> None:
    chain = chain_hash("", b"x")
    a, b = Unit("messages", 1, chain, 2, 3), Unit("messages", 1, chain, 2, 3)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != Unit("messages", 1, chain, 2, 3, "5m")
    assert a != Unit("messages", 1, chain_hash("", b"y"), 2, 3)
    for again in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert type(again) is Unit and again == a


def test_a_usual_unit_is_small() -> None:
    # The dataclass it replaced, with its hex chain and two ints past 256, held ~240 bytes.
    assert sys.getsizeof(Unit("messages", 300, chain_hash("", b"x"), 5, 100_000)) <= 80
