"""A list of any name that the module fills with chat messages (`self.log.append({"role": ...})`)
holds a conversation: once it is long, messages popped from its front by position
(`if len(self.log) > n: self.log.pop(1)`) move the start of the history every turn. Each
positive has a twin that differs in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_MEMORY = (
    "class Recall:\n"
    "    def __init__(self, prompt, size=9):\n"
    "        self.size = size\n"
    '        self.store = [{"role": "system", "content": prompt}]\n'
    "\n"
    "    def said(self, text):\n"
    "        self.store.append(ITEM)\n"
    "        if len(self.store) > self.size:\n"
    "            self.store.pop(CUT)\n"
    "\n"
    "    def asked(self, text):\n"
    '        self.store.append({"role": "user", "content": text})\n'
    "\n"
    "    def context(self):\n"
    "        return self.store\n"
)


def _src(item: str = '{"role": "assistant", "content": text}', cut: str = "1") -> str:
    return _MEMORY.replace("ITEM", item).replace("CUT", cut)


def test_a_list_of_chat_messages_popped_by_position_once_long_is_a_window() -> None:
    assert lines_of(_src(), "PL303", "memory.py") == [8]


def test_popping_the_first_item_is_a_window_too() -> None:
    assert lines_of(_src(cut="0"), "PL303", "memory.py") == [8]


def test_popping_the_newest_message_is_not_a_window() -> None:
    assert lines_of(_src(cut="-1"), "PL303", "memory.py") == []
    assert lines_of(_src(cut=""), "PL303", "memory.py") == []


def test_a_list_never_given_chat_messages_is_not_a_conversation() -> None:
    src = _src(item='{"kind": "said", "text": text}').replace(
        '{"role": "user", "content": text}', '{"kind": "asked", "text": text}'
    )
    src = src.replace('{"role": "system", "content": prompt}', "prompt")
    assert lines_of(src, "PL303", "memory.py") == []


def test_another_list_popped_under_the_chat_list_length_is_not_a_window() -> None:
    src = _src().replace("self.store.pop(1)", "self.pending.pop(1)")
    assert lines_of(src, "PL303", "memory.py") == []
