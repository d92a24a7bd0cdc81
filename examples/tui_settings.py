"""The chat's project settings from Python: read `.prefixlock/settings.toml` (and a Claude Code
`.claude/settings.json`), see what its permission rules decide, expand a custom slash command,
and put a file back with the /undo journal.

Runs offline in a temporary directory; no model, no network.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from prefixlock.coding.custom_commands import load_commands
from prefixlock.coding.permissions import Permissions
from prefixlock.coding.settings_files import load_settings
from prefixlock.coding.workspace import ApprovalRequest
from prefixlock.tui.undo import UndoJournal


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".prefixlock").mkdir()
        (root / ".prefixlock" / "settings.toml").write_text(
            'permission_mode = "accept-edits"\n'
            '[permissions]\nallow = ["Bash(pytest:*)"]\ndeny = ["Bash(rm:*)", "Edit(.env)"]\n'
        )
        (root / ".claude").mkdir()
        (root / ".claude" / "settings.json").write_text(
            json.dumps({"permissions": {"deny": ["Read(secrets/**)"]}})
        )
        settings = load_settings(root)
        perms = Permissions(settings)
        for request in (
            ApprovalRequest("run", "run_command", "run: pytest -q", "pytest -q"),
            ApprovalRequest("run", "run_command", "run: make && rm -rf /", "make && rm -rf /"),
            ApprovalRequest("run", "run_command", "run: make", "make"),
            ApprovalRequest("write", "edit_file", "edit src/a.py", "diff", "src/a.py"),
            ApprovalRequest("write", "edit_file", "edit .env", "diff", ".env"),
        ):
            ruling = perms.decide(request)
            print(f"{request.summary:28} {ruling.verdict:5} {ruling.reason}")
        denied = perms.read_denied("secrets/key.pem")
        print("read secrets/key.pem:", f"denied by {denied.text}" if denied else "allowed")

        (root / ".prefixlock" / "commands").mkdir()
        (root / ".prefixlock" / "commands" / "review.md").write_text(
            "---\ndescription: Review a file\n---\nReview $ARGUMENTS for bugs.\n"
        )
        commands, _ = load_commands(root)
        print("/review app.py ->", commands["review"].expand("app.py"))

        (root / "app.py").write_bytes(b"x = 1\r\n")
        journal = UndoJournal(root)
        journal.begin("fix app.py")
        journal.before_write("app.py")  # what the chat does once a write is approved
        (root / "app.py").write_text("x = 2\n")
        journal.end()
        print(journal.undo().text(), (root / "app.py").read_bytes())
        journal.close()


if __name__ == "__main__":
    main()
