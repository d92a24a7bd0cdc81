"""The prompt's pure parts and file listing: what completes at the cursor, how files rank, the
workspace's files (git's view where it is a repository), the input history file, mentions."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from prefixlock.coding.workspace import Workspace
from prefixlock.tui.completion import (
    Context,
    apply,
    command_candidates,
    context_at,
    file_candidates,
    workspace_files,
)
from prefixlock.tui.input_history import InputHistory
from prefixlock.tui.mentions import expand_mentions, mentioned


def test_context_is_a_leading_command_or_a_mention_anywhere() -> None:
    assert context_at("/mo", 3) == Context("command", 0, 3, "mo")
    assert context_at("hi /mo", 6) is None  # a command only as the first word
    assert context_at("//x", 3) is None  # `//` sends a slash to the model
    assert context_at("look at @src/a and", 14) == Context("file", 8, 14, "src/a")
    assert context_at("mail me@example.com", 19) is None  # not a word starting with @
    assert context_at("fix @src/ap.py now", 11) == Context("file", 4, 14, "src/ap")
    assert context_at("one\n@re", 7) == Context("file", 4, 7, "re")


def test_apply_replaces_the_word_and_leaves_one_space() -> None:
    ctx = context_at("see @sr please", 7)
    assert ctx is not None
    assert apply("see @sr please", ctx, "@src/app.py") == ("see @src/app.py please", 15)
    ctx = context_at("/he", 3)
    assert ctx is not None and apply("/he", ctx, "/help") == ("/help ", 6)


def test_ranking_prefix_then_file_name_then_substring() -> None:
    files = ["docs/app.md", "src/app.py", "app.py", "tests/test_app.py", "zapp.txt"]
    assert [c.value for c in file_candidates("app", files)] == [
        "@app.py",
        "@src/app.py",
        "@docs/app.md",
        "@zapp.txt",
        "@tests/test_app.py",
    ]
    assert [c.value for c in command_candidates("c")] == ["/compact", "/cost", "/clear"]


def test_files_of_a_plain_folder_skip_hidden_build_and_gitignored(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "i.js").write_text("")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h").write_text("")
    (tmp_path / "app.log").write_text("")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "o.bin").write_text("")
    (tmp_path / ".gitignore").write_text("*.log\nout/\n")
    assert workspace_files(tmp_path) == [".gitignore", "src/a.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_files_of_a_git_repository_are_gits_view(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("secret/\n!keep.log\n*.log\n")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "k").write_text("")
    (tmp_path / "a.log").write_text("")
    (tmp_path / "main.py").write_text("")
    assert workspace_files(tmp_path) == [".gitignore", "main.py"]


def test_history_file_skips_torn_lines_and_keeps_the_draft(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps("one") + "\n{torn\n" + json.dumps(["not text"]) + "\n")
    h = InputHistory(path)
    assert h.entries == ["one"]
    h.add("two\nlines")
    h.add("two\nlines")  # a repeat of the last is not kept twice
    assert InputHistory(path).entries == ["one", "two\nlines"]
    assert h.previous("typing") == "two\nlines"
    assert h.previous("") == "one"
    assert h.previous("") is None
    assert h.next() == "two\nlines"
    assert h.next() == "typing"
    assert h.next() is None


def test_history_is_cut_to_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    h = InputHistory(path, limit=3)
    for i in range(7):
        h.add(f"m{i}")
    assert InputHistory(path, limit=3).entries == ["m4", "m5", "m6"]
    assert len(path.read_text().splitlines()) <= 6


def test_mentions_attach_files_and_folders_and_leave_other_words(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    assert mentioned("see @src/a.py, and @bob. @src/a.py") == ["src/a.py", "bob"]
    out = expand_mentions("see @src/a.py, @src and ask @bob", Workspace(tmp_path))
    assert out.attached == ["src/a.py", "src"]
    assert out.problems == []  # @bob is not a path: left as typed, no warning
    assert out.message.startswith("see @src/a.py, @src and ask @bob\n\n")
    assert '<file path="src/a.py">\n1\tx = 1\n</file>' in out.message
    assert '<folder path="src">\na.py\n</folder>' in out.message
    gone = expand_mentions("read @missing.py", Workspace(tmp_path))
    assert gone.message == "read @missing.py" and "no such file" in gone.problems[0]


def test_custom_commands_are_candidates_after_the_chats_own() -> None:
    from prefixlock.coding.custom_commands import CustomCommand
    from prefixlock.tui.completion import command_candidates, custom_candidates

    custom = custom_candidates(
        {
            "model": CustomCommand("model", "shadowed", "", "x", ".claude/commands/model.md"),
            "mine": CustomCommand("mine", "Do my thing", "ARG", "x", "~/.claude/commands/mine.md"),
        }
    )
    assert [c.value for c in custom] == ["/mine"]
    assert custom[0].help == "ARG Do my thing (~/.claude/commands/mine.md)"
    assert [c.value for c in command_candidates("mi", custom)] == ["/mine"]
    assert [c.value for c in command_candidates("mode", custom)] == ["/model"]
