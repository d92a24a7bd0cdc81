"""Seventeenth pass, Python structural: a newest-N window read in order whatever its parts are
named. A window that stops short of the newest item (`[-n:-1]`), a window mapped message by
message before it is returned, and a store read newest first reported at its cap. Each
positive has twins that differ in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_HISTORIAL = (
    "class Historial:\n"
    "    CUTOFF = 20\n"
    "    def __init__(self):\n"
    "        self._messages = []\n"
    "    def window(self):\n"
    "        res = self._messages[-self.CUTOFF : UPPER]\n"
    '        return [{"role": m.role, "content": str(m.text)} for m in res]\n'
)


def test_a_window_short_of_the_newest_message_is_a_window() -> None:
    """`[-n:-1]`: the newest n but the last still starts n back from the end."""
    src = _HISTORIAL.replace("UPPER", "-1")
    assert lines_of(src, "PL303") == [6]


def test_a_slice_that_keeps_the_oldest_messages_is_silent() -> None:
    """`[:-1]` and `[1:-1]` keep the start of the list where it was."""
    src = _HISTORIAL.replace("-self.CUTOFF : UPPER", ":-1")
    assert lines_of(src, "PL303") == []
    src = _HISTORIAL.replace("-self.CUTOFF : UPPER", "1:-1")
    assert lines_of(src, "PL303") == []


def test_a_window_mapped_message_by_message_and_returned_is_found() -> None:
    src = (
        "def recent(history, n):\n"
        "    kept = history[-n:]\n"
        '    return [{"role": m["role"], "content": m["text"]} for m in kept]\n'
    )
    assert lines_of(src, "PL303") == [2]


def test_a_window_mapped_to_plain_text_is_silent() -> None:
    """Mapped to what is no chat message (a list shown in a page), it is not what is sent."""
    src = (
        "def recent(history, n):\n"
        "    kept = history[-n:]\n"
        '    return [m["text"] for m in kept]\n'
        'ROLE = "role"\n'
    )
    assert lines_of(src, "PL303") == []


_STORE = (
    "def get_history(db, chat_id):\n"
    "    rows = (\n"
    "        db.query(ChatMessage)\n"
    "        .filter(ChatMessage.chat_id == chat_id)\n"
    "        .order_by(ChatMessage.created_at.ORDER())\n"
    "        .limit(20)\n"
    "        .all()\n"
    "    )\n"
    '    return [{"role": r.role, "content": r.text} for r in reversed(rows)]\n'
)


def test_a_store_read_newest_first_is_reported_at_its_cap() -> None:
    """Written over several lines, the window is reported where its count is chosen."""
    assert lines_of(_STORE.replace("ORDER", "desc"), "PL303") == [6]


def test_a_store_read_oldest_first_is_silent() -> None:
    assert lines_of(_STORE.replace("ORDER", "asc"), "PL303") == []
