"""The last messages written as text into the system prompt by a helper
(`pycheck.windowtext`). Near misses: the first messages, a single message, and the same text
put into the user message."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_ORCHESTRATOR = (
    "class Orchestrator:\n"
    "    TEMPLATE = 'Route the query.\\n{conversation_context}'\n"
    "    def _build_conversation_context(self, context):\n"
    "        lines = []\n"
    "        for entry in context.conversation_history{WINDOW}:\n"
    "            lines.append(f\"- {entry['role']}: {entry['content'][:200]}\")\n"
    "        return 'Recent:\\n' + '\\n'.join(lines)\n"
    "    async def execute(self, context):\n"
    "        conversation_context = self._build_conversation_context(context)\n"
    "        {TARGET} = self.TEMPLATE.format(conversation_context=conversation_context)\n"
    "        return await self.client.chat.completions.create(model='m', messages=[\n"
    "            {'role': 'system', 'content': {SYSTEM}},\n"
    "            {'role': 'user', 'content': {USER}},\n"
    "        ])\n"
)


def _pl303(window: str, target: str = "system_prompt") -> list[int]:
    system, user = ("system_prompt", "context.user_query")
    if target != "system_prompt":
        system, user = ("'Route the query.'", f"{target} + context.user_query")
    text = (
        _ORCHESTRATOR.replace("{WINDOW}", window)
        .replace("{TARGET}", target)
        .replace("{SYSTEM}", system)
        .replace("{USER}", user)
    )
    return [f.line for f in check_python("orchestrator.py", text) if f.code == "PL303"]


def test_the_last_exchanges_written_into_the_system_prompt_are_reported() -> None:
    assert _pl303("[-5:]") == [5]


@pytest.mark.parametrize(
    ("window", "target"),
    [("[:5]", "system_prompt"), ("[-1:]", "system_prompt"), ("[-5:]", "user_text")],
)
def test_the_first_messages_one_message_or_a_user_message_are_not_reported(
    window: str, target: str
) -> None:
    assert _pl303(window, target) == []
