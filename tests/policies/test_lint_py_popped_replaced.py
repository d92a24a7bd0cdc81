"""The newest message popped and a new one put in its place (`pycheck.rewritten`): appended to
the same history, or handed back under the history's key for a graph to append. Near misses:
a pop with nothing made to replace it, the popped message itself put back, a new message made
before the pop, and a pop before any request sent the history (a reply not yet sent)."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_REASON = (
    "from langchain_core.messages import HumanMessage\n"
    "class Agent:\n"
    "    async def reason(self, state):\n"
    "        ai_message = await self.llm.ainvoke(state.get('messages'))\n"
    "        last_message = state.get('messages').pop()\n"
    "        if isinstance(last_message, HumanMessage):\n"
    "{BODY}"
)


def _pl303(body: str) -> list[int]:
    text = _REASON.replace("{BODY}", body)
    return [f.line for f in check_python("agent.py", text) if f.code == "PL303"]


@pytest.mark.parametrize(
    "body",
    [
        "            message = HumanMessage(f'<State>step {self.step}</State>')\n"
        "            return {**state, 'messages': [message]}\n",
        "            state.get('messages').append(HumanMessage('shorter observation'))\n",
    ],
)
def test_a_popped_message_replaced_by_a_new_one_is_reported(body: str) -> None:
    assert _pl303(body) == [5]


@pytest.mark.parametrize(
    "body",
    [
        "            return {**state, 'error': 'retry'}\n",
        "            state.get('messages').append(last_message)\n",
        "            return {**state, 'messages': [ai_message]}\n",
    ],
)
def test_a_pop_taken_back_or_put_back_unchanged_is_not_reported(body: str) -> None:
    assert _pl303(body) == []


def test_a_pop_before_any_request_takes_off_a_message_not_yet_sent() -> None:
    body = (
        "            message = HumanMessage('shorter observation')\n"
        "            return {**state, 'messages': [message]}\n"
    )
    text = _REASON.replace("{BODY}", body).replace(
        "        ai_message = await self.llm.ainvoke(state.get('messages'))\n", ""
    )
    assert [f for f in check_python("agent.py", text) if f.code == "PL303"] == []
