"""A module's helper that returns the last items of whatever list it is given (`def last(items,
n): return items[-n:]`) cuts the conversation when it is handed the history and its result is
sent. Found at the call; each positive has twins that differ in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "def last(items, n):\n"
    "    return CUT\n"
    "\n"
    "def reply(client, history, docs, user_message):\n"
    '    msgs = [{"role": "system", "content": PROMPT}, *last(GIVEN, 10),\n'
    '            {"role": "user", "content": user_message}]\n'
    "    SEND\n"
)
_SEND = 'return client.chat.completions.create(model="m", messages=msgs)'


def _src(cut: str = "items[-n:]", given: str = "history", send: str = _SEND) -> str:
    return _SRC.replace("CUT", cut).replace("GIVEN", given).replace("SEND", send)


def test_a_tail_helper_handed_the_sent_history_is_a_window() -> None:
    assert lines_of(_src(), "PL303") == [5]


def test_a_head_helper_is_no_window() -> None:
    """`items[:n]`: the first messages stay the same as the chat grows."""
    assert lines_of(_src(cut="items[:n]"), "PL303") == []


def test_a_tail_helper_handed_another_list_is_no_window() -> None:
    assert lines_of(_src(given="docs"), "PL303") == []


def test_a_tail_of_the_history_that_is_not_sent_is_no_window() -> None:
    """Shown to the user, not given to a request."""
    src = (
        "def last(items, n):\n"
        "    return items[-n:]\n"
        "\n"
        "def show(history):\n"
        "    recent = last(history, 10)\n"
        "    print(recent)\n"
    )
    assert lines_of(src, "PL303") == []


def test_a_helper_named_for_the_history_is_reported_once_where_it_cuts() -> None:
    """`def last(history, n): return history[-n:]` is read where it cuts (line 2), not again
    at the call."""
    src = _src(cut="history[-n:]").replace("def last(items, n)", "def last(history, n)")
    assert lines_of(src, "PL303") == [2]
