"""One-shot requests are no conversation: a system message and at most one user message written
out in the call itself carry no history, so a per-request value in that system prompt breaks no
repeated prefix (`pycheck.oneshot`), and a request sending only the newest message is no side
request resending the conversation (`pycheck.side`). Their twins that keep a history still
report."""

from __future__ import annotations

from prefixlock.policies.pycheck import check_python


def _codes(text: str) -> list[str]:
    return [f.code for f in check_python("agent.py", text)]


# A device command written into the system prompt of a lone system message, sent once.
_ONE_SHOT = (
    "from langchain_core.messages import SystemMessage, HumanMessage\n"
    "class Devices:\n"
    "    def control(self, device_id, user_message):\n"
    "        system_prompt = f'Control device {device_id}. The user said: {user_message}'\n"
    "        response = self.llm.invoke([SystemMessage(content=system_prompt)])\n"
    "        return response.tool_calls\n"
    "    def control_all(self, requests):\n"
    "        for r in requests:\n"
    "            self.control(r['device_id'], r['user_message'])\n"
)


def test_a_lone_system_message_sent_once_reports_nothing() -> None:
    assert not {"PL103", "PL304"} & set(_codes(_ONE_SHOT))


# The same prompt, with the conversation's history sent after it: the prefix breaks.
_WITH_HISTORY = (
    "from langchain_core.messages import SystemMessage, HumanMessage\n"
    "class Devices:\n"
    "    def control(self, device_id, user_message, history):\n"
    "        system_prompt = f'Control device {device_id}. The user said: {user_message}'\n"
    "        response = self.llm.invoke([SystemMessage(content=system_prompt), *history])\n"
    "        return response.tool_calls\n"
)


def test_the_same_prompt_ahead_of_a_history_still_reports() -> None:
    assert {"PL103", "PL304"} & set(_codes(_WITH_HISTORY))


_DATED = (
    "def answer(question):\n"
    "    device_uuid = get_device()\n"
    "    system = f'You control device {device_uuid}.'\n"
    "    user = HumanMessage(content=question)\n"
    "    return llm.invoke({SENT})\n"
)


def test_a_system_and_one_user_message_written_out_are_one_shot() -> None:
    text = _DATED.replace("{SENT}", "[SystemMessage(content=system), user]")
    assert "PL103" not in _codes(text)


def test_a_one_shot_list_bound_to_a_name_and_sent_as_is_is_one_shot() -> None:
    text = _DATED.replace(
        "    return llm.invoke({SENT})\n",
        "    msgs = [SystemMessage(content=system), user]\n    return llm.invoke(msgs)\n",
    )
    assert "PL103" not in _codes(text)


def test_a_bound_list_that_grows_is_a_conversation() -> None:
    text = _DATED.replace(
        "    return llm.invoke({SENT})\n",
        "    msgs = [SystemMessage(content=system), user]\n"
        "    while True:\n"
        "        reply = llm.invoke(msgs)\n"
        "        msgs.append(reply)\n",
    )
    assert "PL103" in _codes(text)


def test_a_list_sent_with_the_stored_messages_is_a_conversation() -> None:
    text = _DATED.replace("{SENT}", "[SystemMessage(content=system), *stored_messages]")
    assert "PL103" in _codes(text)


def test_a_second_request_sending_the_history_keeps_the_finding() -> None:
    text = _DATED.replace(
        "    return llm.invoke({SENT})\n",
        "    llm.invoke([SystemMessage(content=system), user])\n"
        "    return llm.invoke([SystemMessage(content=system), *history])\n",
    )
    assert "PL103" in _codes(text)


# A chat node that sends a fixed system prompt and only the newest user message.
_NEWEST_ONLY = (
    "from langchain_core.messages import SystemMessage, HumanMessage\n"
    "SYS = 'You are a helpful spreadsheet assistant.'\n"
    "async def chat(state):\n"
    "    user_messages = [m for m in state['messages'] if isinstance(m, HumanMessage)]\n"
    "    user_query = {PICK}\n"
    "    system = SystemMessage(content=SYS)\n"
    "    user = HumanMessage(content=f'Question: {user_query}')\n"
    "    return await completion_stream(messages=[system, user])\n"
)


def test_only_the_newest_message_under_a_system_prompt_is_no_side_request() -> None:
    text = _NEWEST_ONLY.replace("{PICK}", "user_messages[-1].content if user_messages else 'Hi'")
    assert "PL305" not in _codes(text)


def test_every_message_joined_under_a_system_prompt_is_still_a_side_request() -> None:
    text = _NEWEST_ONLY.replace("{PICK}", "'\\n'.join(m.content for m in user_messages)")
    assert "PL305" in _codes(text)


def test_a_clock_in_a_one_shot_system_prompt_is_still_reported() -> None:
    text = (
        "from datetime import datetime\n"
        "def answer(question):\n"
        "    system = f'Rules. Now: {datetime.now().isoformat()}'\n"
        "    return llm.invoke([SystemMessage(content=system), HumanMessage(content=question)])\n"
    )
    assert "PL101" in _codes(text)
