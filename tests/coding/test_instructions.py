"""The instruction files found as Claude Code finds its memory files: the user's own, the
folders above the workspace, the workspace's, their `@imports` (inside their tree, five hops at
most, not in code), and a subfolder's own file appended to the first read under it."""

from __future__ import annotations

from pathlib import Path

from prefixlock.coding.instructions import (
    NestedInstructions,
    changed_instruction_files,
    import_targets,
    project_instructions,
)
from prefixlock.coding.workspace import Workspace


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", tmp_path / "home" / "code" / "app"
    (home / ".claude").mkdir(parents=True)
    ws.mkdir(parents=True)
    return home, ws


def test_user_parent_and_project_files_in_claude_codes_order(tmp_path: Path) -> None:
    home, ws = _tree(tmp_path)
    (home / ".claude" / "CLAUDE.md").write_text("Answer in British English.\n")
    (home / "code" / "CLAUDE.md").write_text("All my code is typed.\n")
    (ws / "CLAUDE.md").write_text("Use tabs.\n")
    (ws / ".claude").mkdir()
    (ws / ".claude" / "CLAUDE.md").write_text("Team rule.\n")
    (ws / "CLAUDE.local.md").write_text("My sandbox URL.\n")
    text = project_instructions(ws, home)
    assert text == (
        "# User instructions from ~/.claude/CLAUDE.md\n\nAnswer in British English.\n\n"
        "# Parent folder instructions from ../CLAUDE.md\n\nAll my code is typed.\n\n"
        "# Project instructions from CLAUDE.md\n\nUse tabs.\n\n"
        "# Project instructions from .claude/CLAUDE.md\n\nTeam rule.\n\n"
        "# Project instructions from CLAUDE.local.md\n\nMy sandbox URL."
    )
    # Without a home folder (the SDK's default): the workspace's and its parents' only.
    assert "British" not in project_instructions(ws)


def test_imports_follow_the_file_that_names_them(tmp_path: Path) -> None:
    home, ws = _tree(tmp_path)
    (ws / "docs").mkdir()
    (ws / "docs" / "style.md").write_text("Wrap at 100 columns. See @rules.md\n")
    (ws / "docs" / "rules.md").write_text("No globals.\n")
    (ws / "CLAUDE.md").write_text(
        "Read @docs/style.md first. Mail me at me@example.com, use `@not/this.md`,\n"
        "install @anthropic-ai/sdk.\n```\n@docs/rules.md in a code block\n```\n"
    )
    text = project_instructions(ws, home)
    assert "# Imported instructions from docs/style.md (imported by CLAUDE.md)" in text
    assert "# Imported instructions from rules.md (imported by docs/style.md" in text
    assert text.index("Wrap at 100") < text.index("No globals.")
    assert import_targets((ws / "CLAUDE.md").read_text()) == ["docs/style.md", "anthropic-ai/sdk"]


def test_an_import_out_of_the_workspace_is_refused_and_said(tmp_path: Path) -> None:
    home, ws = _tree(tmp_path)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = SECRET\n")
    (ws / "CLAUDE.md").write_text("See @~/.aws/credentials and @../../.aws/credentials\n")
    text = project_instructions(ws, home)
    assert "SECRET" not in text
    assert text.count("[not imported:") == 2 and "outside" in text
    # The user's own file may import from the home folder.
    (home / ".claude" / "CLAUDE.md").write_text("@~/notes.md\n")
    (home / "notes.md").write_text("Prefer pathlib.\n")
    assert "Prefer pathlib." in project_instructions(ws, home)


def test_import_cycles_and_depth_are_bounded(tmp_path: Path) -> None:
    _, ws = _tree(tmp_path)
    for i in range(8):
        (ws / f"f{i}.md").write_text(f"level {i} @f{i + 1}.md @f0.md\n")
    (ws / "CLAUDE.md").write_text("@f0.md\n")
    text = project_instructions(ws)
    assert "level 4" in text and "level 5" not in text
    assert "more than 5 hops" in text
    assert text.count("level 0") == 1  # a cycle reads each file once


def test_a_nested_file_joins_the_first_read_under_its_folder(tmp_path: Path) -> None:
    _, ws = _tree(tmp_path)
    (ws / "src" / "api").mkdir(parents=True)
    (ws / "src" / "CLAUDE.md").write_text("src: no prints.\n")
    (ws / "src" / "api" / "AGENTS.md").write_text("api: every route has a test.\n")
    (ws / "src" / "api" / "routes.py").write_text("ROUTES = []\n")
    (ws / "src" / "util.py").write_text("X = 1\n")
    nested = NestedInstructions(ws)
    assert nested.for_read("README.md") == ""
    first = nested.for_read("src/api/routes.py")
    assert first.index("src: no prints.") < first.index("api: every route has a test.")
    assert nested.for_read("src/util.py") == ""  # given once
    # Through the workspace's read_file tool, as the model sees it.
    tools = {t.name: t for t in Workspace(ws, sandbox="off").read_only_tools()}
    out = tools["read_file"].fn(path="src/api/routes.py")
    assert "ROUTES = []" in out and "[Instructions for this folder, from src/CLAUDE.md]" in out


def test_changes_are_named_by_file(tmp_path: Path) -> None:
    home, ws = _tree(tmp_path)
    (home / ".claude" / "CLAUDE.md").write_text("one\n")
    (ws / "AGENTS.md").write_text("a\n")
    before = project_instructions(ws, home)
    (home / ".claude" / "CLAUDE.md").write_text("two\n")
    assert changed_instruction_files(before, project_instructions(ws, home)) == [
        "~/.claude/CLAUDE.md"
    ]
