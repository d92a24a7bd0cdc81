"""`.prefixlock/settings.toml`, the Claude Code `settings.json` shape and `.mcp.json` (read by the
chat and `prefixlock run`): merged user < project, every mistake one line naming the file and
the field, flags over the `[sandbox]` table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.coding.settings_files import SANDBOX_HOOK, load_settings
from prefixlock.errors import ConfigError
from tests.helpers.files import write


def test_project_wins_rules_add_up_and_the_claude_shape_is_read(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    write(
        home / ".prefixlock" / "settings.toml",
        (
            'model = "claude-haiku-4-5"\neffort = "low"\npermission_mode = "accept-edits"\n'
            '[permissions]\nallow = ["Bash(make:*)"]\n'
            '[mcp_servers.files]\ncommand = "python"\nargs = ["a.py"]\n'
        ),
    )
    write(
        ws / ".claude" / "settings.json",
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(npm test:*)", "WebFetch(domain:x.org)"],
                    "deny": ["Read(.env)"],
                    "defaultMode": "plan",
                },
                "hooks": {"PreToolUse": []},  # Claude Code's own: left alone
            }
        ),
    )
    write(
        ws / ".prefixlock" / "settings.toml",
        (
            'model = "claude-sonnet-4-6"\n[permissions]\ndeny = ["Bash(rm:*)"]\n'
            '[mcp_servers.files]\ncommand = "python3"\n[sandbox]\nnetwork = false\n'
        ),
    )
    s = load_settings(ws, home)
    assert s.model == "claude-sonnet-4-6"
    assert s.model_source.endswith("ws/.prefixlock/settings.toml")
    assert s.effort == "low"  # only the user file sets it
    assert s.mode == "plan"  # the project's Claude file named a mode; its toml did not
    assert [r.text for r in s.allow] == [
        "Bash(make:*)",
        "Bash(npm test:*)",
        "WebFetch(domain:x.org)",
    ]
    assert [r.text for r in s.deny] == ["Read(.env)", "Bash(rm:*)"]
    assert [(m.name, m.command, m.args) for m in s.mcp_servers] == [("files", "python3", ())]
    # A project's [sandbox] table is kept apart: it may only make the sandbox stricter.
    assert s.sandbox == {} and SANDBOX_HOOK == "sandbox"
    assert [t for _, t in s.project_sandbox] == [{"network": False}]
    assert len(s.sources) == 3
    # Without a home folder only the project's files count; no file at all: the defaults.
    assert load_settings(ws).effort is None
    assert load_settings(tmp_path / "empty").mode == "ask"


@pytest.mark.parametrize(
    ("name", "text", "where", "says"),
    [
        (
            ".prefixlock/settings.toml",
            'model = "x"\npermission_mode = yolo\n',
            ":2",
            "malformed TOML",
        ),
        (
            ".prefixlock/settings.toml",
            'permision_mode = "plan"\n',
            ": permision_mode",
            "unknown setting",
        ),
        (
            ".prefixlock/settings.toml",
            'permission_mode = "yolo"\n',
            ": permission_mode",
            "must be one of ask, accept-edits, plan, bypass",
        ),
        (".prefixlock/settings.toml", 'effort = "extreme"\n', ": effort", "must be one of"),
        (
            ".prefixlock/settings.toml",
            '[permissions]\nallow = ["Bsh(ls)"]\n',
            ": permissions.allow[0]",
            "unknown tool 'Bsh'",
        ),
        (
            ".prefixlock/settings.toml",
            '[permissions]\ndeny = "Bash(rm:*)"\n',
            ": permissions.deny",
            "must be a list",
        ),
        (
            ".prefixlock/settings.toml",
            '[mcp_servers.x]\nargs = ["a"]\n',
            ": mcp_servers.x.command",
            "non-empty text",
        ),
        (".prefixlock/settings.toml", "[sandbox]\n", "", None),  # an empty table is fine
        (
            ".claude/settings.json",
            '{"permissions": {"allow": [1]}}',
            ": permissions.allow[0]",
            "a rule must be text",
        ),
        (
            ".claude/settings.json",
            '{"permissions": {"defaultMode": "yes"}}',
            ": permissions.defaultMode",
            "must be one of default, acceptEdits",
        ),
        (".claude/settings.json", '{\n  "model": "x",\n}', ":3", "malformed JSON"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_file_and_field(
    tmp_path: Path, name: str, text: str, where: str, says: str | None
) -> None:
    path = write(tmp_path / name, text)
    if says is None:
        load_settings(tmp_path)
        return
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path)
    line = str(err.value)
    assert line.startswith(f"{path}{where}: "), line
    assert says in line and "\n" not in line


def test_mcp_json_is_read_between_the_user_and_the_project_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    write(home / ".prefixlock" / "settings.toml", '[mcp_servers.docs]\ncommand = "old"\n')
    write(
        ws / ".mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "docs": {
                        "type": "stdio",
                        "command": "${TOOLS}/docs",
                        "args": ["--port", "${PORT:-7}"],
                        "env": {"TOKEN": "${TOKEN:-}"},
                    },
                    "web": {"type": "http", "url": "https://mcp.example.com/mcp"},
                    "inv": {"command": "inv-server"},
                }
            }
        ),
    )
    write(ws / ".prefixlock" / "settings.toml", '[mcp_servers.inv]\ncommand = "inv2"\n')
    monkeypatch.setenv("TOOLS", "/opt/tools")  # `${TOOLS}` comes from the environment
    monkeypatch.delenv("PORT", raising=False)
    monkeypatch.delenv("TOKEN", raising=False)
    s = load_settings(ws, home)
    by_name = {m.name: m for m in s.mcp_servers}
    docs = by_name["docs"]  # .mcp.json over the user's file
    assert (docs.command, docs.args, docs.env) == (
        "/opt/tools/docs",
        ("--port", "7"),
        {"TOKEN": ""},
    )
    assert docs.source == str(ws / ".mcp.json")
    assert by_name["web"].url == "https://mcp.example.com/mcp" and by_name["web"].command == ""
    assert by_name["inv"].command == "inv2"  # the project's settings.toml over .mcp.json
    assert str(ws / ".mcp.json") in s.sources


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ('{"mcpServers": {"a": {"args": []}}}', ": mcpServers.a.command", "non-empty text"),
        (
            '{"mcpServers": {"a": {"command": "x", "cwd": "/"}}}',
            ": mcpServers.a.cwd",
            "unknown key (known: type, command, args, env, url)",
        ),
        (
            '{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}',
            ": mcpServers.a.type",
            "must be stdio or http",
        ),
        (
            '{"mcpServers": {"a": {"type": "http", "url": "h:1"}}}',
            ": mcpServers.a.url",
            "not an http(s) URL",
        ),
        (
            '{"mcpServers": {"a": {"command": "${NO_SUCH_VAR_H18A}"}}}',
            ": mcpServers.a",
            "${NO_SUCH_VAR_H18A} is not set",
        ),
        ('{"mcpServers": {"a b": {"command": "x"}}}', ": mcpServers.a b", "a server name is"),
        ('{"servers": {}}', ": servers", "unknown key (known: mcpServers)"),
        ('{"mcpServers": [1]}', ": mcpServers", "must be an object of servers"),
        ('{\n"mcpServers": {,}}', ":2", "malformed JSON"),
    ],
)
def test_a_bad_mcp_json_is_one_line_naming_the_field(
    tmp_path: Path, text: str, where: str, says: str
) -> None:
    path = write(tmp_path / ".mcp.json", text)
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path)
    line = str(err.value)
    assert line.startswith(f"{path}{where}: "), line
    assert says in line and "\n" not in line


def test_sandbox_flags_win_over_the_sandbox_table() -> None:
    from prefixlock.coding.settings_files import ChatSettings, sandbox_options

    table = ChatSettings(sandbox={"mode": "off", "network": True, "env": ["TERM"]})
    opts = sandbox_options(table)
    assert (opts.mode, opts.network, opts.env) == ("off", True, ("TERM",))
    flagged = sandbox_options(table, "bwrap", no_network=True)
    assert (flagged.mode, flagged.network, flagged.env) == ("bwrap", False, ("TERM",))
    assert sandbox_options(None).mode == "bwrap"
    with pytest.raises(ConfigError, match=r"^settings: \[sandbox\]: unknown key 'net'"):
        sandbox_options(ChatSettings(sandbox={"net": False}))
