"""A chat log's newest lines read back as the conversation (`read_last_n_lines(LOG, 30)`, then
one user message a line after the system message) is a sliding window like a loader named for
the history (`pycheck.loadedwindow`); its near misses (the newest line alone, a log read whole,
a file that builds no chat messages) report nothing. So is a history loader the module defines
with a cap-named parameter defaulting to a count (`limit: int = 10`), called without it."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_BOT = (
    "LOGFILE = 'chat.log'\n"
    "def answer(client, text):\n"
    "    lines = {CALL}\n"
    "    messages = [{'role': 'system', 'content': 'You are a stream bot.'}]\n"
    "    for line in reversed(lines.splitlines()):\n"
    "        messages.append({'role': 'user', 'content': line})\n"
    "    messages.append({'role': 'user', 'content': text})\n"
    "    return client.chat.completions.create(model='gpt-4o', messages=messages)\n"
)


def _pl303(call: str, text: str = _BOT) -> list[int]:
    return [
        f.line for f in check_python("bot.py", text.replace("{CALL}", call)) if f.code == "PL303"
    ]


@pytest.mark.parametrize(
    "call", ["readlines.read_last_n_lines(LOGFILE, 30)", "tail_lines(LOGFILE, 20)"]
)
def test_a_logs_newest_lines_as_the_conversation_are_a_window(call: str) -> None:
    assert _pl303(call) == [3]


@pytest.mark.parametrize(
    "call",
    [
        "readlines.read_last_n_lines(LOGFILE, 1)",
        "read_lines(LOGFILE)",
        "read_last_config(LOGFILE, 30)",
    ],
)
def test_the_newest_line_a_whole_log_or_other_records_are_no_window(call: str) -> None:
    assert _pl303(call) == []


def test_no_chat_messages_built_no_window() -> None:
    text = "def report(path):\n    return summarise({CALL})\n"
    assert _pl303("read_last_n_lines(path, 30)", text) == []


_DEFAULT_CAP = (
    "from langchain_core.messages import HumanMessage, SystemMessage\n"
    "def get_conversation_history(session_id, limit: int = 10):\n"
    "    rows = db.query(Chat).filter(Chat.sid == session_id)"
    ".order_by(Chat.at.desc()).limit(limit).all()\n"
    "    return [(r.question, r.answer) for r in reversed(rows)]\n"
    "def reply(llm, session_id, text):\n"
    "    messages = [SystemMessage(content='You help.')]\n"
    "    for q, a in {CALL}:\n"
    "        messages.append(HumanMessage(content=q))\n"
    "    messages.append(HumanMessage(content=text))\n"
    "    return llm.invoke(messages)\n"
)


def test_a_loader_left_at_its_default_cap_is_a_window() -> None:
    assert _pl303("get_conversation_history(session_id)", _DEFAULT_CAP) == [7]


@pytest.mark.parametrize(
    "call",
    ["get_conversation_history(session_id, 1)", "get_conversation_history(session_id, limit=1)"],
)
def test_a_loader_given_a_cap_of_one_is_no_window(call: str) -> None:
    assert _pl303(call, _DEFAULT_CAP) == []


def test_a_loader_whose_default_is_no_cap_is_no_window() -> None:
    text = _DEFAULT_CAP.replace("limit: int = 10", "limit: int | None = None")
    assert _pl303("get_conversation_history(session_id)", text) == []
