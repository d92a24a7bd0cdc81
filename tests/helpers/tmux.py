"""A real terminal for the chat's tests: a private tmux server (`Tmux`), the `prefixlock`
command line a user runs (`exe`, `chat_command`), and `prefixlock serve` as a provider that
outlives one chat (`serving`)."""

from __future__ import annotations

import contextlib
import os
import shlex
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

# How often a wait looks at the pane again (a capture is a short tmux call).
POLL = 0.05

KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")


class Tmux:
    """One tmux server on a private socket, so the test never touches the user's sessions."""

    def __init__(self) -> None:
        self.socket = f"prefixlock-test-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20
        )
        return out.stdout

    def new_session(
        self, cmd: str, *, name: str = "chat", env: dict[str, str] | None = None
    ) -> None:
        """Run `cmd` in a new 120x40 session `name`. When the last session has just been
        killed, the server is on its way out and a new session can meet it exiting ("server
        exited unexpectedly"): then it is asked again, of a fresh server."""
        args = ["tmux", "-L", self.socket, "new-session", "-d", "-s", name, "-x", "120"]
        for attempt in range(5):
            done = subprocess.run(
                [*args, "-y", "40", cmd], env=env, capture_output=True, text=True, timeout=20
            )
            if done.returncode == 0:
                return
            if "server exited" not in done.stderr or attempt == 4:
                raise AssertionError(f"tmux new-session failed: {done.stderr.strip()}")
            time.sleep(POLL)

    def pane(self, name: str = "chat") -> str:
        return self("capture-pane", "-p", "-t", name)

    def wait_for(
        self,
        check: Callable[[str], bool],
        what: str,
        limit: float = 45.0,
        *,
        settled: int = 1,
        name: str = "chat",
    ) -> str:
        """Poll the pane until `check` passes on `settled` captures in a row (bounded: fails
        after `limit` seconds)."""
        deadline = time.monotonic() + limit
        text = ""
        run = 0
        while time.monotonic() < deadline:
            text = self.pane(name)
            run = run + 1 if check(text) else 0
            if run >= settled:
                return text
            time.sleep(POLL)
        raise AssertionError(f"timed out waiting for {what}; the pane shows:\n{text}")

    def armed(self, dialog: str, limit: float = 45.0, *, name: str = "chat") -> str:
        """Wait until the dialog showing `dialog` takes answers: its "finish typing" line has
        gone, on three captures in a row. (tmux 3.3 draws a frame as its bytes arrive, so
        one capture can hold the dialog's top rows but not yet the hint row below them: an
        answer sent then is typed ahead, into the prompt. CI saw it once.)"""
        return self.wait_for(
            lambda t: dialog in t and "finish typing" not in t,
            f"the armed {dialog!r}",
            limit,
            settled=3,
            name=name,
        )


def exe() -> list[str]:
    """The `prefixlock` command of this environment (its script, or the module run by Python)."""
    script = Path(sys.executable).with_name("prefixlock")
    if script.exists():
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import sys; from prefixlock.cli.main import main; sys.exit(main())",
    ]


def chat_command(workspace: Path, store: Path) -> str:
    """The shell line that opens `prefixlock chat` on `workspace` with no key set."""
    args = [*exe(), "chat", "--workspace", str(workspace), "--store", str(store)]
    unset = " ".join(f"-u {k}" for k in KEY_VARS)
    # Keep the pane open after the app exits, so a crash leaves its traceback to read.
    return f"env {unset} TERM=xterm-256color {shlex.join(args)}; sleep 30"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(script: Path) -> Iterator[str]:
    """`prefixlock serve --script SCRIPT` on a free port, as a user starts it: its base URL,
    once it accepts connections (bounded), the server stopped at the end."""
    port = free_port()
    # No key, and no COLUMNS/LINES (pytest-xdist's workers set 80x24): the app sizes itself
    # to the tmux window, as in a user's terminal.
    env = {k: v for k, v in os.environ.items() if k not in (*KEY_VARS, "COLUMNS", "LINES")}
    proc = subprocess.Popen(
        [*exe(), "serve", "--script", str(script), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # bounded: until the server accepts connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError("prefixlock serve did not start") from None
                time.sleep(POLL)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
