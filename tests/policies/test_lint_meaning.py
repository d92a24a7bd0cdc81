"""Volatile values by meaning (names split into words), the TypeScript/JavaScript front end, the
directory walk of agent folders, and the precision fixes found on real agent projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source
from prefixlock.policies.jscheck import check_js
from prefixlock.policies.meaning import kind_of_name, words


@pytest.mark.parametrize(
    "name, kind",
    [
        ("current_date_time", "time"),
        ("date_time", "time"),
        ("today_str", "date"),
        ("timestamp_utc", "time"),
        ("utc_now", "time"),
        ("iso_date", "date"),
        ("current_branch", "vcs"),
        ("repo_tree", "filetree"),
        ("cwd_listing", "filetree"),
        ("currentTime", "time"),
        ("getGitStatus", "vcs"),
        ("CURRENT_DATE", "date"),
        ("request-id", "random"),
        ("memory_usage", "runtime"),
        ("turn_count", "runtime"),
        ("project_files", "filetree"),
        ("file_tree", "filetree"),
        ("nonce", "random"),
        # Settings about a value, and words that only look like one.
        ("time_limit", None),
        ("date_format", None),
        ("update", None),
        ("timeout", None),
        ("tree_sitter", None),
        ("session_id", None),
        ("max_time", None),
        ("user_name", None),
        ("TIME_FORMAT", None),
        ("files", None),
        ("step", None),
    ],
)
def test_names_are_read_by_their_words(name: str, kind: str | None) -> None:
    assert kind_of_name(name) == kind


def test_words_split_snake_camel_kebab_and_digits() -> None:
    assert words("current_dateTime-UTC2") == ["current", "date", "time", "utc", "2"]
    assert words("HTTPServerTime") == ["http", "server", "time"]


@pytest.mark.parametrize(
    "template, code",
    [
        ("System: today is {{ today_str }}.", "PL102"),
        ("Now {{ current_date_time }}.", "PL101"),
        ("Branch {{ current_branch }}", "PL104"),
        ("Layout:\n{{ repo_tree }}", "PL105"),
        ("{% for f in cwd_listing %}{{ f }}{% endfor %}", "PL105"),
    ],
)
def test_template_placeholders_by_meaning(template: str, code: str) -> None:
    assert [f.code for f in lint_source(template, "system.j2")] == [code]


def test_python_names_by_meaning_through_fstring_and_format() -> None:
    src = (
        "def build(today_str, repo):\n"
        '    system_prompt = f"Today is {today_str}."\n'
        "    return system_prompt\n\n\n"
        "def other(b):\n"
        '    system_prompt = "On {branch}".format(branch=get_current_branch(b))\n'
        "    return system_prompt\n"
    )
    assert [(f.line, f.code) for f in lint_source(src, "p.py")] == [(2, "PL102"), (7, "PL104")]


TS = """// a comment `${new Date()}` is not code
const re = /`[a-z]+/g;
const now = new Date().toISOString();
export const SYSTEM_PROMPT = `You are an agent.
Today is ${now}. Branch: ${await getGitStatus()}`;
function buildSystemPrompt(cwd: string): string {
  return `Work in ${cwd}. Time: ${Date.now()}`;
}
const userMessage = `Time: ${new Date()}`;
const body = { system: `Date ${new Date().toLocaleDateString()}`, content: `${Math.random()}` };
const filled = template.replace("{{CURRENT_DATE}}", new Date().toLocaleDateString());
"""


def test_typescript_prompt_builders() -> None:
    got = [(f.line, f.code) for f in check_js("agent.ts", TS)]
    # The user message, the comment, the regex and the message content are not prefixes;
    # the working directory is stable within a session.
    assert got == [(5, "PL101"), (5, "PL104"), (7, "PL101"), (10, "PL102"), (11, "PL102")]


def test_walk_reads_agent_dot_folders_and_skips_exact_document_names(tmp_path: Path) -> None:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "security-auditor.md").write_text(
        "---\nname: auditor\nmodel: opus\n---\nAudit the code.\n"
    )
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("{{ now }}\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "p.j2").write_text("{{ now }}\n")
    (tmp_path / "history.py").write_text(
        "import datetime\ndef system_prompt():\n    return f'{datetime.datetime.now()}'\n"
    )
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.mdc").write_text("---\ndescription: style\n---\nBranch {{ git_branch }}\n")
    (tmp_path / "README.md").write_text("Today is {{ now }}.\n")
    (tmp_path / "SECURITY.md").write_text("Today is {{ now }}.\n")
    result = lint_paths([str(tmp_path)], LintConfig(model="claude-sonnet-4-6"), jobs=1)
    got = sorted((Path(f.path).relative_to(tmp_path).as_posix(), f.code) for f in result.findings)
    assert got == [
        (".claude/agents/security-auditor.md", "PL602"),
        (".cursor/rules/style.mdc", "PL104"),
        ("history.py", "PL101"),
    ]


def test_markdown_agent_and_command_bodies() -> None:
    agent = "---\nname: x\ndescription: d\n---\nName files review-{timestamp}.md; today {date}.\n"
    assert lint_source(agent, ".claude/agents/x.md") == []
    command = "---\ndescription: status\n---\n!`git status`\nBranch: {{ branch }}\n"
    assert lint_source(command, ".claude/commands/status.md") == []
    # A plain template (no front matter, not in an agent folder) is still rendered.
    assert [f.code for f in lint_source("Today {date}.\n", "prompts/sys.txt")] == ["PL102"]


@pytest.mark.parametrize(
    "model, flagged",
    [
        ("sonnet", False),
        ("inherit", False),
        ("sonnet[1m]", False),
        ("opus", True),
        ("haiku", True),
        ("claude-sonnet-4-6", False),
    ],
)
def test_claude_code_model_aliases(tmp_path: Path, model: str, flagged: bool) -> None:
    p = tmp_path / "agents" / "a.md"
    p.parent.mkdir()
    p.write_text(f"---\nname: a\nmodel: {model}\n---\nDo it.\n")
    codes = [f.code for f in lint_paths([str(p)], LintConfig(model="claude-sonnet-4-6")).findings]
    assert codes == (["PL602"] if flagged else [])


def test_if_around_optional_data_is_not_a_mode_switch() -> None:
    rules = "Write small, reviewed changes. " * 30
    optional = "{% if data %}Data: {{ data }}{% endif %}\n" + rules
    assert lint_source(optional, "sys.j2") == []
    modes = "{% if data %}A{% else %}B{% endif %}\n" + rules
    assert [f.code for f in lint_source(modes, "sys.j2")] == ["PL302"]
    flag = "{% if plan_mode %}Plan only.{% endif %}\n" + rules
    assert [f.code for f in lint_source(flag, "sys.j2")] == ["PL302"]


def test_tuple_elements_flow_separately_and_add_makes_no_set() -> None:
    src = """def parts():
    return "You are X.", ["a", "b"], {"c", "d"}


def build(registry):
    text, tools, skills = parts()
    registry.add("x")
    system_prompt = text + ", ".join(registry)
    return client.messages.create(model="m", system=system_prompt, tools=tools,
                                  messages=[{"role": "user", "content": str(skills)}])
"""
    assert lint_source(src, "t.py") == []
    unordered = src.replace("tools=tools", "tools=list(skills)")
    assert [f.code for f in lint_source(unordered, "t.py")] == ["PL201"]


def test_json_dumps_of_a_dict_in_a_stable_order_is_not_flagged() -> None:
    stable = (
        "import json\n\n\ndef build(schema_cls):\n"
        "    schema = schema_cls.model_json_schema()\n"
        '    payload = {"name": "x", "schema": schema}\n'
        "    system_prompt = json.dumps(payload) + json.dumps(make(schema_cls))\n"
        "    return system_prompt\n"
    )
    assert lint_source(stable, "j.py") == []
    # A dict handed in keeps the order its caller inserted its keys in, the same each time
    # the caller builds it the same way (every such dump of the corpora was judged false).
    passed_in = (
        "import json\n\n\ndef build(config):\n"
        "    system_prompt = json.dumps(config)\n    return system_prompt\n"
    )
    assert lint_source(passed_in, "j.py") == []
    # Twin: a dict whose keys come from a set's iteration, an order that moves between runs.
    from_set = passed_in.replace(
        "json.dumps(config)", "json.dumps({k: config[k] for k in set(config)})"
    )
    assert "PL202" in {f.code for f in lint_source(from_set, "j.py")}


def test_no_breakpoint_only_on_a_prompt_long_enough_to_cache() -> None:
    # A conversation (an earlier turn before the question): a one-off request, with no
    # history after its system prompt, is left alone (test_lint_recurring_shapes).
    call = (
        "def call(client, first, reply, q):\n"
        '    return client.messages.create(model="claude-sonnet-4-6", max_tokens=9,'
        ' system={s!r}, messages=[{{"role": "user", "content": first}},'
        ' {{"role": "assistant", "content": reply}}, {{"role": "user", "content": q}}])\n'
    )
    assert lint_source(call.format(s="Be brief."), "c.py") == []
    long_prompt = "Always explain the root cause before proposing a fix. " * 200
    assert [f.code for f in lint_source(call.format(s=long_prompt), "c.py")] == ["PL406"]


def test_a_mapping_splatted_into_a_render_is_not_assumed_used() -> None:
    """`Template(t).render(**vars)`: the template names the keys it uses, unknown here; a
    clock reading among the variables is not assumed to reach the prompt (mini-swe-agent
    passes elapsed_seconds to every template, and its system templates never use it)."""
    src = (
        "import time\n\n\ndef system(tpl, start):\n"
        '    tvars = {"elapsed": int(time.time() - start), "task": "x"}\n'
        "    system_prompt = Template(tpl).render(**tvars)\n    return system_prompt\n"
    )
    assert lint_source(src, "r.py") == []
    passed = src.replace("render(**tvars)", "render(tvars)")
    assert [f.code for f in lint_source(passed, "r.py")] == ["PL101"]


def test_plugin_registry_order_into_the_tools() -> None:
    src = (
        "from importlib.metadata import entry_points\n\n\n"
        "def tools():\n"
        "    return [ep.load().spec for ep in entry_points(group='agent.tools')]\n\n\n"
        "def ask(client, q):\n"
        '    return client.messages.create(model="m", tools=tools(),\n'
        '                                  messages=[{"role": "user", "content": q}])\n'
    )
    assert [f.code for f in lint_source(src, "plugins.py")] == ["PL203"]
    fixed = src.replace(
        "for ep in entry_points(group='agent.tools')",
        "for ep in sorted(entry_points(group='agent.tools'), key=str)",
    )
    assert lint_source(fixed, "plugins.py") == []


def test_double_braces_in_a_str_format_template_are_literal() -> None:
    # With `str.format` fields beside it, `{{step_number}}` renders as the text `{step_number}`.
    fmt = "You are an agent. Tools: {tools}\nThis is step {{step_number}}.\n"
    assert lint_source(fmt, "prompts/system.txt") == []
    # Without them (a Jinja or mustache template) it is a slot filled per step.
    jinja = "You are an agent.\nThis is step {{step_number}}.\n"
    assert [f.code for f in lint_source(jinja, "prompts/system.txt")] == ["PL106"]
