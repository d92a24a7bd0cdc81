"""Memories recalled for the current message and appended to a system prompt that a literal
list sends ahead of the replayed history (`pycheck.retrieved`): the prefix changes with every
message. Near misses: the same list without a history after it, a memory value bound from no
call, and a settled persona's memory."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_CHAT = (
    "SYSTEM_PROMPT = 'You are a pet.'\n"
    "class Runtime:\n"
    "    async def chat(self, text):\n"
    "        status, ids, {NAME} = {BOUND}\n"
    "        history = await self.context(text)\n"
    "        system_prompt = SYSTEM_PROMPT\n"
    "        if {NAME}:\n"
    "            system_prompt += '\\nMemories:\\n' + {NAME}\n"
    "        messages = [{'role': 'system', 'content': system_prompt}, {TAIL}]\n"
    "        return await self.client.chat(messages=messages)\n"
)


def _pl304(
    name: str = "memory_reference", bound: str = "await self.recall(text)", tail: str = "*history"
) -> list[int]:
    text = _CHAT.replace("{NAME}", name).replace("{BOUND}", bound).replace("{TAIL}", tail)
    return [f.line for f in check_python("runtime.py", text) if f.code == "PL304"]


def test_memories_recalled_per_message_ahead_of_the_history_are_reported() -> None:
    assert _pl304() == [8]


@pytest.mark.parametrize(
    ("name", "bound", "tail"),
    [
        ("memory_reference", "await self.recall(text)", "{'role': 'user', 'content': text}"),
        ("memory_reference", "('ok', [], 'fixed')", "*history"),
        ("persona_memory", "await self.recall(text)", "*history"),
    ],
)
def test_no_history_after_it_no_call_or_a_settled_persona_is_not_reported(
    name: str, bound: str, tail: str
) -> None:
    assert _pl304(name, bound, tail) == []
