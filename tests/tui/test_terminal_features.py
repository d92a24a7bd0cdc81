"""The chat's newer features in a real terminal (tmux: keys by send-keys, the screen by
capture-pane), each as a user meets it: a dropped image path, `!cmd`, Ctrl+G's external
editor, /new, `--continue`, the session picker and the dialog before a repository's hooks run.
(Their Pilot tests pin the details; these check that a terminal delivers them.) Skipped where
tmux is not installed."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from prefixlock.testing import sample_png
from tests.helpers.tmux import KEY_VARS, Tmux, chat_command

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,
    pytest.mark.slow,
]

SESSION = re.compile(r"session ([0-9a-f]{32})")


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "README.md").write_text("# demo\n")
    (ws / "src" / "app.py").write_text("def main():\n    return 1\n")
    return ws


def _open(
    tmux: Tmux,
    ws: Path,
    store: Path,
    *,
    extra: str = "",
    env: dict[str, str] | None = None,
    opened: str = "No API key found",
) -> str:
    """`prefixlock chat` (plus `extra` flags) on the built-in emulator in a new tmux window;
    waits for `opened` on screen."""
    base = {k: v for k, v in os.environ.items() if k not in (*KEY_VARS, "COLUMNS", "LINES")}
    base.update(env or {})
    cmd = chat_command(ws, store).replace(" chat ", f" chat {extra} ", 1) if extra else None
    cmd = cmd or chat_command(ws, store)
    tmux("kill-session", "-t", "chat")
    tmux.new_session(cmd, env=base)
    return tmux.wait_for(lambda t: opened in t, f"{opened!r} on screen")


HELLO = "how long the cache stays"  # the end of the scripted answer to "hello"


def _say(tmux: Tmux, text: str, until: str) -> str:
    """Send `text`; wait for `until` on screen and the turn to be over (the header says)."""
    tmux("send-keys", "-t", "chat", "-l", text)
    tmux("send-keys", "-t", "chat", "Enter")
    return tmux.wait_for(
        lambda t: until in t and "working" not in t.splitlines()[0], f"{until!r} after {text!r}"
    )


def _session_id(pane: str) -> str:
    """The session id the header (the screen's first line) shows."""
    found = SESSION.findall(pane.splitlines()[0])
    assert found, pane
    return str(found[0])


def test_a_dropped_image_path_goes_with_the_message(tmux: Tmux, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    shot = tmp_path / "bug.png"
    shot.write_bytes(sample_png(40, 20))
    _open(tmux, ws, tmp_path / "s.sqlite")
    # A terminal delivers a dropped file as its path, pasted.
    tmux("send-keys", "-t", "chat", "-l", f"hello, see {shot}")
    tmux("send-keys", "-t", "chat", "Enter")
    # The note may wrap the long temporary path: "(image)" can start the next line.
    tmux.wait_for(
        lambda t: "attached:" in t and "bug.png" in t and "(image)" in t, "the image attached"
    )


def test_bang_runs_a_command_and_ctrl_g_opens_the_editor(tmux: Tmux, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\np = sys.argv[1]\nopen(p, 'w').write('WRITTEN IN THE EDITOR')\n")
    env = {"VISUAL": f"{shlex.quote(sys.executable)} {shlex.quote(str(editor))}"}
    _open(tmux, ws, tmp_path / "s.sqlite", env=env)
    _say(tmux, "!echo shell-says-$((6*7))", "shell-says-42")
    tmux("send-keys", "-t", "chat", "-l", "draft")
    tmux("send-keys", "-t", "chat", "C-g")
    tmux.wait_for(lambda t: "WRITTEN IN THE EDITOR" in t, "the editor's text in the prompt")


def test_new_continue_and_the_session_picker(tmux: Tmux, tmp_path: Path) -> None:
    ws, store = _workspace(tmp_path), tmp_path / "s.sqlite"
    pane = _open(tmux, ws, store)
    _say(tmux, "hello", HELLO)
    first = _session_id(pane)
    _say(tmux, "/new", "new session")
    pane = tmux.wait_for(lambda t: first not in t.splitlines()[0], "the new session's header")
    second = _session_id(pane)
    _say(tmux, "hello", HELLO)
    tmux("send-keys", "-t", "chat", "C-q")
    # --continue: the newest session of this workspace.
    pane = _open(tmux, ws, store, extra="--continue")
    assert _session_id(pane) == second
    tmux("send-keys", "-t", "chat", "C-q")
    # --resume without an id: the picker, this workspace's sessions first; Down, Enter.
    _open(tmux, ws, store, extra="--resume", opened=first[:8])
    tmux("send-keys", "-t", "chat", "Down")
    tmux("send-keys", "-t", "chat", "Enter")
    pane = tmux.wait_for(lambda t: "No API key found" in t, "the chosen session to open")
    assert _session_id(pane) == first


def test_a_repositorys_hooks_wait_for_the_dialog(tmux: Tmux, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    marker = tmp_path / "hook-ran"
    hook = tmp_path / "hook.py"
    hook.write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))}"
    group = [{"hooks": [{"type": "command", "command": command}]}]
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": group}})
    )
    _open(tmux, ws, tmp_path / "s.sqlite", opened="Run the repository's 1 hook?")
    assert not marker.exists()
    # The dialog takes answers once typing has stopped for a moment (its hint goes then).
    tmux.armed("Run the repository's 1 hook?")
    tmux("send-keys", "-t", "chat", "a")
    tmux.wait_for(lambda t: "No API key found" in t, "the session to open")
    _say(tmux, "hello", HELLO)
    assert marker.read_text() == "ran\n"
    tmux("send-keys", "-t", "chat", "C-q")
    # Remembered: no dialog the next time.
    _open(tmux, ws, tmp_path / "s.sqlite")
    assert "Run the repository's" not in tmux.pane()
