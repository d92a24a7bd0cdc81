"""A small Python project and a scripted model that edits, writes, runs commands and calls MCP
tools in it: the project features' tests share them, on the app and on the backend."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from prefixlock.coding.settings_files import McpServerConfig, parse_rule
from prefixlock.emulator import Rule, Script, Step

# CRLF line ends, a Latin-1 byte, no final newline: /undo must put back every byte.
LEGACY = b"a = 1\r\nb = 2\r\ncaf\xe9 = 'Latin-1'\r\nno final newline"
MCP_SERVER = str(Path(__file__).resolve().parent.parent / "helpers" / "mcp_server.py")

PROJECT_SCRIPT = Script(
    rules=[
        Rule(
            match="edit legacy",
            steps=[
                Step(
                    text="Editing.",
                    tool="edit_file",
                    input={"path": "legacy.txt", "old_string": "b = 2", "new_string": "b = 3"},
                ),
                Step(text="Edited."),
            ],
        ),
        Rule(
            match="make module",
            steps=[
                Step(
                    text="Writing.",
                    tool="write_file",
                    input={"path": "pkg/new/mod.py", "content": "X = 1\n"},
                ),
                Step(text="Written."),
            ],
        ),
        Rule(
            match="echo twice",
            steps=[
                Step(
                    text="Running.", tool="run_command", input={"command": "echo ok && echo fine"}
                ),
                Step(text="Ran."),
            ],
        ),
        Rule(
            match="edit then run",
            steps=[
                Step(
                    text="Editing.",
                    tool="edit_file",
                    input={"path": "legacy.txt", "old_string": "a = 1", "new_string": "a = 2"},
                ),
                Step(text="Running.", tool="run_command", input={"command": "echo ok"}),
                Step(text="Done."),
            ],
        ),
        Rule(
            match="format it",
            steps=[
                Step(
                    text="Formatting.",
                    tool="run_command",
                    input={"command": "printf 'def main():\\n    return 2\\n' > src/app.py"},
                ),
                Step(text="Formatted."),
            ],
        ),
        Rule(
            match="read env",
            steps=[
                Step(text="Reading.", tool="read_file", input={"path": ".env"}),
                Step(text="Read."),
            ],
        ),
        Rule(
            match="grow",
            steps=[
                Step(text="Growing.", tool="mcp__inv__grow"),
                Step(text="Grown."),
            ],
        ),
        Rule(
            match="invoice",
            steps=[
                Step(text="Asking.", tool="mcp__inv__total", input={"number": "INV-7"}),
                Step(text="It is 12.30."),
            ],
        ),
    ]
)


def make_project(root: Path) -> Path:
    """The project at `root`: src/app.py, tests/, legacy.txt (LEGACY), a .env, pyproject.toml."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "legacy.txt").write_bytes(LEGACY)
    (root / ".env").write_text("DATABASE_URL=postgres://secret\n")
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text("def test_main():\n    assert True\n")
    return root


def rules(*texts: str, key: str = "allow") -> tuple[Any, ...]:
    """Permission rules as a settings file would give them (named `settings.toml:
    permissions.KEY[i]` in what they say)."""
    return tuple(
        parse_rule(t, "settings.toml", f"permissions.{key}[{i}]") for i, t in enumerate(texts)
    )


def inv_server() -> McpServerConfig:
    """The test MCP server (tests/helpers/mcp_server.py) as the settings file declares it."""
    return McpServerConfig("inv", sys.executable, (MCP_SERVER,), None, "settings.toml")
