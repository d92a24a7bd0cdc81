"""Values fixed for the process (TypeScript, twenty-first pass): in a terminal program that
serves nothing, the working directory (where the project never changes it) and a clock read at
a module's top level are the same for every request of the conversation the process holds
(real27: a readline booking CLI's dated prompt constant, a coding CLI's `process.cwd()`).
Twins: the clock read per request, a project that serves requests or whose kind is not known,
and a project that calls `process.chdir`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.lintfind import ts_project_findings

# A prompt constant dated when the module loads, as the booking CLI's `systemPrompt.js`.
_PROMPT = (
    "import dayjs from 'dayjs';\n"
    "const todayStr = dayjs().format('MMMM D, YYYY');\n"
    "export const systemPrompt = `You schedule meetings. Today is ${todayStr}.`;\n"
)
_CHAT = (
    "import OpenAI from 'openai';\n"
    "import { systemPrompt } from './prompt';\n"
    "{head}\n"
    "const openai = new OpenAI();\n"
    "const messages: { role: 'system' | 'user'; content: string }[] = [\n"
    "  { role: 'system', content: systemPrompt },\n"
    "];\n"
    "export async function turn(text: string) {\n"
    "  messages.push({ role: 'user', content: text });\n"
    "  return openai.chat.completions.create({ model: 'gpt-4o', messages });\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("head", "found"),
    [
        # a terminal program: one process, one conversation
        ("import readlineSync from 'readline-sync';", False),
        ("import * as readline from 'node:readline';", False),
        ("import inquirer from 'inquirer';", False),
        # a server: many conversations over the life of one module load
        ("import readline from 'readline';\nimport express from 'express';", True),
        ("import { Client } from 'discord.js';", True),
        # nothing says which: reported as before
        ("", True),
    ],
)
def test_a_clock_read_at_module_load_is_fixed_in_a_terminal_program(
    tmp_path: Path, head: str, found: bool
) -> None:
    got = ts_project_findings(
        tmp_path, {"prompt.ts": _PROMPT, "chat.ts": _CHAT.replace("{head}", head)}
    )
    clocks = [f for f in got if f[0] == "prompt.ts" and f[2] in ("PL101", "PL102")]
    assert bool(clocks) is found


def test_a_clock_read_per_request_in_a_terminal_program_is_reported(tmp_path: Path) -> None:
    per_request = (
        "import dayjs from 'dayjs';\n"
        "export function systemPrompt() {\n"
        "  return `You schedule meetings. Today is ${dayjs().format('MMMM D, YYYY')}.`;\n"
        "}\n"
    )
    chat = _CHAT.replace("{head}", "import readlineSync from 'readline-sync';").replace(
        "  messages.push(",
        "  messages[0] = { role: 'system', content: systemPrompt() };\n  messages.push(",
    )
    got = ts_project_findings(tmp_path, {"prompt.ts": per_request, "chat.ts": chat})
    assert [f for f in got if f[2] in ("PL101", "PL102")]


_CWD = (
    "import OpenAI from 'openai';\n"
    "{extra}\n"
    "const openai = new OpenAI();\n"
    "export async function turn(history: {{ role: 'user'; content: string }}[]) {{\n"
    "  const system = `You are a coding agent. Working directory: ${{process.cwd()}}`;\n"
    "  return openai.chat.completions.create({{\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{{ role: 'system', content: system }}, ...history],\n"
    "  }});\n"
    "}}\n"
)


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ("import readline from 'readline';", False),
        (
            "import readline from 'readline';\nexport function cd(d: string) { process.chdir(d); }",
            True,
        ),
        # a server, or a module whose program is not known: a conversation restored from an
        # earlier process may go on under another directory
        ("import readline from 'readline';\nimport express from 'express';", True),
        ("", True),
    ],
)
def test_the_working_directory_is_fixed_unless_the_project_changes_it(
    tmp_path: Path, extra: str, found: bool
) -> None:
    got = ts_project_findings(tmp_path, {"agent.ts": _CWD.format(extra=extra)})
    line = 5 + extra.count("\n")
    assert (("agent.ts", line, "PL105") in got) is found
