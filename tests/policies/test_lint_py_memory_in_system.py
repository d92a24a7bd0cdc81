"""Memories recalled for the current message and appended to a system prompt that a literal
list sends ahead of the replayed history (`pycheck.retrieved`): the prefix changes with every
message. Near misses: the same list without a history after it, a memory value bound from no
call, and a settled persona's memory."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python
from tests.helpers.lintfind import lines_of

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


# Eighteenth pass, Python structural (`pycheck.recalled`): a memory or a retrieval read this
# turn by a call named for it, or a state field of memories, written into the system prompt
# that a request sends ahead of the history or that a builder called per turn returns.
_NODE = (
    "def call_model(state, model):\n"
    "    messages = state['messages']\n"
    "    core = '<core>' + '\\n'.join(READ) + '</core>'\n"
    "    prompt = SYSTEM.format(core_memories=core)\n"
    "    return model.invoke(LIST)\n"
)
_LIST = "[{'role': 'system', 'content': prompt}] + messages"
_BUILDER = (
    "def NAME(user_id):\n"
    "    return TEMPLATE.render(today='x', user_memory=READ)\n"
    "def chat(client, messages, user_id):\n"
    "    instructions = NAME(user_id)\n"
    "    return client.responses.create(instructions=instructions, input=messages)\n"
)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # a field of the state named for memories, ahead of the history
        (_NODE.replace("READ", "state['core_memories']").replace("LIST", _LIST), [3]),
        # a memory read by a call, through a local, ahead of the history
        (_NODE.replace("READ", "store.get_memories(uid)").replace("LIST", _LIST), [3]),
        # the same system prompt sent alone: a one-shot request, the history not after it
        (
            _NODE.replace("READ", "state['core_memories']").replace(
                "LIST", "[{'role': 'system', 'content': prompt}]"
            ),
            [],
        ),
        # a field named for documents, not memories; a memory written, not read
        (_NODE.replace("READ", "state['documents']").replace("LIST", _LIST), []),
        (_NODE.replace("READ", "store.save_memory(uid)").replace("LIST", _LIST), []),
        # a builder of the instructions, called per request, reads the user's memory
        (
            _BUILDER.replace("NAME", "_build_instructions").replace("READ", "read_memory(user_id)"),
            [2],
        ),
        # not a builder of the system prompt; or nothing read
        (_BUILDER.replace("NAME", "_user_notes").replace("READ", "read_memory(user_id)"), []),
        (_BUILDER.replace("NAME", "_build_instructions").replace("READ", "user_id"), []),
    ],
)
def test_a_memory_read_this_turn_in_the_system_prompt(src: str, expected: list[int]) -> None:
    assert lines_of(src, "PL304") == expected
