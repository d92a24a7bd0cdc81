"""A history cut in place at its front is a window only where the list can reach a request: a
list used only in place in the scope that owns it (a terminal client's display history that a
server-side session never sees) is sent nowhere. Each positive has a twin that differs in the
one use that hands the list on."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_GLOBAL = (
    "conversation_history = []\n"
    "\n"
    "async def send(ws, session_id, message):\n"
    '    await ws.send_json({"role": "user", "message": message, "session_id": session_id})\n'
    "    reply = await ws.receive_json()\n"
    '    conversation_history.append({"role": "assistant", "content": reply})\n'
    "    if len(conversation_history) > 6:\n"
    "        conversation_history.pop(0)\n"
    "    USE\n"
    "\n"
    "def new_session():\n"
    "    global conversation_history\n"
    "    conversation_history = []\n"
    "    if conversation_history and conversation_history[-1]['role'] == 'user':\n"
    "        conversation_history.pop()\n"
)


def test_a_display_history_never_handed_on_is_no_window() -> None:
    """Appended, measured, popped, tested and indexed only: no request carries it."""
    assert lines_of(_GLOBAL.replace("USE", "return reply"), "PL303", "client.py") == []


def test_the_same_history_sent_with_a_request_is_a_window() -> None:
    """The same list passed as a request's messages: the cut moves its first message."""
    src = _GLOBAL.replace("USE", "return await client.chat(messages=conversation_history)")
    assert lines_of(src, "PL303", "client.py") == [7]


def test_the_same_history_iterated_into_another_list_is_a_window() -> None:
    """Iterated (its messages copied out), the list may reach a request: kept as a window."""
    src = _GLOBAL.replace("USE", "payload = [m for m in conversation_history]")
    assert lines_of(src, "PL303", "client.py") == [7]


def test_the_same_history_sliced_is_a_window() -> None:
    """A slice of it is a list of its messages handed on."""
    src = _GLOBAL.replace("USE", "recent = conversation_history[1:]")
    assert lines_of(src, "PL303", "client.py") == [7]


_PARAM = (
    "def trim(history):\n"
    '    history.append({"role": "user", "content": "next"})\n'
    "    if len(history) > 10:\n"
    "        history.pop(0)\n"
)


def test_a_parameter_cut_in_place_is_a_window() -> None:
    """A parameter's list is its caller's, who sends it: the cut is kept."""
    assert lines_of(_PARAM, "PL303", "client.py") == [3]


def test_a_kept_attribute_cut_in_place_is_a_window() -> None:
    """`self.history`: any method may send it; the cut is kept."""
    src = (
        "class Chat:\n"
        "    def add(self, m):\n"
        '        self.history.append({"role": "user", "content": m})\n'
        "        while len(self.history) > self.max_messages:\n"
        "            self.history.pop(0)\n"
    )
    assert lines_of(src, "PL303", "client.py") == [4]


_LOCAL = (
    "def loop(client, read):\n"
    "    messages = []\n"
    "    while True:\n"
    '        messages.append({"role": "user", "content": read()})\n'
    "        if len(messages) > 20:\n"
    "            messages.pop(0)\n"
    "        USE\n"
)


def test_a_local_list_sent_by_its_loop_is_a_window() -> None:
    src = _LOCAL.replace("USE", 'client.create(model="m", messages=messages)')
    assert lines_of(src, "PL303", "client.py") == [5, 6]


def test_a_local_list_only_counted_is_no_window() -> None:
    """The same loop keeping its last twenty inputs to show a count: nothing sends them."""
    src = _LOCAL.replace("USE", "print(len(messages))")
    assert lines_of(src, "PL303", "client.py") == []
