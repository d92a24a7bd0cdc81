"""Where each value of a JSON document sits in its bytes, so that a repair can insert a field
without re-serializing (and so re-spacing, re-escaping or re-ordering) anything the client sent.

Pure. `spans(raw, depth)` maps a path (keys and indexes from the root) to the byte range of its
value, for every value down to `depth` levels. A string is skipped by searching for its closing
quote, so the scan costs per structural character, not per byte of text.
"""

from __future__ import annotations

import json
import re

Path = tuple[str | int, ...]

# The next character that matters outside a string.
_STRUCT = re.compile(rb'["{}\[\],:]')
_SPACE = re.compile(rb"[ \t\r\n]*")
_SCALAR_END = re.compile(rb"[ \t\r\n,\]}]")


class JsonSpanError(ValueError):
    """The bytes are not the JSON document they were parsed as."""


def spans(raw: bytes, depth: int = 4) -> dict[Path, tuple[int, int]]:
    """Byte ranges `[start, end)` of every value at most `depth` levels below the root."""
    out: dict[Path, tuple[int, int]] = {}
    end = _value(raw, _skip(raw, 0), (), depth, out)
    if _skip(raw, end) != len(raw):
        raise JsonSpanError("trailing bytes after the document")
    return out


def _skip(raw: bytes, i: int) -> int:
    m = _SPACE.match(raw, i)
    return m.end() if m else i


def _string_end(raw: bytes, i: int) -> int:
    """The end of the string opening at `i`: the next quote not escaped by an odd run of
    backslashes (found with bytes.find, so a long text costs C speed, not a regex per byte)."""
    j = i + 1
    while True:
        k = raw.find(b'"', j)
        if k < 0:
            raise JsonSpanError(f"unterminated string at byte {i}")
        b = k - 1
        while raw[b] == 0x5C:  # backslash
            b -= 1
        if (k - 1 - b) % 2 == 0:
            return k + 1
        j = k + 1


def _value(raw: bytes, i: int, path: Path, depth: int, out: dict[Path, tuple[int, int]]) -> int:
    """Scan the value starting at `i`; record its span when shallow enough; return its end."""
    if i >= len(raw):
        raise JsonSpanError("unexpected end of document")
    c = raw[i]
    if c == 0x22:  # "
        end = _string_end(raw, i)
    elif c in (0x7B, 0x5B):  # { [
        end = _container(raw, i, path, depth, out) if len(path) < depth else _skip_container(raw, i)
    else:
        m = _SCALAR_END.search(raw, i)
        end = m.start() if m else len(raw)
        if end == i:
            raise JsonSpanError(f"expected a value at byte {i}")
    if len(path) <= depth:
        out[path] = (i, end)
    return end


def _container(raw: bytes, i: int, path: Path, depth: int, out: dict[Path, tuple[int, int]]) -> int:
    is_object = raw[i] == 0x7B
    close = 0x7D if is_object else 0x5D
    j = _skip(raw, i + 1)
    if j < len(raw) and raw[j] == close:
        return j + 1
    index = 0
    while True:
        key: str | int = index
        if is_object:
            if j >= len(raw) or raw[j] != 0x22:
                raise JsonSpanError(f"expected a key at byte {j}")
            k_end = _string_end(raw, j)
            key = _key(raw[j:k_end])
            j = _skip(raw, k_end)
            if j >= len(raw) or raw[j] != 0x3A:
                raise JsonSpanError(f"expected ':' at byte {j}")
            j = _skip(raw, j + 1)
        j = _skip(raw, _value(raw, j, (*path, key), depth, out))
        index += 1
        if j >= len(raw):
            raise JsonSpanError("unexpected end of document")
        if raw[j] == close:
            return j + 1
        if raw[j] != 0x2C:
            raise JsonSpanError(f"expected ',' at byte {j}")
        j = _skip(raw, j + 1)


def _skip_container(raw: bytes, i: int) -> int:
    """The end of the container at `i`, without recording anything inside it."""
    level = 0
    j = i
    while True:
        m = _STRUCT.search(raw, j)
        if m is None:
            raise JsonSpanError("unexpected end of document")
        c = raw[m.start()]
        if c == 0x22:
            j = _string_end(raw, m.start())
            continue
        j = m.end()
        if c in (0x7B, 0x5B):
            level += 1
        elif c in (0x7D, 0x5D):
            level -= 1
            if level == 0:
                return j


def _key(token: bytes) -> str:
    return str(json.loads(token))
