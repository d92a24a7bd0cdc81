"""The encoded request and break records on disk between the processes that make them and the
one that writes the report: each process appends to its own file in a private folder and sends
only where its records lie, (file, offset, length); the writer reads them back in report order.
Nothing is left behind: the files are opened for reading and removed once the reading is over
(`seal`), and the folder goes with the spool otherwise."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from typing import Any

from .threads import Blob, FilePart


class Spool:
    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="prefixlock-analyze-")
        self._pid = 0  # the process whose file `_fd` is (0: none yet)
        self._fd = -1
        self._at = 0
        self._readers: dict[int, int] = {}
        self._done = weakref.finalize(self, _remove, self.folder, self._readers)

    def __getstate__(self) -> dict[str, Any]:  # a spawned reader: the folder only
        return {"folder": self.folder}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.folder = state["folder"]
        self._pid, self._fd, self._at, self._readers = 0, -1, 0, {}

    def _append(self, data: bytes) -> int:
        pid = os.getpid()
        if pid != self._pid:  # this process's own file (a forked reader starts one too)
            self._pid, self._at = pid, 0
            self._fd = os.open(
                os.path.join(self.folder, str(pid)), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600
            )
        at = self._at
        view = memoryview(data)
        while view:  # unbuffered: a reader ends without flushing anything
            view = view[os.write(self._fd, view) :]
        self._at += len(data)
        return at

    def take(self, part: FilePart) -> FilePart:
        """`part` with its threads' records written here, each replaced by where it lies."""
        blobs: list[bytes] = []
        for t in part.threads:
            assert isinstance(t.requests, bytes) and isinstance(t.breaks, bytes)
            assert isinstance(t.agent, bytes)
            blobs += (t.requests, t.breaks, t.agent)
        at = self._append(b"".join(blobs))
        pid = self._pid
        for t, requests, breaks, agent in zip(
            part.threads, blobs[::3], blobs[1::3], blobs[2::3], strict=True
        ):
            t.requests, at = (pid, at, len(requests)), at + len(requests)
            t.breaks, at = (pid, at, len(breaks)), at + len(breaks)
            t.agent, at = (pid, at, len(agent)), at + len(agent)
        return part

    def seal(self) -> None:
        """Every file opened for reading, then removed with the folder (called once all the
        records are written)."""
        if self._pid == os.getpid():
            os.close(self._fd)
            self._pid = 0
        for name in os.listdir(self.folder):
            path = os.path.join(self.folder, name)
            self._readers[int(name)] = os.open(path, os.O_RDONLY)
        _remove(self.folder, {})

    def _reader(self, pid: int) -> int:
        fd = self._readers.get(pid)
        if fd is None:
            fd = self._readers[pid] = os.open(os.path.join(self.folder, str(pid)), os.O_RDONLY)
        return fd

    def read(self, where: Blob) -> bytes:
        if isinstance(where, bytes):
            return where
        pid, at, n = where
        if not n:
            return b""
        return os.pread(self._reader(pid), n, at)

    def read_into(self, where: Blob, view: memoryview) -> None:
        """The records at `where` into `view` (as long as they are)."""
        if isinstance(where, bytes):
            view[:] = where
            return
        pid, at, n = where
        fd = self._reader(pid)
        if not hasattr(os, "preadv"):  # macOS before 11
            view[:] = os.pread(fd, n, at)
            return
        while view:
            got = os.preadv(fd, [view], at)
            if not got:
                raise OSError(f"{self.folder}: the records ended early")
            view, at = view[got:], at + got


def _remove(folder: str, readers: dict[int, int]) -> None:
    for fd in readers.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    shutil.rmtree(folder, ignore_errors=True)
