"""Atomic file writes: a reader sees the whole old file or the whole new one, never half.

The content goes to a temporary file beside the target (same filesystem, so the rename is
atomic), is flushed and fsynced, and is renamed over the target with `os.replace`; the folder
is fsynced after (best effort) so the rename survives a crash. Any failure removes the
temporary file and leaves the target as it was. The new file keeps the old one's permission
bits, or gets the usual ones (0666 less the umask) when it is new, not mkstemp's private 0600.

What the path names is written, not the name itself: a symlink is followed (its target is
replaced, the link stays), and a FIFO, a device or a socket is written straight into (`-o
/dev/stdout`, `--json /dev/null` as root, a named pipe), since renaming over it would put a
regular file in its place; that write cannot be atomic. A directory is refused.

Errors are OSError: each caller says them in its own words (which flag, which file).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], *, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file that replaces `path` when the block ends without an exception, with
    permission bits `mode` (default: the old file's, or the usual ones for a new file)."""
    target = Path(os.path.realpath(path))  # through symlinks: the link is the user's
    try:
        kind = target.stat().st_mode
    except FileNotFoundError:
        kind = stat.S_IFREG
    if stat.S_ISDIR(kind):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(kind):
        with open(target, "wb") as fh:  # a FIFO or device: what reads it gets the bytes
            yield fh
        return
    mode = _mode_for(target) if mode is None else mode
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)


@contextlib.contextmanager
def replacing_text(
    path: str | os.PathLike[str], *, encoding: str = "utf-8", errors: str = "strict"
) -> Iterator[TextIO]:
    """A text file (no newline translation) that replaces `path` when the block ends."""
    with replacing(path) as raw:
        fh = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline="")
        try:
            yield fh
            fh.flush()
        finally:
            fh.detach()  # `replacing` closes the file itself


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace `path` with exactly `data`."""
    with replacing(path) as fh:
        fh.write(data)


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Replace `path` with `text` encoded (newlines written as given)."""
    write_bytes(path, text.encode(encoding))


def _sync_folder(folder: Path) -> None:
    # The rename is durable once the folder's entry is on disk; some filesystems refuse to open
    # a folder for this, and the content is already safe, so a failure is not the caller's.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
