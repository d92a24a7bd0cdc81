"""Resume in a real terminal: a chat with tool calls (a write whose arguments are not in sorted
order), a priced `/effort` change and a few turns is quit, then opened again with
`prefixlock chat --resume ID`; the first request of the resumed chat reads the whole prefix
and history from the cache (the panel: a large read, a write of the new turn only, no miss).
Before the store kept each message's bytes and the session's settings, the resumed request
re-wrote it all and the guard blamed the provider. Skipped where tmux is not installed."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.tmux import Tmux, serving
from tests.tui.test_terminal_session import _chat, _quit

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,
    pytest.mark.slow,
]
CHAT_SCRIPT = Path(__file__).resolve().parents[2] / "tui" / "data" / "chat_script.yaml"


@pytest.fixture
def served() -> Iterator[str]:
    """`prefixlock serve` with the chat's own script: a provider that outlives the chat (the
    built-in emulator ends with it, and its cache with it)."""
    with serving(CHAT_SCRIPT) as url:
        yield url


def _send(tmux: Tmux, line: str) -> None:
    tmux("send-keys", "-t", "chat", "-l", line)
    tmux("send-keys", "-t", "chat", "Enter")


def _open(tmux: Tmux, ws: Path, store: Path, url: str, *args: str) -> None:
    _chat(tmux, "chat", ws, store, url, *args)
    tmux.wait_for(lambda t: "live: http://127.0.0.1" in t, "the app to open")


def _panel(pane: str, label: str) -> str:
    found = re.search(rf"▏\s+{label}\s+(\S+)", pane)
    assert found is not None, pane
    return found.group(1)


def _tokens(figure: str) -> float:
    return float(figure[:-1]) * 1000 if figure.endswith("K") else float(figure)


def _answer(tmux: Tmux, dialog: str, key: str = "y") -> None:
    tmux.armed(dialog)
    tmux("send-keys", "-t", "chat", key)
    tmux.wait_for(lambda t: dialog not in t, f"{dialog!r} answered")


def test_a_resumed_chat_reads_its_whole_prefix_from_the_cache(
    tmux: Tmux, tmp_path: Path, served: str
) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "README.md").write_text("# demo\n")
    (ws / "src" / "app.py").write_text("def main():\n    return 1\n")
    store = tmp_path / "s.sqlite"
    _open(tmux, ws, store, served)
    _send(tmux, "look around")
    tmux.wait_for(lambda t: "Ask me to" in t, "the tool calls' answer")
    _send(tmux, "add a note")  # write_file {"path", "content"}: not the sorted key order
    _answer(tmux, "wants to write a file")
    tmux.wait_for(lambda t: "holds the note" in t, "the write's answer")
    _send(tmux, "/effort high")
    _answer(tmux, "Change effort to high?")
    _send(tmux, "hello")
    pane = tmux.wait_for(
        lambda t: "Hello!" in t and len(_panel(t, "turns")) == 4, "the last turn on the panel"
    )
    sent = _tokens(_panel(pane, "read")) + _tokens(_panel(pane, "write"))  # cached by it
    found = re.search(r"session ([0-9a-f]{32})", pane)
    assert found is not None, pane
    _quit(tmux, "chat")
    tmux("kill-session", "-t", "chat")

    _open(tmux, ws, store, served, "--resume", found.group(1))
    tmux.wait_for(lambda t: "holds the note" in t, "the stored history on screen")
    turns = len(_panel(tmux.pane(), "turns"))
    _send(tmux, "hello again")
    pane = tmux.wait_for(
        lambda t: t.count("Hello!") >= 2 and len(_panel(t, "turns")) == turns + 1,
        "the first resumed turn on the panel",
    )
    # It read all the last turn before quitting cached, and wrote only its own new tokens.
    read, write = _tokens(_panel(pane, "read")), _tokens(_panel(pane, "write"))
    assert read >= sent - 100 and read > 2000 and write < 300, pane
    assert "cache miss" not in pane.split("› hello again", 1)[1], pane
