"""The chat's C heap setting: a buffer the size of a long chat's body is mapped on its own, not
taken from the heap. Each case runs in an interpreter of its own (the setting, and
the allocator's state, are the process's)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

# A first large block freed (its size raises glibc's adaptive threshold above any later body),
# then one the size of a long chat's body (~300 KiB at 500 turns), touched whole: prints how
# much of it the heap's resident size took, in KiB (none when it was mapped on its own).
_SCRIPT = r"""
import sys
if sys.argv[1] in ("set", "twice"):
    from prefixlock.tui.allocator import return_large_buffers
    assert return_large_buffers()
    if sys.argv[1] == "twice":  # a second ChatApp in one process sets it again
        assert return_large_buffers()

def heap_kib():
    rss, inside = 0, False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            parts = line.split()
            if "-" in parts[0] and len(parts) >= 5:
                inside = parts[-1] == "[heap]"
            elif inside and parts[0] == "Rss:":
                rss += int(parts[1])
    return rss

first = bytearray(8 << 20)
del first
start = heap_kib()
body = bytearray(300 << 10)
print(heap_kib() - start)
"""


def _heap_growth_kib(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, mode],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return int(out.stdout.strip())


GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt and /proc/self/smaps")
def test_growing_buffers_leave_the_heap_flat() -> None:
    # Mapped on its own: the heap does not take it (and unmapped when freed).
    assert _heap_growth_kib("set") < 64
    # Without the setting (the same script) the heap takes it whole, and keeps the pages once
    # something above them lives on: this shows the check above can fail.
    assert _heap_growth_kib("default") > 250


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt and /proc/self/smaps")
def test_setting_it_twice_is_harmless() -> None:
    # Both calls succeed and the setting still holds.
    assert _heap_growth_kib("twice") < 64
