"""The entries a long chat took off screen, held compressed until scrolling up shows them again.

A row is what `widgets.history_entry` needs to mount an entry again: its role and its text.
Rows come and go in batches at the newest end (a trim adds the oldest entries still mounted, a
scroll to the top takes back the newest rows), so they are kept as zlib-compressed batches of
at most `CHUNK` rows: a row held as a tuple and a string cost ~120 bytes beyond its text, and
a long chat's text is repetitive enough to shrink several times, where a batch is one bytes
object. Only the batch a take cuts is decompressed and packed again. The batches are held in
a list, or in what the caller gives in its place (the chat gives `offscreen_file.ChunkFile`:
the batches on disk). Pure: no I/O.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from typing import Protocol

Row = tuple[str, str]  # (role, text)

# Rows in one compressed batch: a trim's batch (60 entries) in one piece, and a resumed
# session's history in pieces small enough that taking 12 rows unpacks little.
CHUNK = 64


def _pack(rows: list[Row]) -> bytes:
    return zlib.compress(json.dumps(rows, ensure_ascii=False).encode(), 6)


def _unpack(chunk: bytes) -> list[Row]:
    return [(str(role), str(text)) for role, text in json.loads(zlib.decompress(chunk))]


class Chunks(Protocol):
    """Where the compressed batches are held: a stack (a list has all of it)."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[bytes]: ...
    def append(self, chunk: bytes, /) -> None: ...
    def pop(self) -> bytes: ...
    def clear(self) -> None: ...


class OffscreenRows:
    """Rows (role, text), oldest first: appended and taken back at the newest end."""

    __slots__ = ("_chunks", "_n")

    def __init__(self, rows: Iterable[Row] = (), chunks: Chunks | None = None) -> None:
        self._chunks: Chunks = [] if chunks is None else chunks
        self._chunks.clear()
        self._n = 0
        self.extend(rows)

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def __iter__(self) -> Iterator[Row]:
        for chunk in self._chunks:
            yield from _unpack(chunk)

    def extend(self, rows: Iterable[Row]) -> None:
        """Append `rows` (in order) after the newest held."""
        batch = list(rows)
        for start in range(0, len(batch), CHUNK):
            part = batch[start : start + CHUNK]
            self._chunks.append(_pack(part))
            self._n += len(part)

    def take_newest(self, n: int) -> list[Row]:
        """Remove and return the newest `n` rows (fewer if fewer are held), oldest first."""
        out: list[Row] = []
        while n > 0 and len(self._chunks):
            rows = _unpack(self._chunks.pop())
            if len(rows) > n:
                keep, rows = rows[:-n], rows[-n:]
                self._chunks.append(_pack(keep))
            out[:0] = rows
            n -= len(rows)
            self._n -= len(rows)
        return out

    def clear(self) -> None:
        self._chunks.clear()
        self._n = 0
