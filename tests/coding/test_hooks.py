"""Claude Code's hooks: what each answer means (pure), the settings' shape and its errors, and
`prefixlock run` running them on the emulator: PreToolUse blocks a read, PostToolUse sees the
result, UserPromptSubmit and SessionStart add context to the user's message (never to the
prefix), Stop sends the model on once, and a repository's own hooks run only when trusted."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prefixlock.coding.hooks import Hook, interpret, parse_hooks
from prefixlock.errors import ConfigError
from tests.helpers.cli import run_cli


def test_exit_codes_and_json_answers_as_claude_code_reads_them() -> None:
    assert interpret("PreToolUse", 2, "", "no secrets\n", "s").block == "no secrets"
    assert interpret("PreToolUse", 0, "", "", "s").block is None
    failed = interpret("PreToolUse", 1, "", "boom", "s")
    assert failed.block is None and failed.notes == ["hook s failed (exit 1): boom"]
    assert interpret("Stop", None, "", "", "s").notes == ["hook s timed out and was stopped"]
    deny = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "not on main",
            }
        }
    )
    assert interpret("PreToolUse", 0, deny, "", "s").block == "not on main"
    allow = deny.replace('"deny"', '"allow"')
    got = interpret("PreToolUse", 0, allow, "", "s")
    assert got.block is None and "not honoured" in got.notes[0]
    block = json.dumps({"decision": "block", "reason": "run the tests first"})
    assert interpret("Stop", 0, block, "", "s").block == "run the tests first"
    assert interpret("UserPromptSubmit", 0, "Sprint ends Friday.", "", "s").context == [
        "Sprint ends Friday."
    ]
    extra = json.dumps({"hookSpecificOutput": {"additionalContext": "on branch dev"}})
    assert interpret("SessionStart", 0, extra, "", "s").context == ["on branch dev"]
    # Plain stdout of a tool hook is the user's transcript in Claude Code, not the model's.
    assert interpret("PostToolUse", 0, "formatted", "", "s").context == []


def test_the_settings_shape_and_its_errors_name_the_field() -> None:
    hooks, notes = parse_hooks(
        {
            "PreToolUse": [
                {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "x"}]}
            ],
            "Notification": [{"hooks": [{"type": "command", "command": "notify"}]}],
        },
        "settings.json",
        project=True,
    )
    (hook,) = hooks
    assert hook.matches("edit_file") and hook.matches("Write") and not hook.matches("read_file")
    assert hook.project and hook.source == "settings.json: hooks.PreToolUse[0].hooks[0]"
    assert notes == ["settings.json: hooks.Notification: prefixlock has no Notification event; "
                     "its hooks are not run"]  # fmt: skip
    with pytest.raises(ConfigError) as err:
        parse_hooks({"Stop": [{"hooks": [{"command": ""}]}]}, "s.json", project=False)
    assert err.value.where == "s.json: hooks.Stop[0].hooks[0]"
    with pytest.raises(ConfigError):
        parse_hooks(
            {"Stop": [{"hooks": [{"command": "x", "timeout": "soon"}]}]}, "s", project=False
        )
    assert Hook("PreToolUse", "*", "x", 1.0, "s", False).matches("mcp__db__query")


HOOK = """
import json, os, sys
event = json.load(sys.stdin)
log = os.environ["HOOK_LOG"]
with open(log, "a") as fh:
    fh.write(json.dumps({**event, "env_has_key": "ANTHROPIC_API_KEY" in os.environ}) + "\\n")
name = event["hook_event_name"]
if name == "PreToolUse" and event["tool_input"].get("file_path", "").endswith(".env"):
    print("reading .env is not allowed", file=sys.stderr)
    sys.exit(2)
if name == "UserPromptSubmit":
    print("Context from a hook: the release is on Friday.")
