"""`prefixlock run` reads what the chat reads: the settings files (model, effort, permission mode
and rules, `[sandbox]`, MCP servers, `.mcp.json`) and the custom commands; its flags win over
the settings; headless, a write or command that the chat would ask about is refused in one
clear line, and deny rules (MCP tools included) hold whatever the flags say."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import Ran, run_cli
from tests.helpers.files import write

KEY = "sk-ant-run-settings-secret"
MCP_SERVER = str(Path(__file__).resolve().parent.parent / "helpers" / "mcp_server.py")


@pytest.fixture(scope="module")
def emulator() -> Iterator[Any]:
    from prefixlock.emulator import Emulator, Rule, Script, Step

    script = Script(rules=[
        Rule(match="fix", steps=[
            Step(text="Editing.", tool="edit_file",
                 input={"path": "note.txt", "old_string": "draft", "new_string": "final"}),
            Step(text="Checking.", tool="run_command", input={"command": "echo checked"}),
            Step(text="Done."),
        ]),
        Rule(match="invoice", steps=[
            Step(text="Asking.", tool="mcp__inv__total", input={"number": "INV-7"}),
            Step(text="Answered."),
        ]),
        Rule(match="grow", steps=[
            Step(text="Growing.", tool="mcp__inv__grow"),
            Step(text="Discounting.", tool="mcp__inv__discount",
                 input={"number": "INV-7", "percent": 10}),
            Step(text="Grown."),
        ]),
        Rule(match="read env", steps=[
            Step(text="Reading.", tool="read_file", input={"path": ".env"}),
            Step(text="Read."),
        ]),
        Rule(match="", steps=[Step(text="Hello.")]),
    ])  # fmt: skip
    with Emulator.start(script=script) as emu:
        yield emu


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "note.txt").write_text("a draft\n")
    return ws, home


def _run(emulator: Any, ws: Path, home: Path, *args: str, task: str = "fix the note") -> Ran:
    return run_cli(
        "run", task, "--workspace", str(ws), "--base-url", emulator.base_url, *args,
        env={"ANTHROPIC_API_KEY": KEY, "HOME": str(home)},
    )  # fmt: skip


def _tool_results(emulator: Any) -> list[str]:
    """The tool results of the last request the emulator served."""
    out = []
    for message in emulator.served()[-1].body["messages"]:
        if isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    out.append(json.dumps(block["content"]))
    return out


def test_headless_refuses_what_the_chat_would_ask(tmp_path: Path, emulator: Any) -> None:
    ws, home = _workspace(tmp_path)
    ran = _run(
        emulator, ws, home, "--tools", "all", "--model", "claude-sonnet-4-6", "--sandbox", "off"
    )
    assert ran.returncode == 4, ran.stderr  # done, with a refusal
    assert (ws / "note.txt").read_text() == "a draft\n"  # nothing written
    said = [line for line in ran.stderr.splitlines() if "refused" in line]
    assert len(said) == 2  # the edit and the command, one line each
    assert "nobody to ask" in said[0] and "--allow write" in said[0]
    assert "nobody to ask" in said[1] and "Bash(npm test:*)" in said[1]
    results = "\n".join(_tool_results(emulator))
    assert results.count("prefixlock run has nobody to ask") == 2


def test_settings_rules_mode_model_effort_and_sandbox_reach_run(
    tmp_path: Path, emulator: Any
) -> None:
    ws, home = _workspace(tmp_path)
    # The user's file names the model and effort; the project's allows the edit and the
    # command and turns the sandbox off (a later file wins a scalar, rules add up).
    write(home / ".prefixlock" / "settings.toml", 'model = "claude-haiku-4-5"\neffort = "low"\n')
    write(
        ws / ".claude" / "settings.json",
        json.dumps({"permissions": {"allow": ["Edit(note.txt)", "Bash(echo:*)"]}}),
    )
    write(ws / ".prefixlock" / "settings.toml", '[sandbox]\nmode = "off"\n')
    ran = _run(emulator, ws, home, "--tools", "all")
    assert ran.returncode == 0, ran.stderr
    assert "refused" not in ran.stderr
    assert (ws / "note.txt").read_text() == "a final\n"
    body = emulator.served()[-1].body
    assert body["model"] == "claude-haiku-4-5"
    assert body["output_config"]["effort"] == "low"
    assert "checked" in "\n".join(_tool_results(emulator))


def test_flags_beat_settings_and_deny_rules_hold(tmp_path: Path, emulator: Any) -> None:
    ws, home = _workspace(tmp_path)
    write(
        ws / ".prefixlock" / "settings.toml",
        (
            'model = "claude-haiku-4-5"\npermission_mode = "plan"\n'
            '[permissions]\ndeny = ["Bash(echo:*)"]\n[sandbox]\nmode = "off"\n'
        ),
    )
    # --permission-mode over plan; --allow run cannot lift the deny rule.
    ran = _run(
        emulator,
        ws,
        home,
        "--tools",
        "all",
        "--model",
        "claude-sonnet-4-6",
        "--permission-mode",
        "accept-edits",
        "--allow",
        "run",
    )
    assert ran.returncode == 4, ran.stderr  # done, with a refusal
    assert emulator.served()[-1].body["model"] == "claude-sonnet-4-6"
    assert (ws / "note.txt").read_text() == "a final\n"
    refused = [line for line in ran.stderr.splitlines() if "refused" in line]
    assert len(refused) == 1 and "denied by Bash(echo:*)" in refused[0]
    assert "settings.toml: permissions.deny[0]" in refused[0]
    # Plan mode from the settings, no flag over it: the edit is refused too.
    (ws / "note.txt").write_text("a draft\n")
    ran = _run(emulator, ws, home, "--tools", "all", "--allow", "write")
    assert (ws / "note.txt").read_text() == "a draft\n"
    assert "plan mode is read-only" in ran.stderr


def test_read_deny_rules_guard_the_read_tools(tmp_path: Path, emulator: Any) -> None:
    ws, home = _workspace(tmp_path)
    (ws / ".env").write_text("TOKEN=hunter2\n")
    write(
        home / ".claude" / "settings.json", json.dumps({"permissions": {"deny": ["Read(.env)"]}})
    )  # a user-level rule
    ran = _run(emulator, ws, home, "--model", "claude-sonnet-4-6", task="read env")
    assert ran.returncode == 0, ran.stderr
    [result] = _tool_results(emulator)
    assert "reading it is denied by Read(.env)" in result and "hunter2" not in result


def test_a_bad_settings_file_or_model_is_one_line_exit_2(tmp_path: Path, emulator: Any) -> None:
    ws, home = _workspace(tmp_path)
    bad = write(ws / ".prefixlock" / "settings.toml", 'permission_mode = "always"\n')
    ran = _run(emulator, ws, home)
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.strip().splitlines() == [
        f"prefixlock: error: {bad}: permission_mode: must be one of ask, accept-edits, plan, "
        "bypass, got 'always'"
    ]
    bad.write_text('model = "claude-opsu-9"\n')
    ran = _run(emulator, ws, home)
    assert ran.returncode == 2 and f"{bad}: model: unknown model" in ran.stderr
    bad.write_text("[sandbox]\nnet = false\n")
    ran = _run(emulator, ws, home, "--tools", "all")
    assert ran.returncode == 2 and "unknown key 'net'" in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1


def test_a_slash_task_runs_a_custom_command(tmp_path: Path, emulator: Any) -> None:
    ws, home = _workspace(tmp_path)
    write(
        ws / ".prefixlock" / "commands" / "review.md",
        "---\ndescription: Review a file\n---\nReview $1 for typos, then say hello.\n",
    )
    ran = _run(emulator, ws, home, "--model", "claude-sonnet-4-6", task="/review note.txt")
    assert ran.returncode == 0, ran.stderr
    sent = emulator.served()[-1].body["messages"][0]["content"]
    assert "Review note.txt for typos, then say hello." in json.dumps(sent)
    ran = _run(emulator, ws, home, task="/reveiw note.txt")
    assert ran.returncode == 2
    assert ran.stderr.strip() == (
        "prefixlock: error: task: no custom command /reveiw in .claude/commands or "
        ".prefixlock/commands (found: /review); '//' sends a task that starts with '/'"
    )
    ran = _run(emulator, ws, home, "--model", "claude-sonnet-4-6", task="//reveiw is a typo")
    assert ran.returncode == 0, ran.stderr
    assert "/reveiw is a typo" in json.dumps(emulator.served()[-1].body["messages"][0])
    # A malformed command file: one line naming it, before anything is sent.
    bad = write(ws / ".claude" / "commands" / "fix.md", "---\ndescription: [oops\n---\nFix.\n")
    ran = _run(emulator, ws, home, task="/review note.txt")
    assert ran.returncode == 2 and len(ran.stderr.strip().splitlines()) == 1
    assert f"{bad}:2: malformed front matter" in ran.stderr


def test_mcp_servers_from_mcp_json_are_pinned_and_deny_rules_refuse_them(
    tmp_path: Path, emulator: Any
) -> None:
    pytest.importorskip("mcp")
    ws, home = _workspace(tmp_path)
    write(
        ws / ".mcp.json",
        json.dumps({"mcpServers": {"inv": {"command": "${PY}", "args": [MCP_SERVER]}}}),
    )
    env = {"ANTHROPIC_API_KEY": KEY, "HOME": str(home), "PY": sys.executable}
    # A project's server, trusted on the command line; its tool calls allowed by --allow mcp
    # (headless, an MCP call nobody allowed is refused: see the consent tests below).
    args = (
        "run",
        "invoice total",
        "--workspace",
        str(ws),
        "--base-url",
        emulator.base_url,
        "--model",
        "claude-sonnet-4-6",
        "--mcp-trust",
        "inv",
        "--allow",
        "mcp",
    )
    ran = run_cli(*args, env=env)
    assert ran.returncode == 0, ran.stderr
    tools = [t["name"] for t in emulator.served()[-1].body["tools"]]
    assert {"mcp__inv__add", "mcp__inv__total"} <= set(tools)
    assert _tool_results(emulator) == [json.dumps("INV-7: 12.30")]
    # A deny rule naming the server (Claude Code's form) refuses its tools.
    write(
        ws / ".claude" / "settings.local.json", json.dumps({"permissions": {"deny": ["mcp__inv"]}})
    )
    ran = run_cli(*args, env=env)
    assert ran.returncode == 4, ran.stderr  # done, with a refusal
    result = _tool_results(emulator)[0]
    assert "mcp__inv__total: refused (denied by mcp__inv" in result
    # A server that does not start: one line naming its entry, exit 2.
    (ws / ".claude" / "settings.local.json").unlink()
    gone = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    write(ws / ".mcp.json", json.dumps({"mcpServers": {"gone": gone}}))
    ran = run_cli(*args[:-4], "--mcp-trust", "gone", env=env)
    assert ran.returncode == 2
    assert f"{ws / '.mcp.json'}: mcpServers.gone: MCP server 'gone'" in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr


@pytest.mark.parametrize("policy", ["quote", "always"])
def test_a_changed_mcp_tool_list_follows_the_cache_policy(
    tmp_path: Path, emulator: Any, policy: str
) -> None:
    pytest.importorskip("mcp")
    ws, home = _workspace(tmp_path)
    write(
        ws / ".prefixlock" / "settings.toml",
        f'[mcp_servers.inv]\ncommand = "{sys.executable}"\nargs = ["{MCP_SERVER}"]\n',
    )
    # A system prompt long enough to be cached: the change would re-bill a warm cache.
    system = write(tmp_path / "system.txt", "You answer questions about invoices.\n" * 400)
    ran = _run(
        emulator,
        ws,
        home,
        "--model",
        "claude-sonnet-4-6",
        "--system",
        f"@{system}",
        "--tool-changes",
        policy,
        "--mcp-trust",
        "inv",
        "--allow",
        "mcp",
        task="grow the tools",
    )
    assert ran.returncode == 0, ran.stderr
    said = [line for line in ran.stderr.splitlines() if "MCP tools changed" in line]
    assert len(said) == 1 and "(added mcp__inv__discount)" in said[0]
    tools = {t["name"] for t in emulator.served()[-1].body["tools"]}
    discount = _tool_results(emulator)[-1]
    if policy == "always":
        assert "the next request has them (re-bills" in said[0]
        assert "mcp__inv__discount" in tools and "INV-7 discounted 10%" in discount
    else:
        assert "kept the pinned list (moving would re-bill" in said[0]
        assert "--tool-changes always" in said[0]
        assert "mcp__inv__discount" not in tools and "INV-7 discounted" not in discount


def _marking_server(ws: Path, marker: Path) -> None:
    """A repository's `.mcp.json` whose server writes `marker` as soon as it starts (then
    serves the test tools): the marker says whether the process ever ran."""
    code = (
        f"import pathlib, runpy, sys; pathlib.Path({str(marker)!r}).write_text('ran'); "
        f"sys.argv = [{MCP_SERVER!r}]; runpy.run_path({MCP_SERVER!r}, run_name='__main__')"
    )
    write(
        ws / ".mcp.json",
        json.dumps({"mcpServers": {"inv": {"command": sys.executable, "args": ["-c", code]}}}),
    )


def test_a_project_mcp_server_never_starts_without_consent(tmp_path: Path, emulator: Any) -> None:
    pytest.importorskip("mcp")
    ws, home = _workspace(tmp_path)
    marker = tmp_path / "marker"
    _marking_server(ws, marker)
    args = ("--model", "claude-sonnet-4-6")
    ran = _run(emulator, ws, home, *args, task="invoice total")
    assert ran.returncode == 0, ran.stderr
    assert not marker.exists()
    said = [line for line in ran.stderr.splitlines() if "MCP server" in line]
    assert len(said) == 1 and "'inv'" in said[0] and "not started" in said[0]
    assert "--mcp-trust inv" in said[0] and "enabledMcpjsonServers" in said[0]
    assert "mcp__inv__total" not in {t["name"] for t in emulator.served()[-1].body["tools"]}
    # The repository's own settings cannot approve it.
    write(ws / ".claude" / "settings.json", json.dumps({"enableAllProjectMcpServers": True}))
    ran = _run(emulator, ws, home, *args, task="invoice total")
    assert ran.returncode == 0 and not marker.exists()
    # Naming a server nobody declared is a user error: one line, exit 2, nothing started.
    ran = _run(emulator, ws, home, *args, "--mcp-trust", "nope", task="invoice total")
    assert ran.returncode == 2 and "--mcp-trust: no MCP server named 'nope'" in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1 and not marker.exists()
    # Approved in the user's local settings: it starts; its call, asked in the chat, is
    # refused headless until a rule allows it.
    write(ws / ".claude" / "settings.local.json", json.dumps({"enabledMcpjsonServers": ["inv"]}))
    ran = _run(emulator, ws, home, *args, task="invoice total")
    assert ran.returncode == 4, ran.stderr  # done, with a refusal
    assert marker.exists()
    assert "mcp__inv__total: refused (prefixlock run has nobody to ask" in ran.stderr
    assert "nobody to ask" in _tool_results(emulator)[0]
    write(
        ws / ".claude" / "settings.local.json",
        json.dumps(
            {"enabledMcpjsonServers": ["inv"], "permissions": {"allow": ["mcp__inv__total"]}}
        ),
    )
    ran = _run(emulator, ws, home, *args, task="invoice total")
    assert ran.returncode == 0, ran.stderr
    assert _tool_results(emulator) == [json.dumps("INV-7: 12.30")]
