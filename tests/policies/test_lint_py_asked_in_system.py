"""What a request asks, known by its parameter's name (`query`, `user_message`) where no user
message is written out in the function, and the locals made from it, picking the system prompt
of a request sent with its history (`system=PROMPTS[classify(query)]`) is PL304, as the same
value written into a user message is. Each positive has twins that differ in the one thing the
rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "import anthropic\n"
    "from .nlu import classify\n"
    "\n"
    "client = anthropic.Anthropic()\n"
    'PROMPTS = {"billing": "You handle billing.", "tech": "You handle tech."}\n'
    "\n"
    "def reply(history, PARAM):\n"
    "    intent = classify(PARAM)\n"
    '    return client.messages.create(model="m", system=PROMPTS[intent], messages=SENT)\n'
)


def _src(param: str = "query", sent: str = "history") -> str:
    return _SRC.replace("PARAM", param).replace("SENT", sent)


def test_a_prompt_picked_by_the_request_is_reported() -> None:
    assert lines_of(_src(), "PL304") == [9]


def test_a_prompt_picked_by_a_setting_is_not_reported() -> None:
    assert lines_of(_src(param="team"), "PL304") == []


def test_a_one_shot_request_is_not_reported() -> None:
    assert lines_of(_src(sent='[{"role": "user", "content": query}]'), "PL304") == []
