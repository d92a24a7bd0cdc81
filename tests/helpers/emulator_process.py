"""The emulator with the chat's script in a process of its own: a measurement of the chat's
memory (the long-chat benchmark, the heap test) is then of the chat's process only, as against
a real provider (an in-process emulator keeps its cache's entries, the provider's side, in the
measured heap)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

EMULATOR = """
import sys
from prefixlock.emulator import Emulator, EmulatorConfig, Script
from prefixlock.tui.backend import EMULATOR_KEEP_REQUESTS, SCRIPT_PATH

config = EmulatorConfig(keep_requests=EMULATOR_KEEP_REQUESTS)
emu = Emulator(config, script=Script.load(SCRIPT_PATH))
emu.serve_in_background()
print(emu.base_url, flush=True)
sys.stdin.read()  # serves until the caller closes this pipe
"""


@contextlib.contextmanager
def emulator_process() -> Iterator[str]:
    """An emulator with the chat's script in another process; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-c", EMULATOR], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http"):
            raise AssertionError(f"the emulator did not start: {url!r}")
        yield url
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=60)  # only against a hang
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
