"""A history written back from a call named for compacting it and handed it (`messages =
compact_messages(client, messages, window)`, `messages = await compactMessages(client,
messages, limit)`): its older messages come back as a summary, a rewrite after the system
prompt (PL303, both languages). Twins: the compaction's result kept apart from the history, a
helper that only measures the history, and a history written back from a call it is not
handed."""

from __future__ import annotations

import pytest

from prefixlock.policies.engine import lint_source

_PY = (
    "from openai import OpenAI\n"
    "from .compact import compact_messages, needs_compaction\n"
    "client = OpenAI()\n"
    "def loop(messages, limit, notes):\n"
    "    while True:\n"
    "        if needs_compaction(messages, limit):\n"
    "            {LINE}\n"
    "        res = client.chat.completions.create(model='m', messages=messages)\n"
    "        messages.append(res.choices[0].message)\n"
)
_TS = (
    "import OpenAI from 'openai';\n"
    "import { compactMessages } from './compact';\n"
    "const client = new OpenAI();\n"
    "export async function loop(messages: any[], limit: number, notes: any[]) {\n"
    "  while (true) {\n"
    "    if (estimateTokens(messages) > limit) {\n"
    "      {LINE}\n"
    "    }\n"
    "    const res = await client.chat.completions.create({ model: 'm', messages });\n"
    "    messages.push(res.choices[0].message);\n"
    "  }\n"
    "}\n"
)


def _pl303(template: str, line: str, path: str) -> list[int]:
    text = template.replace("{LINE}", line)
    return [f.line for f in lint_source(text, path) if f.code == "PL303"]


@pytest.mark.parametrize(
    ("template", "line", "path"),
    [
        (_PY, "messages = compact_messages(client, messages, limit)", "agent.py"),
        (_TS, "messages = await compactMessages(client, messages, limit);", "agent.ts"),
    ],
)
def test_a_history_written_back_from_a_compaction_is_reported(
    template: str, line: str, path: str
) -> None:
    assert _pl303(template, line, path) == [7]


@pytest.mark.parametrize(
    ("template", "line", "path"),
    [
        (_PY, "summary = compact_messages(client, messages, limit)", "agent.py"),
        (_PY, "messages = count_messages(client, messages, limit)", "agent.py"),
        (_PY, "messages = compact_messages(client, notes, limit)", "agent.py"),
        (_TS, "const summary = await compactMessages(client, messages, limit);", "agent.ts"),
        (_TS, "messages = await countMessages(client, messages, limit);", "agent.ts"),
        (_TS, "messages = await compactMessages(client, notes, limit);", "agent.ts"),
    ],
)
def test_a_compaction_kept_apart_a_measure_or_another_list_is_silent(
    template: str, line: str, path: str
) -> None:
    assert _pl303(template, line, path) == []


# The same compaction under a switch that brings another system prompt (aider summarises its done
# messages when a new coder takes another edit format): the prefix is new either way.
_SWITCH = _PY.replace(
    "        if needs_compaction(messages, limit):\n",
    "        if {TEST}:\n",
)


@pytest.mark.parametrize(
    "test",
    ["edit_format != old.edit_format", "new_model is not model", "mode != previous_mode"],
)
def test_a_compaction_on_a_switch_of_format_mode_or_model_is_silent(test: str) -> None:
    text = _SWITCH.replace("{TEST}", test)
    assert _pl303(text, "messages = compact_messages(client, messages, limit)", "agent.py") == []


def test_a_compaction_under_another_test_is_still_reported() -> None:
    text = _SWITCH.replace("{TEST}", "len(messages) != limit")
    assert _pl303(text, "messages = compact_messages(client, messages, limit)", "agent.py") == [7]
