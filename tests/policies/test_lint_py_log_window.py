"""A chat log's newest lines read back as the conversation (`read_last_n_lines(LOG, 30)`, then
one user message a line after the system message) is a sliding window like a loader named for
the history (`pycheck.loadedwindow`); its near misses (the newest line alone, a log read whole,
a file that builds no chat messages) report nothing."""

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
