"""The /undo journal on its own: byte-exact restores, files changed since left alone (unless
forced), one turn per undo; custom command expansion; the /init draft's test commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from prefixlock.coding.custom_commands import load_commands, parse_command
from prefixlock.errors import ConfigError
from prefixlock.tui.init_file import draft_agents_md, find_test_commands
from prefixlock.tui.undo import UndoError, UndoJournal


def test_restores_bytes_and_mode_and_skips_what_changed_since(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sh", tmp_path / "b.bin"
    a.write_bytes(b"#!/bin/sh\r\necho \xff\r\n")
    os.chmod(a, 0o751)
    b.write_bytes(b"\x00\x01")
    j = UndoJournal(tmp_path)
    j.begin("turn one")
    j.before_write("a.sh")
    j.before_write("b.bin")
    j.before_write("a.sh")  # the second write of a turn keeps the first snapshot
    a.write_text("changed\n")
    b.write_bytes(b"changed")
    j.end()
    j.begin("turn two (reads only)")
    j.end()
    b.write_bytes(b"the user's own edit")  # after the turn: not the turn's to undo
    result = j.undo()
    assert a.read_bytes() == b"#!/bin/sh\r\necho \xff\r\n" and (a.stat().st_mode & 0o777) == 0o751
    assert result.restored == ("a.sh",) and result.skipped == ("b.bin",)
    assert b.read_bytes() == b"the user's own edit"
    assert "/undo force" in result.text()
    with pytest.raises(UndoError, match="nothing to undo"):
        j.undo()
    j.close()


def test_force_and_a_created_file_with_its_folders(tmp_path: Path) -> None:
    (tmp_path / "keep").mkdir()
    j = UndoJournal(tmp_path)
    j.begin("make files")
    j.before_write("new/deep/x.txt")
    j.before_write("keep/y.txt")
    (tmp_path / "new" / "deep").mkdir(parents=True)
    (tmp_path / "new" / "deep" / "x.txt").write_text("x")
    (tmp_path / "keep" / "y.txt").write_text("y")
    j.end()
    (tmp_path / "keep" / "y.txt").write_text("edited since")
    result = j.undo(force=True)
    assert set(result.removed) == {"new/deep/x.txt", "keep/y.txt"}
    assert not (tmp_path / "new").exists() and (tmp_path / "keep").is_dir()
    j.close()


def test_custom_command_expansion_and_precedence(tmp_path: Path) -> None:
    cmd = parse_command("fix", "Fix issue #$1 in $2.", "fix.md")
    assert cmd.expand("42 src/a.py") == "Fix issue #42 in src/a.py."
    assert cmd.description == "Fix issue #$1 in $2."  # no front matter: the first line
    plain = parse_command("go", "---\n---\nGo.\n", "go.md")
    assert plain.expand("") == "Go." and plain.expand("now") == "Go.\n\nnow"
    with pytest.raises(ConfigError, match="no text to send"):
        parse_command("empty", "---\ndescription: x\n---\n", "empty.md")
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".claude" / "commands").mkdir(parents=True)
    (home / ".claude" / "commands" / "fix.md").write_text("user level")
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "fix.md").write_text("project claude")
    (ws / ".prefixlock" / "commands").mkdir(parents=True)
    (ws / ".prefixlock" / "commands" / "fix.md").write_text("project prefixlock")
    (ws / ".prefixlock" / "commands" / "Bad Name.md").write_text("x")
    found, notes = load_commands(ws, home, reserved=["help"])
    assert found["fix"].body == "project prefixlock"
    assert any("Bad Name.md: skipped" in n for n in notes)


def test_init_finds_the_test_commands_of_several_ecosystems(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(
        json.dumps({"scripts": {"test": "vitest", "lint": "eslint ."}})
    )
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    (tmp_path / "Makefile").write_text("all:\n\ttrue\ntest:\n\tcargo test\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "a.ts").write_text("")
    assert find_test_commands(tmp_path) == [
        ("Tests", "npm test"),
        ("Lint", "npm run lint"),
        ("Tests", "cargo test"),
        ("Tests (make)", "make test"),
    ]
    draft = draft_agents_md(tmp_path)
    assert "- TypeScript (1 files)" in draft and "- `web/` (1 files)" in draft
    assert "`package.json`" in draft


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_a_git_repo_what_a_command_changed_is_undone_too(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitattributes").write_text("*.txt text eol=lf\n")  # filters must not touch bytes
    (root / ".gitignore").write_text("build/\n")
    (root / "sub" / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "sub" / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "sub" / "tool.sh", 0o755)
    ws = root / "sub"  # the workspace is a folder of the repository
    j = UndoJournal(ws)
    j.begin("format")
    j.before_write("a.txt")  # an edit before the command: its own snapshot holds
    (ws / "a.txt").write_bytes(b"edited\r\n")
    j.before_command()
    # What the command does: rewrite two files, add one, delete one, write an ignored one.
    (ws / "a.txt").write_bytes(b"formatted\n")
    (ws / "tool.sh").write_text("#!/bin/sh\necho changed\n")
    (ws / "new.txt").write_text("made by the command\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_bytes(b"\0")
    j.end()
    result = j.undo()
    assert (ws / "a.txt").read_bytes() == b"one\r\ntwo\r\n"  # CRLF kept: no eol filter applied
    assert (ws / "tool.sh").read_text() == "#!/bin/sh\n"
    assert (ws / "tool.sh").stat().st_mode & 0o777 == 0o755
    assert not (ws / "new.txt").exists() and "new.txt" in result.removed
    assert (ws / "build" / "out.o").exists()  # ignored by git: not the journal's
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert "A " not in status and "M " not in status  # the user's index is untouched
    j.close()
