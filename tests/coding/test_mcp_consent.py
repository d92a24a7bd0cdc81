"""Consent to a project's MCP servers (prefixlock.coding.mcp_consent) and the MCP tool-call
rulings (prefixlock.coding.permissions): a repository's `.mcp.json` or project settings cannot
start a server or approve itself; the user's files, local settings and remembered answers can;
MCP calls ask unless a rule, the mode or the user allows them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from prefixlock.coding.mcp_consent import (
    ConsentFile,
    command_line,
    consent,
    consent_path,
    fingerprint,
)
from prefixlock.coding.permissions import Permissions
from prefixlock.coding.settings_files import (
    ChatSettings,
    McpServerConfig,
    load_settings,
    parse_rule,
)
from prefixlock.errors import ConfigError


def _mcp_json(path: Path, **servers: list[str]) -> None:
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    name: {"command": cmd[0], "args": cmd[1:]} for name, cmd in servers.items()
                }
            }
        )
    )


def test_project_servers_are_marked_and_cannot_approve_themselves(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".claude").mkdir(parents=True)
    (home / ".prefixlock").mkdir(parents=True)
    _mcp_json(ws / ".mcp.json", evil=["sh", "-c", "touch x"])
    (home / ".prefixlock" / "settings.toml").write_text(
        '[mcp_servers.mine]\ncommand = "python"\nargs = ["srv.py"]\n'
    )
    # The repository's shared files say "approve everything": ignored.
    (ws / ".claude" / "settings.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True, "enabledMcpjsonServers": ["evil"]})
    )
    (ws / ".prefixlock").mkdir()
    (ws / ".prefixlock" / "settings.toml").write_text(
        'enable_all_project_mcp_servers = true\n[mcp_servers.tool]\ncommand = "x"\n'
    )
    settings = load_settings(ws, home)
    by_name = {s.name: s for s in settings.mcp_servers}
    assert by_name["evil"].project and by_name["tool"].project and not by_name["mine"].project
    assert settings.enable_all_project_mcp is None and settings.enabled_project_mcp == ()
    assert [consent(by_name[n], settings).verdict for n in ("evil", "tool", "mine")] == [
        "ask",
        "ask",
        "trusted",
    ]
    # The project's local file (the user's, not committed) and the user's files count.
    (ws / ".claude" / "settings.local.json").write_text(
        json.dumps({"enabledMcpjsonServers": ["evil"], "disabledMcpjsonServers": ["tool"]})
    )
    settings = load_settings(ws, home)
    by_name = {s.name: s for s in settings.mcp_servers}
    assert consent(by_name["evil"], settings).verdict == "approved"
    assert consent(by_name["tool"], settings).verdict == "declined"
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True})
    )
    (ws / ".claude" / "settings.local.json").unlink()
    settings = load_settings(ws, home)
    assert all(consent(s, settings).starts for s in settings.mcp_servers)
    # --mcp-trust wins over a decline; a disabled name wins over "enable all".
    settings = ChatSettings(enable_all_project_mcp=True, disabled_project_mcp=("evil",))
    assert consent(by_name["evil"], settings).verdict == "declined"
    assert consent(by_name["evil"], settings, trusted=["evil"]).verdict == "approved"


def test_consent_keys_are_checked(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    bad = tmp_path / ".claude" / "settings.local.json"
    bad.write_text(json.dumps({"enabledMcpjsonServers": "evil"}))
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    assert f"{bad}: enabledMcpjsonServers" in str(caught.value)
    bad.write_text(json.dumps({"enableAllProjectMcpServers": "yes"}))
    with pytest.raises(ConfigError, match="must be true or false"):
        load_settings(tmp_path)


def test_answers_are_remembered_per_project_outside_it_and_per_command(tmp_path: Path) -> None:
    ws = tmp_path / "repo"
    ws.mkdir()
    path = consent_path(tmp_path / "data" / "sessions.sqlite", ws)
    assert path is not None and ws not in path.parents
    assert path != consent_path(tmp_path / "data" / "sessions.sqlite", tmp_path)
    server = McpServerConfig("inv", sys.executable, ("srv.py",), {"K": "v w"}, "x", project=True)
    assert command_line(server) == f"K='v w' {sys.executable} srv.py"
    ConsentFile(path).remember(server, True)
    answers = ConsentFile(path).answers  # read back from the file
    assert consent(server, ChatSettings(), answers).verdict == "approved"
    # The repository changes what the server runs: asked again.
    changed = McpServerConfig("inv", sys.executable, ("other.py",), {"K": "v w"}, "x", project=True)
    assert fingerprint(changed) != fingerprint(server)
    assert consent(changed, ChatSettings(), answers).verdict == "ask"
    ConsentFile(path).remember(server, False)
    assert consent(server, ChatSettings(), ConsentFile(path).answers).verdict == "declined"
    path.write_text("{not json")  # a torn file counts as no answer, never as a yes
    assert ConsentFile(path).answers == {}


def _perms(
    mode: str = "ask", allow: tuple[str, ...] = (), deny: tuple[str, ...] = ()
) -> Permissions:
    return Permissions(
        ChatSettings(
            permission_mode=mode,  # type: ignore[arg-type]
            allow=tuple(parse_rule(r, "s.toml", "permissions.allow") for r in allow),
            deny=tuple(parse_rule(r, "s.toml", "permissions.deny") for r in deny),
        )
    )


def test_mcp_calls_ask_unless_a_rule_the_mode_or_the_user_allows_them() -> None:
    assert _perms().decide_tool("mcp__inv__add").verdict == "ask"
    # accept-edits accepts file edits only (as Claude Code's acceptEdits).
    assert _perms("accept-edits").decide_tool("mcp__inv__add").verdict == "ask"
    assert _perms("bypass").decide_tool("mcp__inv__add").verdict == "allow"
    assert _perms(allow=("mcp__inv",)).decide_tool("mcp__inv__add").verdict == "allow"
    assert _perms("plan").decide_tool("mcp__inv__add").verdict == "deny"
    p = _perms(deny=("mcp__inv__fail",))
    p.allowed_tools.add("mcp__inv__add")  # "always" in the dialog
    p.allow_mcp = False
    assert p.decide_tool("mcp__inv__add").verdict == "allow"
    assert p.decide_tool("mcp__inv__total").verdict == "ask"
    p.allow_mcp = True  # --allow mcp; a deny rule still holds
    assert p.decide_tool("mcp__inv__total").verdict == "allow"
    assert p.decide_tool("mcp__inv__fail").verdict == "deny"
    # Headless (run's gate): what would be asked is refused, saying how to allow it.
    refused = _perms().refuse_tool("mcp__inv__add") or ""
    assert "nobody to ask" in refused and "--allow mcp" in refused and "mcp__inv" in refused


def test_a_user_settings_toml_spells_the_keys_its_own_way(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (home / ".prefixlock").mkdir(parents=True)
    _mcp_json(ws / ".mcp.json", a=["x"], b=["y"])
    (home / ".prefixlock" / "settings.toml").write_text(
        'enabled_project_mcp_servers = ["a"]\ndisabled_project_mcp_servers = ["b"]\n'
    )
    settings = load_settings(ws, home)
    verdicts = {s.name: consent(s, settings).verdict for s in settings.mcp_servers}
    assert verdicts == {"a": "approved", "b": "declined"}
    (home / ".prefixlock" / "settings.toml").write_text("enable_all_project_mcp_servers = 1\n")
    with pytest.raises(ConfigError, match="enable_all_project_mcp_servers: must be true"):
        load_settings(ws, home)
