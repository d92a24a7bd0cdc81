"""A seeded mutator of valid files, for the parsers' fuzz tests (tests/*/test_*_fuzz.py) and
the reliability benchmark: each mutation is one of the faults real files and hostile inputs
show (a flipped bit, a cut, a duplicated or deleted span, nesting thousands of levels deep, a
lone surrogate, a number out of range, a wrong type where an object was), applied at a seeded
position, so a failure names its seed and mutation and is reproduced exactly."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

# What is spliced in at a random place (each one a fault a parser must survive).
SPLICES: tuple[bytes, ...] = (
    b"[" * 5_000,
    b'{"a":' * 3_000,
    b"[" * 100_000 + b"]" * 100_000,
    b'"\\ud800"',
    b'"\\udc00x"',
    b"1e999999",
    b"-1e308",
    b"99999999999999999999999999999999999999",
    b"1e400",
    b"NaN",
    b"Infinity",
    b"null",
    b"[]",
    b"{}",
    b'"x"',
    b"\xff\xfe",
    b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 (invalid)
    b"\x00",
    b"\n",
    b'"time": 1e20',
    b'"time": -62135596801',
    b'"usage": "x"',
    b'"body": []',
)


def _flip(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    at = rng.randrange(len(b))
    b[at] ^= 1 << rng.randrange(8)
    return bytes(b)


def _cut(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def _delete(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + data[at + rng.randrange(1, 64) :]


def _duplicate(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data))
    span = data[at : at + rng.randrange(1, 256)]
    return data[:at] + span * rng.randrange(2, 40) + data[at:]


def _splice(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(SPLICES) + data[at:]


def _replace_value(data: bytes, rng: random.Random) -> bytes:
    # A value after a colon swapped for a spliced one: keeps the line JSON more often, so the
    # mutation reaches the reader past json.loads.
    colons = [i for i, c in enumerate(data) if c == ord(":")]
    if not colons:
        return _splice(data, rng)
    at = rng.choice(colons) + 1
    end = at
    while end < len(data) and data[end] not in b",}\n":
        end += 1
    return data[:at] + rng.choice(SPLICES) + data[end:]


MUTATORS: tuple[Callable[[bytes, random.Random], bytes], ...] = (
    _flip,
    _cut,
    _delete,
    _duplicate,
    _splice,
    _replace_value,
    _replace_value,
)


def mutations(data: bytes, count: int, seed: int = 0) -> Iterator[tuple[int, str, bytes]]:
    """`count` mutations of `data`: (index, mutator name, bytes), one to three faults each."""
    rng = random.Random(seed)
    for i in range(count):
        out = data
        names = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            fn = rng.choice(MUTATORS)
            out = fn(out, rng) if out else out
            names.append(fn.__name__.lstrip("_"))
        yield i, "+".join(names), out
