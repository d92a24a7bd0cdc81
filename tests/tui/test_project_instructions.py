"""AGENTS.md / CLAUDE.md / CONVENTIONS.md at the workspace root are read into the frozen prefix
at session start (a system block of their own, after the app's prompt), once; an edit later is
quoted and applied only when accepted (tests/tui/test_backend_project.py, and the dialog in
test_app_project.py)."""

from __future__ import annotations

import os
from pathlib import Path

from prefixlock.tui.backend import project_instructions


def test_instruction_files_in_order_each_named(tmp_path: Path) -> None:
    assert project_instructions(tmp_path) == ""
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n")
    (tmp_path / "AGENTS.md").write_text("Run `pytest -q` before you say done.\n")
    (tmp_path / "CONVENTIONS.md").mkdir()  # not a file: skipped
    text = project_instructions(tmp_path)
    assert text == (
        "# Project instructions from AGENTS.md\n\nRun `pytest -q` before you say done.\n\n"
        "# Project instructions from CLAUDE.md\n\nUse tabs."
    )
    (tmp_path / "AGENTS.md").write_text("x" * 70_000)
    assert "[AGENTS.md cut at 64,000 bytes]" in project_instructions(tmp_path)


def test_an_instruction_file_linking_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    """`AGENTS.md -> ~/.ssh/id_ed25519` must not send the key to the provider; a FIFO must not
    block the session's start."""
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "id_ed25519").write_text("PRIVATE KEY\n")
    (root / "AGENTS.md").symlink_to(tmp_path / "id_ed25519")
    os.mkfifo(root / "CLAUDE.md")
    (root / "docs.md").write_text("Inside.\n")
    (root / "CONVENTIONS.md").symlink_to(root / "docs.md")  # a link inside is fine
    assert project_instructions(root) == "# Project instructions from CONVENTIONS.md\n\nInside."
