"""The off-screen entries' compressed batches held in an unnamed temporary file, not in memory.

`OffscreenRows` keeps its batches as a stack (a trim pushes, a scroll to the top pops), so a
file does as well as a list: a push writes at the end, a pop reads the last batch and cuts the
file back to where it began. What stays in memory is two packed integers a batch (its offset
and length); the text a long chat took off screen, which grew the process with every trim, is
on disk. The file is opened on the first push (a short chat has none), in the directory given
(the session store's: on disk, where /tmp may be memory) and has no name, so nothing is left
behind whatever ends the process.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import IO


class ChunkFile:
    """A stack of byte strings in a temporary file: append, pop, iterate oldest first."""

    __slots__ = ("_dir", "_file", "_starts")

    def __init__(self, directory: Path | None = None) -> None:
        self._dir = directory
        self._file: IO[bytes] | None = None
        self._starts = array("q")  # each batch's offset; the file's end closes the last

    def __len__(self) -> int:
        return len(self._starts)

    def _end(self) -> int:
        return 0 if self._file is None else self._file.seek(0, 2)

    def append(self, chunk: bytes) -> None:
        if self._file is None:
            where = self._dir if self._dir is not None and self._dir.is_dir() else None
            self._file = tempfile.TemporaryFile(dir=where)  # noqa: SIM115 (closed by close())
        end = self._end()
        self._file.write(chunk)
        self._starts.append(end)

    def _read(self, start: int, end: int) -> bytes:
        assert self._file is not None
        self._file.seek(start)
        return self._file.read(end - start)

    def pop(self) -> bytes:
        if not self._starts:
            raise IndexError("pop from an empty ChunkFile")
        end = self._end()
        start = self._starts.pop()
        chunk = self._read(start, end)
        assert self._file is not None
        self._file.truncate(start)
        return chunk

    def __iter__(self) -> Iterator[bytes]:
        starts = [*self._starts, self._end()]
        for start, end in pairwise(starts):
            yield self._read(start, end)

    def clear(self) -> None:
        del self._starts[:]
        if self._file is not None:
            self._file.truncate(0)

    def close(self) -> None:
        """Close and so delete the file (a later push opens a new one)."""
        del self._starts[:]
        if self._file is not None:
            self._file.close()
            self._file = None
