"""`/undo` on the chat's backend: the newest turn that wrote is put back byte for byte (its new
files and the folders made for them removed), one turn per undo, and the model hears of it
with the next message; in a git work tree what a command changed is put back too, its
snapshots taken off the event loop's thread. (The command on screen:
tests/tui/test_app_project.py; the journal itself: test_undo_journal.py.)"""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from prefixlock.errors import ConfigError
from tests.helpers.backend_drive import OptionsFactory, started
from tests.tui.project_script import LEGACY


async def test_undo_puts_every_byte_back_and_tells_the_model(
    project_options: OptionsFactory, project: Path
) -> None:
    async with started(project_options()) as chat:
        backend = chat.backend
        await chat.say("edit legacy")
        assert (project / "legacy.txt").read_bytes() == LEGACY.replace(b"b = 2", b"b = 3")
        await chat.say("make module")
        assert (project / "pkg" / "new" / "mod.py").read_text() == "X = 1\n"
        said = backend.undo_last()  # the newest turn that wrote: make module
        assert not (project / "pkg").exists()  # the file and the folders made for it
        assert "removed pkg/new/mod.py" in said
        backend.undo_last()
        assert (project / "legacy.txt").read_bytes() == LEGACY  # CRLF, Latin-1, no final \n
        with pytest.raises(ConfigError, match="nothing to undo"):
            backend.undo_last()
        await chat.say("hello")
        sent = chat.last_user_text()
        assert sent.startswith("[prefixlock: the user ran /undo")
        assert "pkg/new/mod.py" in sent and "legacy.txt" in sent and sent.endswith("hello")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_in_a_git_workspace_undo_puts_back_what_a_command_changed(
    project_options: OptionsFactory, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefixlock.tui.git_checkpoint import GitCheckpoint

    # The real snapshot runs; we only note where: hashing a big tree takes seconds, so it must
    # never run on the thread of the event loop, which draws the chat's screen (before the
    # command, and again at the turn's end).
    real_snapshot = GitCheckpoint.snapshot
    threads: list[bool] = []

    def noting_snapshot(self: GitCheckpoint) -> str | None:
        threads.append(threading.current_thread() is threading.main_thread())
        return real_snapshot(self)

    monkeypatch.setattr(GitCheckpoint, "snapshot", noting_snapshot)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    before = (project / "src" / "app.py").read_bytes()
    async with started(project_options()) as chat:
        await chat.say("format it")
        assert (project / "src" / "app.py").read_text() == "def main():\n    return 2\n"
        assert threads == [False, False]  # both snapshots, neither on the loop's thread
        assert "restored src/app.py" in chat.backend.undo_last()
        assert (project / "src" / "app.py").read_bytes() == before
