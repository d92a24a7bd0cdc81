"""The chat app in a real terminal: started under tmux, typed into with send-keys, read back
with capture-pane. Skipped where tmux is not installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers.tmux import KEY_VARS, POLL, Tmux, chat_command

# A real terminal's timing is part of what these check: they run alone (tests/helpers/serial.py).
pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,
]


def test_chat_in_tmux_answers_and_shows_the_hit_rate(tmux: Tmux, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "README.md").write_text("# demo\n")
    (ws / "src" / "app.py").write_text("def main():\n    return 1\n")
    cmd = chat_command(ws, tmp_path / "sessions.sqlite")
    # No key, and no COLUMNS/LINES (pytest-xdist's workers set 80x24): the app sizes itself
    # to the tmux window, as in a user's terminal.
    env = {k: v for k, v in os.environ.items() if k not in (*KEY_VARS, "COLUMNS", "LINES")}
    subprocess.run(
        [
            "tmux",
            "-L",
            tmux.socket,
            "new-session",
            "-d",
            "-s",
            "chat",
            "-x",
            "120",
            "-y",
            "40",
            cmd,
        ],
        check=True,
        env=env,
        timeout=20,
    )
    tmux.wait_for(lambda t: "No API key found" in t, "the app to open on the emulator")
    assert "EMULATOR" in tmux.pane()

    # A bracketed paste keeps its lines and Ctrl+J adds one (nothing is sent); Enter sends
    # them all as one message.
    tmux("set-buffer", "-b", "paste", "pasted one\npasted two")
    tmux("paste-buffer", "-p", "-d", "-b", "paste", "-t", "chat")
    # A key sent in the same instant as the paste's end can be handled before the paste
    # (seen with Textual 8.2.8); a person's next key comes later.
    tmux.wait_for(lambda t: "pasted two" in t, "the pasted lines in the prompt")
    # Ctrl+J and the text behind it in one write, as a fast typist's terminal delivers them:
    # the newline must still come first (it once came after the text).
    tmux("send-keys", "-t", "chat", "C-j", "typed three")
    tmux.wait_for(
        lambda t: "pasted one" in t and "pasted two" in t and "typed three" in t,
        "the pasted and typed lines in the prompt",
    )
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.wait_for(lambda t: "answers are canned" in t, "the answer to the pasted message")
    lines = pane.splitlines()
    first = next((i for i, line in enumerate(lines) if "› pasted one" in line), None)
    assert first is not None, pane
    assert "pasted two" in lines[first + 1] and "typed three" in lines[first + 2], pane

    tmux("send-keys", "-t", "chat", "-l", "hello")
    tmux("send-keys", "-t", "chat", "Enter")
    tmux.wait_for(lambda t: "built-in emulator" in t and "Hello!" in t, "the streamed answer")

    tmux("send-keys", "-t", "chat", "-l", "look around")
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.wait_for(
        lambda t: "Ask me to" in t and re.search(r"hit\s+([1-9]\d?\.\d)%", t) is not None,
        "the second answer and a non-zero hit rate",
    )
    found = re.search(r"hit\s+(\d+\.\d)%", pane)
    assert found is not None, pane
    rate = float(found.group(1))
    assert 50.0 < rate < 100.0
    assert "list_dir" in pane  # the tool call, folded to one line

    tmux("send-keys", "-t", "chat", "C-q")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the app exits; the pane's `sleep` remains
        if tmux("list-panes", "-t", "chat", "-F", "#{pane_current_command}").strip() == "sleep":
            break
        time.sleep(POLL)
    else:
        raise AssertionError("ctrl+q did not quit the app")
