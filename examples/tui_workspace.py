"""The workspace-confined coding tools: read, search, edit with a diff, refuse escapes, and
keep a path a read rule denies (`Read(.env)`) out of folder-wide searches.

Runs offline in a temporary directory; the approval callback here approves edits and declines
commands, the way a user answering the TUI's prompt would.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from prefixlock.coding.workspace import ApprovalRequest, Decision, Workspace, WorkspaceError


async def ask(request: ApprovalRequest) -> Decision:
    print(f"approve? {request.summary} -> {'yes' if request.action == 'write' else 'no'}")
    return request.action == "write"


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "app.py").write_text("def greet():\n    return 'hello'\n")
        (root / ".env").write_text("TOKEN=return-of-the-secret\n")

        def read_denied(rel: str) -> str | None:  # what the settings' deny rules answer
            return "Read(.env)" if rel == ".env" else None

        ws = Workspace(root, approve=ask, read_denied=read_denied)
        tools = {t.name: t for t in ws.tools()}
        print(await tools["grep"].invoke({"pattern": "return"}))
        print(
            await tools["edit_file"].invoke(
                {"path": "app.py", "old_string": "'hello'", "new_string": "'hello, cache'"}
            )
        )
        for args in ({"path": "../../etc/passwd"},):
            try:
                await tools["read_file"].invoke(args)
            except WorkspaceError as exc:
                print("refused:", exc)
        try:
            await tools["run_command"].invoke({"command": "rm -rf ."})
        except WorkspaceError as exc:
            print("refused:", exc)
        assert (root / "app.py").exists()


if __name__ == "__main__":
    asyncio.run(main())
