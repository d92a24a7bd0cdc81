"""A system message put ahead of the history only while it is short, and kept nowhere
(`pycheck.firstonly`): the first request of a task carries the system prompt, the later ones do
not. Its near misses (the system message kept in the state, prepended on every request, or
under a test that is not the history's length) report nothing."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_NODE = (
    "from langchain_core.messages import SystemMessage\n"
    "SYSTEM_PROMPT = 'You are a browser agent.'\n"
    "async def agent_node(state):\n"
    "    messages = state['messages']\n"
    "    if {TEST}:\n"
    "        messages = {PREPEND}\n"
    "    response = await llm_with_tools.ainvoke(messages)\n"
    "    return {RETURN}\n"
)


def _pl303(test: str, prepend: str, ret: str) -> list[int]:
    text = _NODE.replace("{TEST}", test).replace("{PREPEND}", prepend).replace("{RETURN}", ret)
    return [f.line for f in check_python("graph.py", text) if f.code == "PL303"]


@pytest.mark.parametrize(
    ("test", "prepend"),
    [
        ("len(messages) == 1", "[SystemMessage(content=SYSTEM_PROMPT)] + messages"),
        ("not messages", "[SystemMessage(content=SYSTEM_PROMPT), *messages]"),
        ("len(messages) < 2", "[{'role': 'system', 'content': SYSTEM_PROMPT}] + messages"),
    ],
)
def test_a_system_message_only_on_the_first_request_is_reported(test: str, prepend: str) -> None:
    assert _pl303(test, prepend, "{'messages': [response]}") == [6]


def test_the_system_message_handed_back_with_the_state_is_kept() -> None:
    ret = "{'messages': messages + [response]}"
    assert (
        _pl303("len(messages) == 1", "[SystemMessage(content=SYSTEM_PROMPT)] + messages", ret) == []
    )


def test_a_test_that_is_not_the_history_length_is_no_first_request() -> None:
    prepend = "[SystemMessage(content=SYSTEM_PROMPT)] + messages"
    assert _pl303("state.get('use_system')", prepend, "{'messages': [response]}") == []


def test_a_system_message_prepended_on_every_request_is_no_breaker() -> None:
    text = (
        _NODE.replace("    if {TEST}:\n        messages = {PREPEND}\n", "")
        .replace("ainvoke(messages)", "ainvoke([SystemMessage(content=SYSTEM_PROMPT)] + messages)")
        .replace("{RETURN}", "{'messages': [response]}")
    )
    assert [f for f in check_python("graph.py", text) if f.code == "PL303"] == []
