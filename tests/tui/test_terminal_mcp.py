"""`/mcp restart NAME` in a real terminal: `prefixlock chat` under tmux with the user's MCP
server; a restart with the same tools is one line and the next request reads the cache (the
panel's last turn shows no miss and a full hit); a server that changes its tools on the restart
is priced in the dialog first. Skipped where tmux is not installed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.tmux import KEY_VARS, Tmux, chat_command
from tests.tui.project_script import MCP_SERVER

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,
    pytest.mark.slow,
]


def _open(tmux: Tmux, tmp_path: Path, marker: Path) -> None:
    pytest.importorskip("mcp")
    home = tmp_path / "home"
    (home / ".prefixlock").mkdir(parents=True)
    (home / ".prefixlock" / "settings.toml").write_text(
        f"[mcp_servers.inv]\ncommand = {sys.executable!r}\nargs = [{MCP_SERVER!r}]\n"
        f"env = {{ INV_DISCOUNT_IF = {str(marker)!r} }}\n"
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# demo\n")
    env = {k: v for k, v in os.environ.items() if k not in (*KEY_VARS, "COLUMNS", "LINES")}
    cmd = f"HOME={shlex.quote(str(home))} {chat_command(ws, tmp_path / 's.sqlite')}"
    subprocess.run(
        ["tmux", "-L", tmux.socket, "new-session", "-d", "-s", "chat", "-x", "120",
         "-y", "40", cmd],
        check=True, env=env, timeout=20,
    )  # fmt: skip
    tmux.wait_for(lambda t: "No API key found" in t, "the app to open on the emulator")


def _send(tmux: Tmux, line: str) -> None:
    tmux("send-keys", "-t", "chat", "-l", line)
    tmux("send-keys", "-t", "chat", "Enter")


def _panel(pane: str, label: str) -> str:
    """A figure of the cache panel (the right-hand column): `read`, `write`, `turns`..."""
    found = re.search(rf"▏\s+{label}\s+(\S+)", pane)
    assert found is not None, pane
    return found.group(1)


def _tokens(figure: str) -> float:
    return float(figure[:-1]) * 1000 if figure.endswith("K") else float(figure)


def test_mcp_restart_keeps_the_cache_in_a_real_terminal(tmux: Tmux, tmp_path: Path) -> None:
    marker = tmp_path / "discount-on"
    _open(tmux, tmp_path, marker)
    _send(tmux, "hello")
    pane = tmux.wait_for(lambda t: "Hello!" in t and "▏ last miss" in t, "the first answer")
    _send(tmux, "/mcp restart inv")
    tmux.wait_for(lambda t: "restarted MCP server 'inv': the same 4 tools" in t, "the restart")
    _send(tmux, "hello again")
    pane = tmux.wait_for(
        lambda t: t.count("Hello!") >= 2 and len(_panel(t, "turns")) == 2,
        "the answer after the restart, on the panel",
    )
    # The turn after the restart read the whole prefix and wrote only its own new tokens.
    assert _tokens(_panel(pane, "read")) >= 2000, pane
    assert _tokens(_panel(pane, "write")) < 200, pane
    assert re.search(r"last miss\s*\n.*▏\s+none", pane), pane
    # The server's next start lists one more tool: the dialog prices it; "n" keeps the prefix.
    marker.touch()
    _send(tmux, "/mcp restart inv")
    pane = tmux.armed("restarted with other tools")
    assert "added mcp__inv__discount" in pane, pane
    tmux("send-keys", "-t", "chat", "n")
    tmux.wait_for(lambda t: "mcp__inv__discount not taken" in t, "the prefix kept")
    _send(tmux, "/mcp")
    pane = tmux.wait_for(lambda t: "(5 listed by the server now)" in t, "/mcp's list")
    assert "running, 4 tools pinned in the prefix" in pane, pane
