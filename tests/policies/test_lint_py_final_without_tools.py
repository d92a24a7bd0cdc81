"""The answer asked once a tool loop's rounds run out, with the loop's messages and no tool
list (`pycheck.toolswap.check_final_without_tools`): its prefix lacks the tools the loop's
requests began with. Near misses: the last request keeps the tools, sends other messages, or
is no request (a log of the messages)."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_EXPERT = (
    "class Expert:\n"
    "    async def run(self, client, messages, tool_defs):\n"
    "        for _ in range(5):\n"
    "            response = await self.stream_chat_turn(\n"
    "                client=client, messages=messages, tools=tool_defs, tool_choice='auto'\n"
    "            )\n"
    "            if not response.tool_calls:\n"
    "                break\n"
    "            messages.append(response.message)\n"
    "        else:\n"
    "            answer = await {FINAL}\n"
    "            return answer\n"
    "        return response.content\n"
)


def _pl302(final: str) -> list[int]:
    text = _EXPERT.replace("{FINAL}", final)
    return [f.line for f in check_python("expert.py", text) if f.code == "PL302"]


def test_the_final_answer_asked_without_the_tools_is_reported() -> None:
    assert _pl302("self.stream_final_answer(client=client, messages=messages)") == [11]


@pytest.mark.parametrize(
    "final",
    [
        "self.stream_final_answer(client=client, messages=messages, tools=tool_defs)",
        "self.stream_final_answer(client=client, messages=[messages[-1]])",
        "self.record_transcript(messages=messages)",
    ],
)
def test_the_same_tools_other_messages_or_no_request_are_not_reported(final: str) -> None:
    assert _pl302(final) == []
