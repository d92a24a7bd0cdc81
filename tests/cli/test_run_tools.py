"""`prefixlock run --tools all` has the chat's tools, instruction files and command sandbox: a
scripted model edits a file and runs a command; the edit lands byte-exact, the command runs
confined (no key from this process, in its environment or /proc), AGENTS.md is in the prefix,
and without a usable sandbox the run stops before it starts, in one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prefixlock.coding.sandbox import SandboxMode
from tests.helpers.cli import run_cli
from tests.helpers.sandbox import MODES

KEY = "sk-ant-run-parity-secret"
PROBE = "cat note.txt; env; cat /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n'; echo probed"


@pytest.fixture(scope="module")
def emulator() -> Iterator[Any]:
    from prefixlock.emulator import Emulator, Rule, Script, Step

    script = Script(rules=[Rule(match="fix", steps=[
        Step(text="Editing.", tool="edit_file",
             input={"path": "note.txt", "old_string": "draft", "new_string": "final"}),
        Step(text="Checking.", tool="run_command", input={"command": PROBE}),
        Step(text="Fixed it."),
    ])])  # fmt: skip
    with Emulator.start(script=script) as emu:
        yield emu


def _tool_results(emu: Any) -> list[str]:
    """The tool results the model was sent in the last request."""
    body = emu.served()[-1].body
    out = []
    for message in body["messages"]:
        if isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    out.append(json.dumps(block["content"]))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_run_edits_and_runs_commands_like_the_chat(
    tmp_path: Path, emulator: Any, mode: SandboxMode
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "note.txt").write_bytes(b"caf\xe9 draft\r\n")  # Latin-1, CRLF: kept byte for byte
    (ws / "AGENTS.md").write_text("Run the tests before you say done.\n")
    proc = run_cli(
        "run", "fix the note", "--tools", "all", "--allow", "write", "--allow", "run",
        "--sandbox", mode, "--workspace", str(ws), "--model", "claude-sonnet-4-6",
        "--base-url", emulator.base_url,
        env={"ANTHROPIC_API_KEY": KEY},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Fixed it." in proc.stdout
    assert (ws / "note.txt").read_bytes() == b"caf\xe9 final\r\n"
    body = emulator.served()[-1].body
    assert "# Project instructions from AGENTS.md" in json.dumps(body["system"])
    assert {"edit_file", "write_file", "run_command"} <= {t["name"] for t in body["tools"]}
    results = "\n".join(_tool_results(emulator))
    assert "probed" in results and "exit code 0" in results
    # The key set for this run never reached the command's environment (in the off mode the
    # parent's /proc environ is the in-process CLI's, which got the key via os.environ only).
    assert KEY not in results


def test_without_a_usable_sandbox_run_stops_in_one_line(tmp_path: Path) -> None:
    proc = run_cli(
        "run", "fix the note", "--tools", "all", "--allow", "run", "--workspace", str(tmp_path),
        env={"PATH": str(tmp_path)},  # no bwrap on this PATH
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith("prefixlock: error: --sandbox: ")
    assert "not available" in line and "--sandbox off" in line


def test_allow_needs_all_tools(tmp_path: Path) -> None:
    proc = run_cli("run", "hi", "--allow", "write", "--workspace", str(tmp_path))
    assert proc.returncode == 2
    expected = "prefixlock: error: --allow: needs --tools all (read tools never ask)"
    assert proc.stderr.strip() == expected


def test_run_loads_the_instruction_files_with_read_tools(tmp_path: Path, emulator: Any) -> None:
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n")
    proc = run_cli(
        "run", "hello", "--workspace", str(tmp_path), "--model", "claude-sonnet-4-6",
        "--base-url", emulator.base_url, env={"ANTHROPIC_API_KEY": KEY},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    system = json.dumps(emulator.served()[-1].body["system"])
    assert "# Project instructions from CLAUDE.md\\n\\nUse tabs." in system
