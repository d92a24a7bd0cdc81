"""Agent files: the built-in set, Claude Code's format, precedence, and errors with lines."""

from __future__ import annotations

import logging
from decimal import Decimal
from pathlib import Path

import pytest

from prefixlock.agents.definitions import load_definition, parse_definition
from prefixlock.agents.registry import AgentRegistry
from prefixlock.errors import UserError

CLAUDE_FILE = """---
name: code-reviewer
description: Reviews code for quality.
tools: Read, Grep, Glob, Bash(git diff:*)
model: haiku
color: blue
permissionMode: default
---
You are a senior code reviewer.
"""


def test_builtin_set_has_explorer_and_summarizer() -> None:
    reg = AgentRegistry.discover(None)
    assert {"explorer", "summarizer"} <= set(reg.names())
    explorer = reg.get("explorer")
    assert explorer.tools == ("read_file", "list_dir", "glob", "grep")
    assert explorer.model == "haiku"
    assert explorer.max_dollars == Decimal("0.50")
    assert explorer.origin == "builtin"
    assert reg.warnings == []


def test_claude_code_file_loads_as_it_is(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "code-reviewer.md").write_text(CLAUDE_FILE)
    with caplog.at_level(logging.WARNING, logger="prefixlock.agents"):
        reg = AgentRegistry.discover(tmp_path)
        AgentRegistry.discover(tmp_path)  # loading again reports nothing new
    d = reg.get("code-reviewer")
    assert d.model == "haiku"
    assert d.tools == ("read_file", "grep", "glob", "run_command")
    assert d.system == "You are a senior code reviewer."
    assert d.origin == "claude"
    assert dict(d.extra) == {"color": "blue", "permissionMode": "default"}
    assert len(reg.warnings) == 2 and all("code-reviewer.md" in w for w in reg.warnings)
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 2  # once per key, not once per load


def test_tools_as_yaml_list_and_inherit(tmp_path: Path) -> None:
    d = parse_definition("---\nname: a\ntools:\n  - Read\n  - grep\nmodel: inherit\n---\nhi\n")
    assert d.tools == ("read_file", "grep")
    assert d.model is None


def test_project_overrides_claude_overrides_builtin(tmp_path: Path) -> None:
    (tmp_path / ".claude/agents").mkdir(parents=True)
    (tmp_path / ".prefixlock/agents").mkdir(parents=True)
    (tmp_path / ".claude/agents/explorer.md").write_text(
        "---\nname: explorer\nmodel: sonnet\n---\nx"
    )
    reg = AgentRegistry.discover(tmp_path)
    assert reg.get("explorer").model == "sonnet"
    (tmp_path / ".prefixlock/agents/explorer.md").write_text(
        "---\nname: explorer\nmodel: opus\n"
        "limits: {turns: 3, dollars: 0.1, summary_tokens: 50}\n---\nx"
    )
    d = AgentRegistry.discover(tmp_path).get("explorer")
    limits = (d.model, d.max_turns, d.max_dollars, d.summary_tokens)
    assert limits == ("opus", 3, Decimal("0.1"), 50)


def test_malformed_front_matter_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.md"
    bad.write_text(
        "---\nname: broken\ndescription: fine\ntools: [Read, Grep\nmodel: haiku\n---\nbody\n"
    )
    with pytest.raises(UserError) as info:
        load_definition(bad)
    # YAML notices the unclosed list on line 5; the message names line 4, where it opened.
    assert info.value.where == f"{bad}:5"
    assert "flow sequence that starts on line 4" in str(info.value)
    with pytest.raises(UserError) as quoted:
        parse_definition('---\nname: "unclosed\nmodel: haiku\n---\n', "q.md")
    assert quoted.value.where == "q.md:3"
    assert "quoted scalar that starts on line 2" in str(quoted.value)


def test_bad_value_names_its_line(tmp_path: Path) -> None:
    with pytest.raises(UserError) as info:
        parse_definition("---\nname: a\n\nmaxTurns: many\n---\n", "x.md")
    assert info.value.where == "x.md:4"


def test_unclosed_and_missing_front_matter() -> None:
    with pytest.raises(UserError, match="never closed") as info:
        parse_definition("---\nname: a\n", "a.md")
    assert info.value.where == "a.md:1"
    with pytest.raises(UserError, match="no YAML front matter"):
        parse_definition("just text", "b.md")


def test_unknown_agent_lists_known_ones() -> None:
    with pytest.raises(UserError, match="known agents: explorer"):
        AgentRegistry.discover(None).get("nope")
