"""A request that sends the history kept on its object as it is (`messages=self.messages`,
`messages=self.histories[chat_id]`) has that history as what it brings: a value made from it
(`extract(self.messages)`) and written into the system prompt changes the prefix as the
conversation grows (PL304). Each positive has twins that differ in the one thing the rule
reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "import anthropic\n"
    "from .helpers import extract\n"
    "\n"
    "client = anthropic.Anthropic()\n"
    'BASE = "You are a support agent."\n'
    "\n"
    "class Bot:\n"
    "    def reply(self, chat_id, text):\n"
    '        KEPT.append({"role": "user", "content": text})\n'
    "        facts = extract(MADE)\n"
    '        system = f"{BASE} Known: {facts}"\n'
    '        return client.messages.create(model="m", system=system, messages=KEPT)\n'
)


def _src(kept: str = "self.messages", made: str = "self.messages") -> str:
    return _SRC.replace("KEPT", kept).replace("MADE", made)


def test_made_from_the_kept_history_is_reported() -> None:
    assert lines_of(_src(), "PL304") == [11]


def test_made_from_one_kept_conversation_of_a_store_is_reported() -> None:
    kept = "self.histories[chat_id]"
    assert lines_of(_src(kept=kept, made=kept), "PL304") == [11]


def test_made_from_a_setting_of_the_object_is_not_reported() -> None:
    assert lines_of(_src(made="self.persona"), "PL304") == []


def test_made_from_another_list_of_the_object_is_not_reported() -> None:
    assert lines_of(_src(made="self.documents"), "PL304") == []


def test_the_history_first_message_passed_on_is_not_reported() -> None:
    src = _src().replace(
        "        facts = extract(self.messages)\n",
        '        facts = self.messages[0]["content"]\n',
    )
    assert lines_of(src, "PL304") == []
