"""Consent to the MCP servers a project declares (`.mcp.json`, the project's settings files).

A cloned repository must not start a process on the user's machine by being opened: a server
marked `project` (prefixlock.coding.settings_files) starts only when the user agreed, as Claude Code
asks once per project server. What decides, first match wins (`consent`, pure):

    a server from the user's own files, or built in code      trusted
    --mcp-trust NAME (prefixlock run)                          approved
    disabledMcpjsonServers names it                            declined
    enabledMcpjsonServers names it, enableAllProjectMcpServers approved
    the user's earlier answer in the chat, for this command    approved / declined
    otherwise                                                  ask (the chat's dialog; run skips it)

The settings keys count only from the user's files and `.claude/settings.local.json`
(`load_settings` drops them from the files the repository ships). The chat's answers are kept
per project outside the repository, beside the session store
(`<store folder>/mcp-consent/<hash of the workspace path>.json`), each with a fingerprint of the
server's command line, environment and URL: a repository that changes what a server runs after
it was approved is asked about again.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .settings_files import ChatSettings, McpServerConfig

Verdict = Literal["trusted", "approved", "declined", "ask"]
#: The chat's remembered answers: server name -> (fingerprint, approved).
Answers = dict[str, tuple[str, bool]]


@dataclass(frozen=True)
class Consent:
    verdict: Verdict
    reason: str  # why, for the user ("" when asking)

    @property
    def starts(self) -> bool:
        return self.verdict in ("trusted", "approved")


def fingerprint(config: McpServerConfig) -> str:
    """What the user agreed to run: the command line, its environment, or the URL."""
    what = [config.command, list(config.args), dict(config.env or {}), config.url]
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:32]


def command_line(config: McpServerConfig) -> str:
    """The server as the user would type it (or its URL), for the dialog and the notes."""
    if config.url is not None:
        return config.url
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted((config.env or {}).items()))
    line = shlex.join([config.command, *config.args])
    return f"{env} {line}" if env else line


def consent(
    config: McpServerConfig,
    settings: ChatSettings,
    remembered: Answers | None = None,
    trusted: Iterable[str] = (),
) -> Consent:
    """Whether `config` may start (see the module docstring for the order)."""
    if not config.project:
        return Consent("trusted", "declared in your own settings")
    if config.name in set(trusted):
        return Consent("approved", "--mcp-trust")
    if config.name in settings.disabled_project_mcp:
        return Consent("declined", "disabledMcpjsonServers names it")
    if config.name in settings.enabled_project_mcp:
        return Consent("approved", "enabledMcpjsonServers names it")
    if settings.enable_all_project_mcp:
        return Consent("approved", "enableAllProjectMcpServers")
    answer = (remembered or {}).get(config.name)
    if answer is not None and answer[0] == fingerprint(config):
        return Consent("approved" if answer[1] else "declined", "your earlier answer")
    return Consent("ask", "")


def consent_path(store_path: Path | None, workspace: Path) -> Path | None:
    """Where the answers for `workspace` are kept, or None (no store: in memory only)."""
    from ..store.database import project_file

    return project_file(store_path, workspace, "mcp-consent", ".json")


class ConsentFile:
    """The user's answers for one project (a file that does not parse counts as none)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.answers: Answers = self._load()
        self.warning: str | None = None  # set when an answer could not be saved

    def _load(self) -> Answers:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            name: (str(entry["fingerprint"]), bool(entry["approved"]))
            for name, entry in data.items()
            if isinstance(entry, dict) and "fingerprint" in entry and "approved" in entry
        }

    def remember(self, config: McpServerConfig, approved: bool) -> None:
        self.answers[config.name] = (fingerprint(config), approved)
        if self.path is None:
            return
        data = {n: {"fingerprint": f, "approved": a} for n, (f, a) in self.answers.items()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True), "utf-8")
            tmp.replace(self.path)  # whole or not at all
        except OSError as exc:  # a read-only data dir: the answer holds for this session
            self.warning = f"MCP consent not saved to {self.path}: {exc.strerror or exc}"


def how_to_approve(config: McpServerConfig) -> str:
    """The ways to approve a project server, for the line `prefixlock run` prints."""
    return (
        f"approve it with --mcp-trust {config.name}, with enabledMcpjsonServers "
        f'["{config.name}"] (or enableAllProjectMcpServers) in ~/.claude/settings.json or '
        ".claude/settings.local.json, or once in prefixlock chat"
    )
