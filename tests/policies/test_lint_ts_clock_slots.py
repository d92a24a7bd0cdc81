"""A clock slot of an exported system template filled by an importing file
(`policies/jscheck/clockslots.py`, PL101/PL102): reported on the slot's line in the template's
file. Its near misses: a slot filled with a fixed value, a template no file fills, a template
not named for the system prompt."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.lintfind import ts_project_findings

_TEMPLATE = (
    "export const DEFAULT_SYSTEM_TEMPLATE = `\n"
    "You are a helpful assistant.\n"
    "Current model: {{model}}\n"
    "Current time: {{time}}\n"
    "`;\n"
)

_STORE = (
    "import { DEFAULT_SYSTEM_TEMPLATE } from './constant';\n"
    "\n"
    "function fill(template: string, vars: Record<string, string>): string {\n"
    "  let out = template;\n"
    "  for (const [k, v] of Object.entries(vars)) out = out.replaceAll(`{{${k}}}`, v);\n"
    "  return out;\n"
    "}\n"
    "\n"
    "export function messagesFor(history: Message[], model: string): Message[] {\n"
    "  const system = fill(DEFAULT_SYSTEM_TEMPLATE, {\n"
    "    model,\n"
    "    time: new Date().toLocaleString(),\n"
    "  });\n"
    "  return [{ role: 'system', content: system }, ...history];\n"
    "}\n"
)


def _slot_findings(root: Path, store: str, template: str = _TEMPLATE) -> list[tuple[int, str]]:
    found = ts_project_findings(root, {"constant.ts": template, "chat.ts": store})
    return [(line, code) for name, line, code in found if name == "constant.ts"]


def test_a_clock_slot_an_importer_fills_with_the_clock_is_reported(tmp_path: Path) -> None:
    assert _slot_findings(tmp_path, _STORE) == [(4, "PL101")]


def test_a_slot_filled_with_a_fixed_value_is_no_clock(tmp_path: Path) -> None:
    store = _STORE.replace("new Date().toLocaleString()", "config.launchedAt")
    assert _slot_findings(tmp_path, store) == []


def test_a_template_no_file_fills_is_quiet(tmp_path: Path) -> None:
    store = _STORE.replace("import { DEFAULT_SYSTEM_TEMPLATE } from './constant';\n", "").replace(
        "DEFAULT_SYSTEM_TEMPLATE", "'{{model}}'"
    )
    assert _slot_findings(tmp_path, store) == []


def test_a_template_not_named_for_the_system_prompt_is_not_this_rule(tmp_path: Path) -> None:
    template = _TEMPLATE.replace("DEFAULT_SYSTEM_TEMPLATE", "DEFAULT_EXPORT_HEADER")
    store = _STORE.replace("DEFAULT_SYSTEM_TEMPLATE", "DEFAULT_EXPORT_HEADER")
    assert _slot_findings(tmp_path, store, template) == []


_LINES_TEMPLATE = (
    "const BASE = 'You are a clinic assistant.';\n"
    "\n"
    "export const SYSTEM_PROMPT_WITH_NOTES = [\n"
    "  BASE,\n"
    "  'Today: {today}',\n"
    "  'Dialogue so far:',\n"
    "  '{history}',\n"
    "].join('\\n');\n"
)

_LINES_STORE = (
    "import { SYSTEM_PROMPT_WITH_NOTES } from './constant';\n"
    "\n"
    "function render(template: string, values: Record<string, string>): string {\n"
    "  let out = template;\n"
    "  for (const [k, v] of Object.entries(values)) out = out.replace(`{${k}}`, v);\n"
    "  return out;\n"
    "}\n"
    "\n"
    "function longDate(): string {\n"
    "  const now = new Date();\n"
    "  return now.toLocaleDateString('en-GB', { weekday: 'long' });\n"
    "}\n"
    "\n"
    "export async function reply(history: string, query: string) {\n"
    "  const system = render(SYSTEM_PROMPT_WITH_NOTES, { today: longDate(), history });\n"
    "  return send([{ role: 'system', content: system }, { role: 'user', content: query }]);\n"
    "}\n"
)


def test_a_joined_array_template_filled_by_a_clock_helper_is_reported(tmp_path: Path) -> None:
    assert _slot_findings(tmp_path, _LINES_STORE, _LINES_TEMPLATE) == [(5, "PL102")]


def test_a_helper_that_reads_no_clock_is_no_clock(tmp_path: Path) -> None:
    store = _LINES_STORE.replace("const now = new Date();", "const now = config.openedOn;")
    assert _slot_findings(tmp_path, store, _LINES_TEMPLATE) == []


def test_an_array_that_is_not_joined_is_no_template(tmp_path: Path) -> None:
    template = _LINES_TEMPLATE.replace("].join('\\n');", "];")
    assert _slot_findings(tmp_path, _LINES_STORE, template) == []


def test_an_arrow_clock_helper_is_followed_too(tmp_path: Path) -> None:
    store = _LINES_STORE.replace(
        "function longDate(): string {\n  const now = new Date();\n"
        "  return now.toLocaleDateString('en-GB', { weekday: 'long' });\n}\n",
        "const longDate = (): string => new Date().toDateString();\n",
    )
    assert _slot_findings(tmp_path, store, _LINES_TEMPLATE) == [(5, "PL102")]
