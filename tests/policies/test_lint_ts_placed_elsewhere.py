"""A clock read in one TypeScript file whose text another file of the project writes into a
system prompt is reported in the file that reads it as well (`jscheck/placedelsewhere.py`):
a user who lints the helper alone sees the breaker there (real21's coding CLI's environment
block, dated in `environment.ts` and appended to every system prompt in `selector.ts`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from prefixlock.policies import engine
from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths
from prefixlock.policies.findings import Finding
from prefixlock.policies.jscheck import check_js

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


def test_an_importer_is_checked_once_a_run_for_every_helper_it_dates_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two helpers read the clock and one file writes both into its system prompt: that file's
    # own findings are had once, not once per helper (a project's hub file imports many).
    calls: list[str] = []
    real = check_js

    def counted(path: str, text: str, *args: Any, **kw: Any) -> list[Finding]:
        if kw.get("elsewhere") is False:
            calls.append(Path(path).name)
        return real(path, text, *args, **kw)

    monkeypatch.setattr("prefixlock.policies.engine.check_js", counted)
    (tmp_path / "package.json").write_text("{}\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "environment.ts").write_text(_ENVIRONMENT_TS)
    (src / "clock.ts").write_text(
        "export function stamp(): string {\n  return new Date().toISOString();\n}\n"
    )
    (src / "selector.ts").write_text(
        "import { stamp } from './clock.js';\n"
        + _SELECTOR_TS.replace("process.cwd() })", "process.cwd() }) + stamp()")
    )
    found = lint_paths(
        [str(src / "environment.ts"), str(src / "clock.ts")], LintConfig(), jobs=1
    ).findings
    assert {Path(f.path).name for f in found} == {"environment.ts", "clock.ts"}
    assert calls == ["selector.ts"]


def test_an_importers_check_is_not_charged_to_the_helpers_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The importer's check burns more CPU than a file's budget: the helper is still checked
    # (no PL906 for it), and the importer, over its own budget, tells it nothing.
    real = check_js

    def slow(path: str, text: str, *args: Any, **kw: Any) -> list[Finding]:
        if kw.get("elsewhere") is False:
            until = time.process_time() + 1.0
            while time.process_time() < until:
                pass
        return real(path, text, *args, **kw)

    monkeypatch.setattr(engine, "FILE_TIME_S", 0.5)
    monkeypatch.setattr("prefixlock.policies.engine.check_js", slow)
    assert _helper_findings(tmp_path, _SELECTOR_TS) == []


# Twentieth pass (`jscheck/handedin.py`): what a route hands a prompt builder of another file per
# request (a field of the request body), written by the builder into the system prompt it
# returns, is reported in the builder too, at the line that writes it (real26's health
# assistant's goals, real17's chat agent's "currently viewing").
_BUILDER_TS = (
    "export const getChatPrompt = (options: { tone: string; goals: string[] }) => `\n"
    "You are a ${options.tone} assistant.\n"
    "Goals:\n"
    "${options.goals.join('\\n')}\n"
    "`;\n"
)
_ROUTE_TS = (
    "import { getChatPrompt } from './prompts';\n"
    "import { streamText } from 'ai';\n"
    "export async function POST(req: Request) {\n"
    "  const { messages, goals } = await req.json();\n"
    "  const result = streamText({\n"
    "    model: 'm',\n"
    "    system: getChatPrompt({ tone: 'calm', goals }),\n"
    "    messages,\n"
    "  });\n"
    "  return result.toDataStreamResponse();\n"
    "}\n"
)


def _builder_findings(tmp_path: Path, route: str, builder: str = _BUILDER_TS) -> list[int]:
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "prompts.ts").write_text(builder)
    (tmp_path / "src" / "route.ts").write_text(route)
    found = lint_paths([str(tmp_path / "src" / "prompts.ts")], LintConfig(), jobs=1).findings
    return [f.line for f in found if f.code == "PL304"]


@pytest.mark.parametrize(
    ("route", "builder", "expected"),
    [
        # the posted goals, written at line 4; the fixed tone at line 2 is not reported
        (_ROUTE_TS, _BUILDER_TS, [4]),
        # the whole argument handed per request: its first field written into text, not the
        # test that reads it
        (
            _ROUTE_TS.replace("{ tone: 'calm', goals }", "goals"),
            "export function getChatPrompt(ctx: any) {\n"
            "  const parts = ['You are an assistant.'];\n"
            "  if (ctx?.viewing) {\n"
            "    parts.push(`They are looking at ${ctx.viewing}`);\n"
            "  }\n"
            "  return parts.join('\\n');\n"
            "}\n",
            [4],
        ),
        # near misses: only fixed text handed in; the builder's text sent in the newest user
        # message; a one-shot request with no history after it; a builder not named for a
        # prompt
        (
            _ROUTE_TS.replace("{ tone: 'calm', goals }", "{ tone: 'calm', goals: [] }"),
            _BUILDER_TS,
            [],
        ),
        (
            _ROUTE_TS.replace("    system: getChatPrompt({ tone: 'calm', goals }),\n", "").replace(
                "    messages,\n",
                "    messages: [...messages,\n"
                "      { role: 'user', content: getChatPrompt({ tone: 'calm', goals }) }],\n",
            ),
            _BUILDER_TS,
            [],
        ),
        (
            _ROUTE_TS.replace("    messages,\n", "    prompt: 'Say hi',\n").replace(
                "{ messages, goals }", "{ goals }"
            ),
            _BUILDER_TS,
            [],
        ),
        # a field named for what the user set for the session (`customPrompt`), handed in again
        (
            _ROUTE_TS.replace("goals", "customPrompt"),
            _BUILDER_TS.replace("goals", "customPrompt"),
            [],
        ),
        (
            _ROUTE_TS.replace("getChatPrompt", "goalText"),
            _BUILDER_TS.replace("getChatPrompt", "goalText"),
            [],
        ),
    ],
)
def test_what_a_route_hands_a_builder_per_request_is_reported_in_the_builder(
    tmp_path: Path, route: str, builder: str, expected: list[int]
) -> None:
    assert _builder_findings(tmp_path, route, builder) == expected
