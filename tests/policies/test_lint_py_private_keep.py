"""A window cut in a private helper (`def _select_recent(self, messages)`) that the file calls
is a window only where a call of it sends or keeps what it returns. Where every call keeps the
result to itself or hands it back beside other values (`return summary, recent`: what a
summariser keeps after its summary), the return is no evidence of a conversation sent. Each
positive has twins that differ in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "class Compactor:\n"
    "    def _select_recent(self, messages):\n"
    "        recent_messages = []\n"
    "        for m in messages:\n"
    '            if m["role"] == "user":\n'
    "                recent_messages.append(m)\n"
    "        return recent_messages[-10:]\n"
    "\n"
    "    def compact(self, conversation):\n"
    "        summary = self.llm.summarize(conversation.messages)\n"
    "        USE\n"
)


def _src(use: str) -> str:
    return _SRC.replace("USE", use)


def test_handed_back_beside_a_summary_is_no_window() -> None:
    src = _src("kept = self._select_recent(conversation.messages)\n        return summary, kept")
    assert lines_of(src, "PL303") == []


def test_only_measured_is_no_window() -> None:
    src = _src(
        "kept = self._select_recent(conversation.messages)\n"
        "        log.info('kept', n=len(kept))\n"
        "        return summary"
    )
    assert lines_of(src, "PL303") == []


def test_returned_as_it_is_is_a_window() -> None:
    assert lines_of(_src("return self._select_recent(conversation.messages)"), "PL303") == [7]


def test_bound_then_returned_as_the_list_is_a_window() -> None:
    """(Line 12, the summary put ahead of the kept messages, is a finding of its own.)"""
    src = _src("kept = self._select_recent(conversation.messages)\n        return [summary] + kept")
    assert 7 in lines_of(src, "PL303")


def test_sent_as_messages_is_a_window() -> None:
    src = _src(
        "kept = self._select_recent(conversation.messages)\n"
        '        return self.client.create(model="m", messages=kept)'
    )
    assert lines_of(src, "PL303") == [7]


def test_handed_to_a_call_is_a_window() -> None:
    src = _src("kept = self._select_recent(conversation.messages)\n        self.llm.invoke(kept)")
    assert lines_of(src, "PL303") == [7]


def test_stored_on_the_object_is_a_window() -> None:
    assert lines_of(
        _src("self.messages = self._select_recent(conversation.messages)"), "PL303"
    ) == [7]


def test_a_public_helper_is_judged_as_before() -> None:
    """Its callers may be in other files: the return still counts."""
    src = _src(
        "kept = self.select_recent(conversation.messages)\n        return summary, kept"
    ).replace("def _select_recent", "def select_recent")
    assert lines_of(src, "PL303") == [7]


def test_a_private_helper_no_one_here_calls_is_judged_as_before() -> None:
    assert lines_of(_src("return summary"), "PL303") == [7]


def test_a_private_helper_that_keeps_the_window_on_the_object_is_a_window() -> None:
    """`self._trim()` returns nothing: the window it keeps in `self.messages` is the one the
    next request sends, wherever it is called from."""
    src = (
        "class Conversation:\n"
        "    def add(self, m):\n"
        "        self.messages.append(m)\n"
        "        self._trim()\n"
        "\n"
        "    def _trim(self):\n"
        '        system = [m for m in self.messages if m["role"] == "system"]\n'
        '        other_msgs = [m for m in self.messages if m["role"] != "system"]\n'
        "        other_msgs = other_msgs[-self.max_len:]\n"
        "        self.messages = system + other_msgs\n"
    )
    assert lines_of(src, "PL303") == [9]


def test_put_in_a_record_under_the_history_key_is_a_window() -> None:
    src = _src(
        "kept = self._select_recent(conversation.messages)\n"
        '        return {"conversation_history": kept, "summary": summary}'
    )
    assert lines_of(src, "PL303") == [7]


def test_put_in_a_record_under_another_key_is_no_window() -> None:
    src = _src(
        "kept = self._select_recent(conversation.messages)\n"
        '        return {"kept_for_display": kept, "summary": summary}'
    )
    assert lines_of(src, "PL303") == []
