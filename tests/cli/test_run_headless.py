"""`prefixlock run` in scripts: `--output-format json|stream-json` in Claude Code's headless
shapes, the task from standard input with `-`, the summary and session id on stderr, and exit
codes that tell a finished task from one a limit stopped or one whose writes were refused."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import Ran, run_cli

KEY = "sk-ant-headless-secret"

# The fields Claude Code's headless mode documents for each line (`claude -p --output-format
# json|stream-json`): a script that reads these from Claude Code reads them from us.
RESULT_FIELDS = {
    "type", "subtype", "is_error", "duration_ms", "num_turns", "result", "session_id",
    "total_cost_usd", "usage", "permission_denials",
}  # fmt: skip
USAGE_FIELDS = {
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens",
}  # fmt: skip
INIT_FIELDS = {"type", "subtype", "cwd", "session_id", "tools", "model", "permissionMode"}


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "tokenizer_config.py").write_text("VOCAB_SIZE = 32000\n")
    (root / "README.md").write_text("# demo\n")
    system = root.parent / "system.md"
    system.write_text(" ".join(f"Rule {i}: read before you answer." for i in range(300)))
    return system


def _run(tmp_path: Path, *extra: str, task: str = "Where is the tokenizer configured?") -> Ran:
    ws = tmp_path / "ws"
    system = _project(ws)
    return run_cli(
        "run", task, "--workspace", str(ws), "--system", f"@{system}",
        "--model", "claude-opus-4-7", *extra, cwd=tmp_path,
    )  # fmt: skip


def _session_id(stderr: str) -> str:
    m = re.search(r"^prefixlock: session (\S+)$", stderr, re.M)
    assert m, stderr
    return m.group(1)


def test_json_prints_one_result_object_and_the_summary_goes_to_stderr(tmp_path: Path) -> None:
    ran = _run(tmp_path, "--output-format", "json")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert set(result) >= RESULT_FIELDS and set(result["usage"]) >= USAGE_FIELDS
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["is_error"] is False and result["permission_denials"] == []
    assert "VOCAB_SIZE = 32000" in result["result"]
    assert result["session_id"] == _session_id(ran.stderr)
    # list, grep, read, answer: four replies; the later ones read the cached prefix.
    assert result["num_turns"] == 4
    assert result["usage"]["cache_read_input_tokens"] >= 3 * 2048
    assert result["total_cost_usd"] > 0 and result["prefixlock"]["exit_code"] == 0
    assert re.search(r"^4 requests: read [\d,]+", ran.stderr, re.M)


def test_stream_json_is_init_then_messages_then_the_result(tmp_path: Path) -> None:
    ran = _run(tmp_path, "--output-format", "stream-json")
    assert ran.returncode == 0, ran.stderr
    lines = [json.loads(line) for line in ran.stdout.strip().splitlines()]
    init, *messages, result = lines
    assert set(init) >= INIT_FIELDS and (init["type"], init["subtype"]) == ("system", "init")
    assert {"read_file", "list_dir"} <= set(init["tools"]) and init["permissionMode"] == "ask"
    assert result["type"] == "result" and result["session_id"] == init["session_id"]
    kinds = [m["type"] for m in messages]
    assert kinds == ["assistant", "user"] * 3 + ["assistant"]
    calls = [b for m in messages[::2] for b in m["message"]["content"] if b["type"] == "tool_use"]
    results = [b for m in messages[1::2] for b in m["message"]["content"]]
    # Every tool result answers the call before it, by id, as in Anthropic's messages.
    assert [c["id"] for c in calls] == [r["tool_use_id"] for r in results]
    assert all(r["type"] == "tool_result" for r in results)
    assert all(set(m["message"]["usage"]) >= USAGE_FIELDS for m in messages[::2])
    final = messages[-1]["message"]["content"]
    assert final[0]["type"] == "text" and final[0]["text"] == result["result"]


def test_a_dash_reads_the_task_from_stdin(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Where is the tokenizer configured?\n"))
    ran = _run(tmp_path, "--output-format", "json", task="-")
    assert ran.returncode == 0, ran.stderr
    assert "VOCAB_SIZE = 32000" in json.loads(ran.stdout)["result"]


def test_a_dash_on_a_terminal_is_one_line(tmp_path: Path, monkeypatch: Any) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Tty())
    ran = _run(tmp_path, task="-")
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.strip() == (
        "prefixlock: error: task: '-' reads the task from standard input, which is a terminal"
    )


def test_a_turn_limit_exits_3_with_claude_codes_subtype(tmp_path: Path) -> None:
    ran = _run(tmp_path, "--output-format", "json", "--max-turns", "2")
    assert ran.returncode == 3, ran.stderr
    result = json.loads(ran.stdout)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["num_turns"] == 2
    assert "stopped by the turns limit (exit 3)" in ran.stderr


@pytest.fixture(scope="module")
def editor() -> Iterator[Any]:
    from prefixlock.emulator import Emulator, Rule, Script, Step

    script = Script(rules=[Rule(match="fix", steps=[
        Step(text="Editing.", tool="edit_file",
             input={"path": "note.txt", "old_string": "draft", "new_string": "final"}),
        Step(text="I could not edit it."),
    ])])  # fmt: skip
    with Emulator.start(script=script) as emu:
        yield emu


def test_a_refused_write_exits_4_and_is_listed(tmp_path: Path, editor: Any) -> None:
    (tmp_path / "note.txt").write_text("draft\n")
    ran = run_cli(
        "run", "fix the note", "--tools", "all", "--workspace", str(tmp_path),
        "--model", "claude-sonnet-4-6", "--base-url", editor.base_url,
        "--output-format", "json", env={"ANTHROPIC_API_KEY": KEY},
    )  # fmt: skip
    assert ran.returncode == 4, ran.stderr
    result = json.loads(ran.stdout)
    assert result["subtype"] == "success" and result["result"] == "I could not edit it."
    (denial,) = result["permission_denials"]
    assert denial["tool_name"] == "edit_file" and "note.txt" in denial["summary"]
    assert (tmp_path / "note.txt").read_text() == "draft\n"
    assert "exit 4: the model finished, but 1 write(s)" in ran.stderr
    assert KEY not in ran.stdout + ran.stderr


def test_an_ask_rule_is_refused_headless_even_with_allow(tmp_path: Path, editor: Any) -> None:
    (tmp_path / "note.txt").write_text("draft\n")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"ask": ["Edit(note.txt)"]}})
    )
    ran = run_cli(
        "run", "fix the note", "--tools", "all", "--allow", "write", "--workspace", str(tmp_path),
        "--model", "claude-sonnet-4-6", "--base-url", editor.base_url,
        "--output-format", "json", env={"ANTHROPIC_API_KEY": KEY},
    )  # fmt: skip
    assert ran.returncode == 4, ran.stderr
    (denial,) = json.loads(ran.stdout)["permission_denials"]
    assert "asked by Edit(note.txt)" in denial["reason"]
    assert (tmp_path / "note.txt").read_text() == "draft\n"


def test_continue_resumes_the_newest_session_of_the_workspace(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    none = _run(tmp_path / "b", "--continue", "--store", store)
    assert none.returncode == 2 and "--continue: no stored session of" in none.stderr
    first = _run(tmp_path / "a", "--store", store, "--output-format", "json")
    assert first.returncode == 0, first.stderr
    sid = json.loads(first.stdout)["session_id"]
    again = run_cli(
        "run", "Where is the tokenizer configured?", "--workspace", str(tmp_path / "a" / "ws"),
        "--continue", "--store", store, "--output-format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["session_id"] == sid
    assert result["usage"]["cache_read_input_tokens"] > 0
