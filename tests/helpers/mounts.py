"""Small real filesystems for the store's failure modes: a tmpfs of a few hundred KiB that
fills up, and the same remounted read-only. Mounting needs root (or CAP_SYS_ADMIN) and a
`mount` command; where either is missing, `mount_tmpfs` says why and the caller skips."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path


class CannotMount(Exception):
    """No tmpfs here (not root, no mount command, a container without the capability)."""


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "2m") -> Iterator[Path]:
    """A tmpfs of `size` mounted on `where` (made if missing) for the block; CannotMount with
    the reason where it cannot be mounted."""
    if shutil.which("mount") is None or shutil.which("umount") is None:
        raise CannotMount("no mount command")
    where.mkdir(parents=True, exist_ok=True)
    made = _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
    if made.returncode != 0:
        raise CannotMount(f"cannot mount a tmpfs here: {made.stderr.strip() or made.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def remount_read_only(where: Path) -> None:
    made = _mount("-o", "remount,ro", str(where))
    if made.returncode != 0:
        raise CannotMount(f"cannot remount read-only: {made.stderr.strip()}")


def fill(where: Path, leave: int = 0) -> Path:
    """Fill the filesystem at `where` up to `leave` bytes free, with one file (returned)."""
    filler = where / ".filler"
    with open(filler, "ab") as fh, contextlib.suppress(OSError):  # ENOSPC: full
        while True:
            free = shutil.disk_usage(where).free
            if free <= leave:
                break
            fh.write(b"\0" * min(free - leave, 64 * 1024))
            fh.flush()
    return filler
