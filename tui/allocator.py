"""C heap settings for a long chat: buffers the size of the conversation go back to the system.

Each request makes buffers as large as the whole conversation (its body's bytes, the HTTP
client's copy of them, the store's), and they grow with every turn. glibc's malloc serves a
block that large from `mmap` at first, but its threshold for doing so rises to the size of each
such block freed (up to 32 MiB): after the first few, a body's buffers come from the heap, each
one a little larger than the hole the last one left, and the heap's resident size follows that
growing high-water mark, not what is live. A fixed threshold keeps them mapped, and unmapped
when freed. Elsewhere (another C library, a platform without `mallopt`) this does nothing.
"""

from __future__ import annotations

import sys

# Blocks of this size or more are mapped on their own (glibc's default before it adapts is 128
# KiB). A chat's body passes 64 KiB within about a hundred short turns; smaller blocks (a
# frame's text, a message) stay in the heap, where a mapping each would cost more than it frees.
MMAP_THRESHOLD = 64 * 1024
_M_MMAP_THRESHOLD = -3  # malloc.h

_done = False


def return_large_buffers() -> bool:
    """Fix glibc's mmap threshold at `MMAP_THRESHOLD`, once per process. True if it is set."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: the first frame does not wait for it

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):  # no mallopt in this C library: nothing to set
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _done = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1)  # 0: refused (musl: a no-op)
    return _done
