"""`prefixlock chat` start-up against a bare `import textual`, in the same run: the time from
launching the command in a real terminal (tmux) to the prompt being usable (the app's first
note is on screen), with no MCP server and with one user-level stdio MCP server.

Run: `python -m pytest tests/benchmarks/bench_chat_start.py -s` (prints the medians of 5 runs
each; the target is at most 2x `import textual`). Skips without tmux.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

RUNS = 5
TARGET = 2.0  # the prompt usable within twice a bare `import textual`
SERVER = Path(__file__).resolve().parents[1] / "helpers" / "mcp_server.py"


def _import_textual() -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import textual"], check=True)
    return time.monotonic() - started


def _chat_usable(mcp: bool) -> float:
    root = Path(tempfile.mkdtemp(prefix="prefixlock-start-"))
    ws, home = root / "ws", root / "home"
    ws.mkdir()
    (ws / "README.md").write_text("# bench\n")
    (home / ".prefixlock").mkdir(parents=True)
    if mcp:
        (home / ".prefixlock" / "settings.toml").write_text(
            f'[mcp_servers.inv]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        )
    exe = Path(sys.executable).with_name("prefixlock")
    store = root / "s.sqlite"
    cmd = (
        f"env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY HOME={home} TERM=xterm-256color "
        f"{exe} chat --workspace {ws} --store {store}; sleep 5"
    )
    sock = f"prefixlock-bench-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    subprocess.run(
        ["tmux", "-L", sock, "new-session", "-d", "-s", "c", "-x", "120", "-y", "40", cmd],
        check=True,
    )
    try:
        while True:
            pane = subprocess.run(
                ["tmux", "-L", sock, "capture-pane", "-p", "-t", "c"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            if "No API key found" in pane:  # the first note: the prompt takes keys
                return time.monotonic() - started
            if time.monotonic() - started > 60:
                raise AssertionError(f"the chat did not open in 60 s:\n{pane}")
            time.sleep(0.02)
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_chat_start_against_import_textual() -> None:
    base, plain, with_mcp = [], [], []
    for _ in range(RUNS):  # interleaved, so a busy moment hits all three alike
        base.append(_import_textual())
        plain.append(_chat_usable(mcp=False))
        with_mcp.append(_chat_usable(mcp=True))
    b, p, m = (statistics.median(x) for x in (base, plain, with_mcp))
    print(
        f"\nimport textual {b:.2f} s; chat usable {p:.2f} s ({p / b:.1f}x); "
        f"with one MCP server {m:.2f} s ({m / b:.1f}x); target {TARGET:.0f}x"
    )
    assert p / b <= TARGET and m / b <= TARGET
