"""Take keys out of this process's /proc/PID/environ before an unsandboxed command runs.

/proc/PID/environ shows the environment block the process was started with, as it is in
memory now: deleting a variable from os.environ (unsetenv) leaves its bytes there, and any
process of the same user (an unsandboxed command, say) can read them. So the values of every
variable a command would not be given are overwritten in place, once, through /proc/self/mem;
libc and os.environ keep their own copies first, so this process still reads them (the
provider's client, a model switch, an MCP server's configured environment).

Linux only; elsewhere, or where the kernel refuses writes to /proc/self/mem, nothing changes and
`hide_initial_environ` says False.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Container

_lock = threading.Lock()
_done: list[bool] = []

# /proc/PID/stat fields env_start and env_end (50 and 51, 1-based), counted from the field
# after the command name (field 3).
_ENV_START, _ENV_END = 50 - 3, 51 - 3


def hide_initial_environ(keep: Container[str]) -> bool:
    """Overwrite the values of the variables not in `keep` in this process's initial
    environment block (once per process). True when the block is clean."""
    with _lock:
        if _done:
            return _done[0]
        _done.append(_scrub(keep))
        return _done[0]


def _scrub(keep: Container[str]) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/self/stat", "rb") as fh:
            raw = fh.read()
        fields = raw[raw.rindex(b")") + 2 :].split()
        start, end = int(fields[_ENV_START]), int(fields[_ENV_END])
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(start)
            block = bytearray(mem.read(end - start))
            pos = 0
            for entry in bytes(block).split(b"\0"):
                name, eq, _ = entry.partition(b"=")
                key = name.decode("utf-8", "surrogateescape")
                if eq and key not in keep:
                    # libc's pointer may lead into the block: a copy of its own first.
                    with contextlib.suppress(KeyError, ValueError, OSError):
                        os.putenv(key, os.environ[key])
                    value_at = pos + len(name) + 1
                    block[value_at : pos + len(entry)] = b"\0" * (len(entry) - len(name) - 1)
                pos += len(entry) + 1
            mem.seek(start)
            mem.write(bytes(block))
    except (OSError, ValueError, IndexError):
        return False
    return True
