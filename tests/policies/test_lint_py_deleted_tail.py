"""`del history[:-n]` keeps the conversation's last messages on every turn: a sliding window
spelt as a deletion. Each positive has twins that differ in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_BOT = (
    "class Bot:\n"
    "    def reply(self, client, text):\n"
    '        self.history.append({"role": "user", "content": text})\n'
    "        CUT\n"
    '        return client.chat.completions.create(model="m", messages=self.history)\n'
)


def test_the_history_deleted_but_its_last_messages_is_a_window() -> None:
    assert lines_of(_BOT.replace("CUT", "del self.history[:-10]"), "PL303", "bot.py") == [4]


def test_the_history_deleted_but_its_head_and_last_messages_is_a_window() -> None:
    assert lines_of(_BOT.replace("CUT", "del self.history[1:-10]"), "PL303", "bot.py") == [4]


def test_another_list_deleted_to_its_tail_is_no_window() -> None:
    assert lines_of(_BOT.replace("CUT", "del self.latencies[:-10]"), "PL303", "bot.py") == []


def test_the_newest_message_taken_back_is_no_window() -> None:
    assert lines_of(_BOT.replace("CUT", "del self.history[-1:]"), "PL303", "bot.py") == []


def test_a_deletion_under_a_size_test_is_reported_once_at_the_test() -> None:
    src = _BOT.replace("CUT", "if len(self.history) > 40:\n            del self.history[:-10]")
    assert lines_of(src, "PL303", "bot.py") == [4]
