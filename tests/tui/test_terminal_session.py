"""A real-file coding session in a real terminal: `prefixlock serve --script` plays a model that
edits a file and runs the project's tests, `prefixlock chat --base-url` drives it under tmux
with the project's settings file, then the session is resumed. The edit is byte-exact (a
Latin-1, CRLF file), /undo puts it back, a message typed during a turn is not lost, and the
panel's dollars equal the stored ledger's. Skipped where tmux is not installed."""

from __future__ import annotations

import shlex
import shutil
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from tests.helpers.tmux import KEY_VARS, POLL, Tmux, exe, serving

# A real terminal's timing is part of what these check: they run alone (tests/helpers/serial.py).
pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,
]

CALC = (
    b"# -*- coding: latin-1 -*-\r\n# caf\xe9: the sum of two numbers\r\n"
    b"def add(a, b):\r\n    return a - b\r\n"
)
FIXED = CALC.replace(b"return a - b", b"return a + b")
TESTS = (
    "import unittest\n\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`prefixlock serve` with a script that fixes calc.py and runs the tests."""
    test_cmd = f"{shlex.quote(sys.executable)} -m unittest -q"
    script = tmp_path / "script.yaml"
    script.write_text(
        'default: "OK."\n'
        "rules:\n"
        '  - match: "fix"\n'
        "    steps:\n"
        '      - text: "Fixing add."\n'
        "        tool: edit_file\n"
        '        input: {path: calc.py, old_string: "return a - b", new_string: "return a + b"}\n'
        '      - text: "Running the tests."\n'
        "        tool: run_command\n"
        f"        input: {{command: {test_cmd!r}}}\n"
        '      - text: "Fixed: the tests pass."\n'
        '  - match: "status"\n'
        "    steps:\n"
        '      - text: "Status: all good."\n'
    )
    with serving(script) as url:
        yield url


def _chat(tmux: Tmux, name: str, ws: Path, store: Path, url: str, *extra: str) -> None:
    args = [
        *exe(),
        "chat",
        "--workspace",
        str(ws),
        "--store",
        str(store),
        "--base-url",
        url,
        *extra,
    ]
    unset = " ".join(f"-u {k}" for k in KEY_VARS)
    cmd = (
        f"env {unset} ANTHROPIC_API_KEY=emulator-key HOME={shlex.quote(str(ws.parent))} "
        f"TERM=xterm-256color {shlex.join(args)}; sleep 30"
    )
    tmux.new_session(cmd, name=name)


def _type(tmux: Tmux, name: str, text: str) -> None:
    """Type `text`, see it in the prompt, press Enter, see the prompt empty again."""
    tmux("send-keys", "-t", name, "-l", text)
    _wait(tmux, name, f"▊ {text}")
    tmux("send-keys", "-t", name, "Enter")
    _wait(tmux, name, "Message, /command or @file")


def _quit(tmux: Tmux, name: str) -> None:
    tmux("send-keys", "-t", name, "C-q")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the app exits; the pane's `sleep` remains
        if tmux("list-panes", "-t", name, "-F", "#{pane_current_command}").strip() == "sleep":
            return
        time.sleep(POLL)
    raise AssertionError("ctrl+q did not quit the app")


def _pane(tmux: Tmux, name: str) -> str:
    return tmux("capture-pane", "-p", "-t", name)


def _wait(tmux: Tmux, name: str, text: str, limit: float = 60.0) -> str:
    deadline = time.monotonic() + limit
    pane = ""
    while time.monotonic() < deadline:
        pane = _pane(tmux, name)
        if text in pane:
            return pane
        time.sleep(POLL)
    raise AssertionError(f"timed out waiting for {text!r}; the pane shows:\n{pane}")


def _wait_armed(tmux: Tmux, name: str, dialog: str) -> None:
    """Wait until the open dialog takes keys (it arms once the typing before it stopped)."""
    tmux.armed(dialog, 60.0, name=name)


def _wait_for_keys(tmux: Tmux, name: str) -> None:
    """Type a probe until the prompt shows it: the app reads keys. (An Enter sent in the
    first instants, while the terminal driver starts, was seen to be dropped; see the note.)"""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tmux("send-keys", "-t", name, "-l", "~")
        time.sleep(0.3)
        if "Message, /command or @file" not in _pane(tmux, name):
            break
        tmux("send-keys", "-t", name, "BSpace")
    else:
        raise AssertionError(f"the prompt never took a key:\n{_pane(tmux, name)}")
    tmux("send-keys", "-t", name, "C-u")  # clears the prompt (Input: delete to start)
    _wait(tmux, name, "Message, /command or @file")


def _panel_main(pane: str) -> str:
    for line in pane.splitlines():
        if " main " in line and "$" in line:
            return line.split(" main ", 1)[1].split()[0]
    raise AssertionError(f"no cost line on the panel:\n{pane}")


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_edit_run_tests_undo_and_resume_in_a_real_terminal(
    tmux: Tmux, tmp_path: Path, served: str
) -> None:
    from prefixlock.store.database import SessionStore
    from prefixlock.tui.state import format_dollars

    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "calc.py").write_bytes(CALC)
    (ws / "test_calc.py").write_text(TESTS)
    (ws / ".prefixlock").mkdir()
    (ws / ".prefixlock" / "settings.toml").write_text(
        f'[permissions]\nallow = ["Bash({sys.executable} -m unittest:*)"]\n'
    )
    store = tmp_path / "sessions.sqlite"
    _chat(tmux, "one", ws, store, served)
    _wait(tmux, "one", "live: http://127.0.0.1")
    _wait_for_keys(tmux, "one")

    _type(tmux, "one", "fix the bug")
    _type(tmux, "one", "status please")  # typed while the turn runs: queued, not lost
    _wait_armed(tmux, "one", "The agent wants to write a file")
    tmux("send-keys", "-t", "one", "y")
    pane = _wait(tmux, "one", "Status: all good.")
    assert "Fixed: the tests pass." in pane
    # No dialog for the tests: the settings' allow rule ran them (a dialog would have held the
    # turn, and the queued message after it, until answered).
    assert "wants to run a command" not in pane
    assert (ws / "calc.py").read_bytes() == FIXED  # byte-exact: Latin-1 and CRLF kept

    _type(tmux, "one", "/undo")
    _wait(tmux, "one", "undid the turn")
    assert (ws / "calc.py").read_bytes() == CALC
    main = _panel_main(_pane(tmux, "one"))  # refreshed as the turn ended
    _quit(tmux, "one")

    with SessionStore(store) as st:
        (row,) = st.sessions()
        ledger = sum((u.cost for u in st.usage_rows(row.id) if u.cost is not None), Decimal(0))
    assert format_dollars(ledger) == main  # panel = the stored ledger

    _chat(tmux, "two", ws, store, served, "--resume", row.id)
    _wait(tmux, "two", row.id)
    _wait(tmux, "two", "fix the bug")  # the stored history is on screen
    _wait_for_keys(tmux, "two")
    with SessionStore(store) as st:
        stored = len(st.usage_rows(row.id))
    _type(tmux, "two", "fix it again")
    _wait_armed(tmux, "two", "The agent wants to write a file")
    tmux("send-keys", "-t", "two", "y")
    deadline = time.monotonic() + 60
    while True:  # the turn's three requests (edit, tests, answer) are stored
        with SessionStore(store) as st:
            rows = st.usage_rows(row.id)
        if len(rows) >= stored + 3:
            break
        assert time.monotonic() < deadline, _pane(tmux, "two")
        time.sleep(POLL)
    assert (ws / "calc.py").read_bytes() == FIXED
    shown = format_dollars(sum((u.cost for u in rows if u.cost is not None), Decimal(0)))
    deadline = time.monotonic() + 10
    while _panel_main(_pane(tmux, "two")) != shown:  # panel = the stored ledger
        assert time.monotonic() < deadline, (_pane(tmux, "two"), shown)
        time.sleep(POLL)
    _quit(tmux, "two")