if name == "Stop" and not event["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "Also list the README."}))
"""


def _hooked_workspace(tmp_path: Path, where: str) -> tuple[Path, Path, Path]:
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".claude").mkdir(parents=True)
    (ws / ".claude").mkdir(parents=True)
    (ws / ".env").write_text("SECRET=1\n")
    (ws / "README.md").write_text("# demo\n")
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    group = [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]
    events = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart")
    settings = {"hooks": {event: group for event in events}}
    target = home if where == "user" else ws
    (target / ".claude" / "settings.json").write_text(json.dumps(settings))
    return home, ws, tmp_path / "hooks.jsonl"


def _events(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture(scope="module")
def emulator() -> Iterator[Any]:
    from prefixlock.emulator import Emulator, Rule, Script, Step

    script = Script(rules=[
        Rule(match="Read .env", steps=[
            Step(text="Reading.", tool="read_file", input={"path": ".env"}),
            Step(text="And the README.", tool="read_file", input={"path": "README.md"}),
            Step(text="Done."),
        ]),
        Rule(match="list the README", steps=[
            Step(text="Listing.", tool="list_dir", input={"path": "."}),
            Step(text="Listed."),
        ]),
    ])  # fmt: skip
    with Emulator.start(script=script) as emu:
        yield emu


def _run(ws: Path, home: Path, log: Path, url: str, *extra: str) -> Any:
    return run_cli(
        "run", "Read .env and README.md", "--workspace", str(ws), "--model", "claude-sonnet-4-6",
        "--output-format", "stream-json", "--base-url", url, *extra,
        env={"HOME": str(home), "HOOK_LOG": str(log), "ANTHROPIC_API_KEY": "sk-ant-hook-secret",
             "PREFIXLOCK_STORE": str(ws.parent / "s.sqlite")},
        cwd=ws.parent,
    )  # fmt: skip


def test_run_fires_the_users_hooks_in_claude_codes_shapes(tmp_path: Path, emulator: Any) -> None:
    home, ws, log = _hooked_workspace(tmp_path, "user")
    ran = _run(ws, home, log, emulator.base_url)
    assert ran.returncode == 0, ran.stderr
    events = _events(log)
    names = [e["hook_event_name"] for e in events]
    assert names[:2] == ["SessionStart", "UserPromptSubmit"] and names.count("Stop") == 2
    assert not any(e["env_has_key"] for e in events)  # the provider key is not the hook's
    pre = [e for e in events if e["hook_event_name"] == "PreToolUse"]
    assert {e["tool_name"] for e in pre} >= {"Read"}
    blocked = [e for e in pre if e["tool_input"].get("file_path", "").endswith(".env")]
    assert blocked and blocked[0]["tool_input"]["file_path"] == str((ws / ".env").resolve())
    assert all(e["session_id"] for e in events) and events[0]["cwd"] == str(ws.resolve())
    lines = [json.loads(line) for line in ran.stdout.splitlines()]
    results = [
        b for m in lines if m["type"] == "user" for b in m["message"]["content"]
    ]  # fmt: skip
    env_read = [r for r in results if "reading .env is not allowed" in r["content"]]
    assert env_read and env_read[0]["is_error"] and "SECRET" not in json.dumps(results)
    posts = [e for e in events if e["hook_event_name"] == "PostToolUse"]
    assert posts and all("tool_response" in e for e in posts)
    assert "Stop hook: going on: Also list the README." in ran.stderr
    # The hook's context joined the user's message; the system prompt is the same bytes.
    first = emulator.served()[-4].body
    assert "the release is on Friday" in json.dumps(first["messages"][0])
    assert "release" not in json.dumps(first["system"])
    assert "Listed." in lines[-1]["result"]


def test_a_repositorys_hooks_run_only_when_trusted(tmp_path: Path, emulator: Any) -> None:
    home, ws, log = _hooked_workspace(tmp_path, "project")
    ran = _run(ws, home, log, emulator.base_url)
    assert ran.returncode == 0, ran.stderr
    assert _events(log) == []
    assert "5 hook(s) of the workspace's settings not run" in ran.stderr
    assert "--trust-hooks runs them" in ran.stderr
    trusted = _run(ws, home, log, emulator.base_url, "--trust-hooks")
    assert trusted.returncode == 0, trusted.stderr
    assert [e["hook_event_name"] for e in _events(log)][:2] == ["SessionStart", "UserPromptSubmit"]
