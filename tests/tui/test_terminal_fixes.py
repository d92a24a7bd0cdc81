"""The chat's fixes seen in a real terminal: each drives `prefixlock chat` under tmux (keys by
send-keys, the screen by capture-pane) through what a user hit. Skipped where tmux is not
installed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.tmux import KEY_VARS, Tmux, chat_command

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,
    pytest.mark.slow,  # a real terminal, seconds each: CI runs them in its slow step
]


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "README.md").write_text("# demo\n")
    (ws / "src" / "app.py").write_text("def main():\n    return 1\n")
    return ws


def _open_chat(
    tmux: Tmux, ws: Path, store: Path, *, width: int = 120, home: Path | None = None
) -> None:
    """`prefixlock chat` on the built-in emulator (no key), in a tmux window (`home`: the
    user's home folder it sees)."""
    env = {k: v for k, v in os.environ.items() if k not in (*KEY_VARS, "COLUMNS", "LINES")}
    cmd = chat_command(ws, store)
    if home is not None:
        cmd = f"HOME={shlex.quote(str(home))} {cmd}"
    subprocess.run(
        ["tmux", "-L", tmux.socket, "new-session", "-d", "-s", "chat", "-x", str(width),
         "-y", "40", cmd],
        check=True, env=env, timeout=20,
    )  # fmt: skip
    tmux.wait_for(lambda t: "No API key found" in t, "the app to open on the emulator")


def test_keys_typed_on_after_enter_do_not_answer_the_dialog(tmux: Tmux, tmp_path: Path) -> None:
    """Type "run the tests", Enter, go on typing "and also" as the approval dialog opens: the
    "a" once answered "allow for the session" and later commands ran unasked. Now the typing
    lands in the prompt, the dialog waits for it to stop (it says so), and only then answers."""
    _open_chat(tmux, _workspace(tmp_path), tmp_path / "s.sqlite")
    tmux("send-keys", "-t", "chat", "-l", "run the tests")
    tmux("send-keys", "-t", "chat", "Enter")
    tmux.wait_for(
        lambda t: "wants to run a command" in t and "finish typing" in t, "the approval dialog"
    )
    tmux("send-keys", "-t", "chat", "-l", "and also")
    tmux.armed("wants to run a command")  # once the typing stopped
    assert "allowed for the session" not in tmux.pane()
    tmux("send-keys", "-t", "chat", "n")
    pane = tmux.wait_for(lambda t: "echo 3 passed: declined" in t, "the declined command")
    assert "allowed for the session" not in pane
    prompt_line = [line for line in pane.splitlines() if "and also" in line]
    assert prompt_line, pane  # the typed text is in the prompt, not lost and not an answer


def test_a_switch_below_the_new_models_minimum_says_nothing_will_be_cached(
    tmux: Tmux, tmp_path: Path
) -> None:
    """sonnet -> haiku on a chat of ~2K tokens: haiku caches from 4,096 tokens, so the quote
    once said "break-even 2 turns" and the panel "warm" while every haiku turn missed."""
    _open_chat(tmux, _workspace(tmp_path), tmp_path / "s.sqlite")
    tmux("send-keys", "-t", "chat", "-l", "hello")
    tmux("send-keys", "-t", "chat", "Enter")
    tmux.wait_for(lambda t: "Hello!" in t, "the first answer")
    tmux("send-keys", "-t", "chat", "-l", "/model claude-haiku-4-5")
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.armed("Switch (s)")
    assert "below minimum: not cached" in pane, pane
    assert re.search(r"break-even\s+never", pane), pane
    tmux("send-keys", "-t", "chat", "s")
    tmux.wait_for(lambda t: "Switch (s)" not in t, "the switch")
    tmux("send-keys", "-t", "chat", "-l", "hello again")
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.wait_for(
        lambda t: re.search(r"warm\s+below minimum:\s+▏?\s*not cached", t) is not None,
        "the panel on the haiku turn",
    )
    assert not re.search(r"warm\s+\d+:\d\d warm", pane), pane


def test_alt_enter_adds_a_line_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    """tmux (as xterm) sends Alt+Enter as ESC CR, which sent the message."""
    _open_chat(tmux, _workspace(tmp_path), tmp_path / "s.sqlite")
    tmux("send-keys", "-t", "chat", "-l", "first line")
    tmux("send-keys", "-t", "chat", "M-Enter")
    tmux("send-keys", "-t", "chat", "-l", "second line")
    pane = tmux.wait_for(lambda t: "second line" in t, "the second line in the prompt")
    lines = pane.splitlines()
    at = next(i for i, line in enumerate(lines) if "second line" in line)
    assert "first line" in lines[at - 1] and "› first line" not in pane, pane
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.wait_for(lambda t: "› first line" in t, "the two-line message sent")
    lines = pane.splitlines()
    at = next(i for i, line in enumerate(lines) if "› first line" in line)
    assert "second line" in lines[at + 1], pane


def _asked_and_answered(asked: str) -> Callable[[str], bool]:
    return lambda pane: asked in pane and "Ask me to" in pane


def test_the_view_follows_new_replies_after_ctrl_r(tmux: Tmux, tmp_path: Path) -> None:
    """Ctrl+R unfolds the tool entries; the view then stopped following: the next reply went
    on below the screen."""
    _open_chat(tmux, _workspace(tmp_path), tmp_path / "s.sqlite")
    for i in range(3):
        tmux("send-keys", "-t", "chat", "-l", f"look around {i}")
        tmux("send-keys", "-t", "chat", "Enter")
        tmux.wait_for(_asked_and_answered(f"look around {i}"), f"answer {i}")
    before = tmux.pane()
    tmux("send-keys", "-t", "chat", "C-r")
    tmux.wait_for(lambda t: t != before and "src/" in t, "the tool entries unfolded")
    tmux("send-keys", "-t", "chat", "-l", "look around last")
    tmux("send-keys", "-t", "chat", "Enter")

    def answered_on_screen(pane: str) -> bool:
        at = pane.find("› look around last")
        return at >= 0 and "Ask me to" in pane[at:]

    tmux.wait_for(answered_on_screen, "the last answer on screen, below its question")


def test_a_failing_mcp_server_is_one_line_and_the_chat_goes_on(tmux: Tmux, tmp_path: Path) -> None:
    """A server that fails (npm printing its errors) once drew its output over the screen and
    left a chat that ignored every message: now one line names it and its log."""
    home = tmp_path / "home"
    (home / ".prefixlock").mkdir(parents=True)
    fail = "import sys; sys.stderr.write('npm ERR! code E404\\n' * 5); raise SystemExit(1)"
    (home / ".prefixlock" / "settings.toml").write_text(
        f'[mcp_servers.broken]\ncommand = "{sys.executable}"\nargs = ["-c", "{fail}"]\n'
    )
    _open_chat(tmux, _workspace(tmp_path), tmp_path / "s.sqlite", home=home)
    pane = tmux.wait_for(lambda t: "MCP server 'broken'" in t, "the failing server's note")
    assert "npm ERR" not in pane and "cannot start the session" not in pane, pane
    assert "mcp-logs" in pane, pane
    tmux("send-keys", "-t", "chat", "-l", "hello")
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.wait_for(lambda t: "Hello!" in t, "an answer: the chat goes on")
    assert "npm ERR" not in pane
    assert "npm ERR! code E404" in (tmp_path / "mcp-logs" / "broken.log").read_text()
