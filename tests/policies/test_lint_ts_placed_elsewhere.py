"""A clock read in one TypeScript file whose text another file of the project writes into a
system prompt is reported in the file that reads it as well (`jscheck/placedelsewhere.py`):
a user who lints the helper alone sees the breaker there (real21's coding CLI's environment
block, dated in `environment.ts` and appended to every system prompt in `selector.ts`)."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths

_ENVIRONMENT_TS = (
    "export function buildEnvironmentContext(options: { cwd: string }): string {\n"
    "  return `<env>\n"
    "  Working directory: ${options.cwd}\n"
    "  Today's date: ${new Date().toDateString()}\n"
    "</env>`;\n"
    "}\n"
)

_SELECTOR_TS = (
    "import { buildEnvironmentContext } from './environment.js';\n"
    "\n"
    "export async function reply(client: any, history: any[], text: string) {\n"
    "  const system = BASE + buildEnvironmentContext({ cwd: process.cwd() });\n"
    "  return client.messages.create({\n"
    "    model: 'claude-sonnet-4-6',\n"
    "    system,\n"
    "    messages: [...history, { role: 'user', content: text }],\n"
    "  });\n"
    "}\n"
    "const BASE = 'You are a coding agent.';\n"
)


def _helper_findings(
    tmp_path: Path, selector: str, environment: str = _ENVIRONMENT_TS
) -> list[tuple[int, str]]:
    """The project written under `tmp_path` and the helper, environment.ts, linted alone (as a
    user who names that file does): its findings as (line, code)."""
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "environment.ts").write_text(environment)
    (tmp_path / "src" / "selector.ts").write_text(selector)
    found = lint_paths([str(tmp_path / "src" / "environment.ts")], LintConfig(), jobs=1).findings
    return [(f.line, f.code) for f in found]


def test_a_date_read_in_a_helper_that_another_file_puts_in_the_system_prompt(
    tmp_path: Path,
) -> None:
    found = _helper_findings(tmp_path, _SELECTOR_TS)
    assert found == [(4, "PL102")]


def test_the_message_names_where_the_value_reaches_the_prefix(tmp_path: Path) -> None:
    _helper_findings(tmp_path, _SELECTOR_TS)
    found = lint_paths([str(tmp_path / "src" / "environment.ts")], LintConfig(), jobs=1).findings
    assert "that reaches `system` (line 4 of selector.ts)" in found[0].message
    assert "new Date(), line 4)" in found[0].message


def test_near_miss_the_importer_sends_the_text_as_the_newest_user_message(
    tmp_path: Path,
) -> None:
    # The same helper's text in the request's own turn: no prefix of the conversation holds it.
    user_turn = _SELECTOR_TS.replace(
        "  const system = BASE + buildEnvironmentContext({ cwd: process.cwd() });\n",
        "  const system = BASE;\n",
    ).replace(
        "{ role: 'user', content: text }",
        "{ role: 'user', content: buildEnvironmentContext({ cwd: '.' }) + text }",
    )
    assert _helper_findings(tmp_path, user_turn) == []


def test_near_miss_a_date_the_helper_is_handed_is_not_read_there(tmp_path: Path) -> None:
    # The helper writes a date its caller reads: the clock is read in the other file, which
    # reports it; the helper holds no clock of its own.
    handed = _ENVIRONMENT_TS.replace(
        "options: { cwd: string }", "options: { cwd: string; today: string }"
    ).replace("${new Date().toDateString()}", "${options.today}")
    assert _helper_findings(tmp_path, _SELECTOR_TS, handed) == []


def test_near_miss_no_file_of_the_project_imports_the_helper(tmp_path: Path) -> None:
    alone = _SELECTOR_TS.replace(
        "import { buildEnvironmentContext } from './environment.js';\n", ""
    )
    alone = alone.replace("buildEnvironmentContext({ cwd: process.cwd() })", "''")
    assert _helper_findings(tmp_path, alone) == []


def test_near_miss_a_clock_read_at_the_module_top_level(tmp_path: Path) -> None:
    # Read once, when the process loads the module (real19's extension: a chat's system
    # message dated at load and stored when the chat is created): left to the importer.
    at_load = (
        "const today = new Date().toDateString();\n"
        "export function buildEnvironmentContext(options: { cwd: string }): string {\n"
        "  return `<env> ${options.cwd} ${today} </env>`;\n"
        "}\n"
    )
    assert _helper_findings(tmp_path, _SELECTOR_TS, at_load) == []


def test_near_miss_a_prompt_that_is_not_the_system_prompt(tmp_path: Path) -> None:
    # The other file hands the text to a function named for a prompt that may be the user's
    # own turn (a terminal agent's `sendPromptNow`): not reported here.
    sent = (
        "import { buildEnvironmentContext } from './environment.js';\n"
        "\n"
        "export async function relay(session: any) {\n"
        "  const prompt = buildEnvironmentContext({ cwd: '.' });\n"
        "  return session.sendPromptNow(prompt);\n"
        "}\n"
    )
    assert _helper_findings(tmp_path, sent) == []
