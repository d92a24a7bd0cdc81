"""A listing of the program's own folder (TypeScript, seventeenth pass): a directory listing
whose folder is found from the module's own location (`__dirname`, `import.meta.url`) and
fixed text lists files shipped with the code, the same on every request, so its content and
order (PL105, PL203) are not reported. Twins: a folder found from the working directory, the
environment or a parameter, one the file writes into, and one reassigned to a setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.lintfind import line_codes, ts_project_findings

_SENT = (
    "export async function answer(history: { role: 'user' | 'assistant'; content: string }[]) {\n"
    "  const files = fs.readdirSync(skillsDir);\n"
    "  const skills = files.map((f) => fs.readFileSync(path.join(skillsDir, f), 'utf8'));\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{ role: 'system', content: `Skills:\\n${skills.join('\\n')}` }, ...history],\n"
    "  });\n"
    "}\n"
)


def _file(folder: str, extra: str = "") -> str:
    return (
        "import fs from 'fs';\n"
        "import path from 'path';\n"
        "import { fileURLToPath } from 'url';\n"
        "import OpenAI from 'openai';\n"
        "\n"
        "const openai = new OpenAI();\n"
        f"let skillsDir = {folder};\n"
        f"{extra}\n" + _SENT
    )


_CODES = {"PL105", "PL203"}


def _listed(text: str) -> set[str]:
    return {code for _, code in line_codes(text, "src/agent.ts") if code in _CODES}


@pytest.mark.parametrize(
    "folder",
    [
        "path.join(__dirname, '../skills')",
        "path.resolve(__dirname, './skills')",
        "__dirname + '/skills'",
        "`${__dirname}/skills`",
        "path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'skills')",
        "fileURLToPath(new URL('../skills', import.meta.url))",
    ],
)
def test_a_listing_of_the_programs_own_folder_is_not_reported(folder: str) -> None:
    assert _listed(_file(folder)) == set()


def test_a_folder_tried_in_two_places_beside_the_module() -> None:
    extra = "if (!fs.existsSync(skillsDir)) skillsDir = path.join(__dirname, '../../skills');"
    assert _listed(_file("path.join(__dirname, '../skills')", extra)) == set()


@pytest.mark.parametrize(
    "folder",
    [
        "path.join(process.cwd(), 'skills')",
        "'skills'",  # relative: found from the working directory
        "process.env.SKILLS_DIR ?? path.join(__dirname, 'skills')",
        "path.join(__dirname, process.env.SKILLS ?? 'skills')",
        "path.join(os.homedir(), '.agent', 'skills')",
    ],
)
def test_a_folder_of_the_workspace_or_a_setting_is_reported(folder: str) -> None:
    assert _listed(_file(folder)) == _CODES


def test_a_folder_reassigned_to_a_setting_is_reported() -> None:
    extra = "if (process.env.SKILLS_DIR) skillsDir = process.env.SKILLS_DIR;"
    assert _listed(_file("path.join(__dirname, '../skills')", extra)) == _CODES


def test_a_folder_beside_the_module_the_file_writes_into_is_reported() -> None:
    extra = (
        "export function learn(name: string, text: string) {\n"
        "  fs.writeFileSync(path.join(skillsDir, name), text);\n"
        "}"
    )
    assert _listed(_file("path.join(__dirname, '../skills')", extra)) == _CODES


def test_a_folder_handed_in_is_reported() -> None:
    text = _file("path.join(__dirname, '../skills')").replace(
        "export async function answer(history",
        "export async function answer(skillsDir: string, history",
    )
    assert _listed(text) == _CODES


_TOOLS_TS = (
    "import { readdirSync } from 'fs';\n"
    "import { resolve } from 'path';\n"
    "\n"
    "const folder = resolve(__dirname, './custom-tools');\n"
    "export const tools: { name: string }[] = [];\n"
    "readdirSync(folder).forEach((file) => {\n"
    "  tools.push(require(resolve(folder, file)).default);\n"
    "});\n"
)

_CHAT_TS = (
    "import OpenAI from 'openai';\n"
    "import { tools } from './tools';\n"
    "\n"
    "const openai = new OpenAI();\n"
    "\n"
    "export async function answer(messages: { role: 'user'; content: string }[]) {\n"
    "  return openai.chat.completions.create({ model: 'gpt-4o', messages, tools });\n"
    "}\n"
)


def test_a_tool_list_read_from_the_modules_own_folder_in_another_file(tmp_path: Path) -> None:
    found = ts_project_findings(tmp_path, {"tools.ts": _TOOLS_TS, "chat.ts": _CHAT_TS})
    assert not [f for f in found if f[0] == "chat.ts" and f[2] in _CODES]


def test_a_tool_list_read_from_the_working_directory_in_another_file(tmp_path: Path) -> None:
    cwd = _TOOLS_TS.replace("resolve(__dirname, './custom-tools')", "resolve('./custom-tools')")
    found = ts_project_findings(tmp_path, {"tools.ts": cwd, "chat.ts": _CHAT_TS})
    assert ("chat.ts", 7, "PL203") in found
