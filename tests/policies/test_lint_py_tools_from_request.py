"""A request sent with its history whose tool list is picked by what the request brings (a
call, a test or a filter that reads its newest message or the history, or a list grown under
such a test) is PL302: the tools come first in the prefix, so each change misses the cache
from its first byte. Each positive has twins that differ in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "import anthropic\n"
    "from .tools import ALL_TOOLS, select_tools\n"
    "\n"
    "client = anthropic.Anthropic()\n"
    "\n"
    "def reply(history, user_message, enabled):\n"
    "    PICK\n"
    '    return client.messages.create(model="m", system="S", tools=tools, messages=SENT)\n'
)


def _src(pick: str, sent: str = "history") -> str:
    return _SRC.replace("PICK", pick).replace("SENT", sent)


def test_picked_by_a_call_given_the_newest_message_is_reported() -> None:
    assert lines_of(_src("tools = select_tools(user_message)"), "PL302") == [7]


def test_picked_by_a_call_given_a_setting_is_not_reported() -> None:
    assert lines_of(_src("tools = select_tools(enabled)"), "PL302") == []


def test_a_fixed_list_is_not_reported() -> None:
    assert lines_of(_src("tools = list(ALL_TOOLS)"), "PL302") == []


def test_filtered_by_what_the_history_says_is_reported() -> None:
    pick = 'tools = [t for t in ALL_TOOLS if t["name"] in history[-1]["content"]]'
    assert lines_of(_src(pick), "PL302") == [7]


def test_grown_under_a_test_of_the_newest_message_is_reported() -> None:
    pick = 'tools = list(ALL_TOOLS)\n    if "search" in user_message:\n        tools.append(S)'
    assert lines_of(_src(pick), "PL302") == [8]


def test_grown_under_a_test_of_a_setting_is_not_reported() -> None:
    pick = "tools = list(ALL_TOOLS)\n    if enabled:\n        tools.append(S)"
    assert lines_of(_src(pick), "PL302") == []


def test_a_one_shot_request_is_not_reported() -> None:
    """No history follows its tools: nothing cached after them is lost."""
    sent = '[{"role": "user", "content": user_message}]'
    assert lines_of(_src("tools = select_tools(user_message)", sent=sent), "PL302") == []


def test_the_tool_list_the_request_carries_passed_on_is_not_reported() -> None:
    """`msg["tools"]`: the caller's own list for this turn, handed on as it came."""
    src = (
        "import anthropic\n"
        "client = anthropic.Anthropic()\n"
        "\n"
        "def serve(turns, delegate):\n"
        "    messages = []\n"
        "    for msg in turns:\n"
        '        messages.append({"role": "user", "content": msg["prompt"]})\n'
        '        tools = [*msg["tools"], delegate] if delegate else msg["tools"]\n'
        '        reply = client.messages.create(model="m", tools=tools, messages=messages)\n'
        '        messages.append({"role": "assistant", "content": reply.content})\n'
    )
    assert lines_of(src, "PL302") == []
    assert lines_of(src.replace('msg["tools"]', 'pick(msg["prompt"])'), "PL302") == [8]
