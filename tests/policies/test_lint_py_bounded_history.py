"""A history kept in a bounded queue (`deque(maxlen=n)`) is a sliding window by construction:
once full, each message added drops the oldest, and the first message after the system prompt
changes every turn. Found where the queue is made, when the module sends it; each positive has
a twin that differs in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_BOT = (
    "from collections import defaultdict, deque\n"
    "\n"
    "class Bot:\n"
    "    def __init__(self):\n"
    "        self.TARGET = QUEUE\n"
    "\n"
    "    def reply(self, client, user_message):\n"
    '        self.history.append({"role": "user", "content": user_message})\n'
    '        msgs = [{"role": "system", "content": PROMPT}, *self.history]\n'
    '        return client.chat.completions.create(model="m", messages=SENT)\n'
)


def _src(target: str = "history", queue: str = "deque(maxlen=20)", sent: str = "msgs") -> str:
    return _BOT.replace("TARGET", target).replace("QUEUE", queue).replace("SENT", sent)


def test_a_bounded_queue_of_the_sent_history_is_a_window() -> None:
    assert lines_of(_src(), "PL303", "bot.py") == [5]


def test_a_bounded_queue_given_as_the_messages_is_a_window() -> None:
    assert lines_of(_src(sent="list(self.history)"), "PL303", "bot.py") == [5]


def test_bounded_queues_made_per_chat_by_a_factory_are_windows() -> None:
    src = _src(target="histories", queue="defaultdict(lambda: deque(maxlen=20))")
    src = src.replace("*self.history]", "*self.histories[user_message]]")
    assert lines_of(src, "PL303", "bot.py") == [5]


def test_an_unbounded_queue_is_no_window() -> None:
    assert lines_of(_src(queue="deque()"), "PL303", "bot.py") == []
    assert lines_of(_src(queue="deque(maxlen=None)"), "PL303", "bot.py") == []


def test_a_bounded_queue_of_something_else_is_no_window() -> None:
    """`self.latencies = deque(maxlen=20)`: not a conversation."""
    src = _src(target="latencies")
    assert lines_of(src, "PL303", "bot.py") == []


def test_a_bounded_history_the_module_never_sends_is_no_window() -> None:
    """Kept for display: the request is given only the newest message."""
    src = _src(sent='[{"role": "user", "content": user_message}]')
    assert lines_of(src, "PL303", "bot.py") == []


_KEEPER = (
    "from collections import defaultdict, deque\n"
    "\n"
    "class Keeper:\n"
    "    def __init__(self, n):\n"
    "        self.conversations = defaultdict(lambda: deque(maxlen=n))\n"
    "\n"
    "    def add(self, chat_id, text):\n"
    '        self.conversations[chat_id].append({"role": "user", "content": text})\n'
    "\n"
    "    def context(self, chat_id, system_prompt):\n"
    "        messages = list(self.conversations[chat_id])\n"
    "        parts = [system_prompt]\n"
    "        for m in messages:\n"
    "            parts.append(f\"{m['role']}: {m['content']}\")\n"
    "        return RETURNED\n"
)


def test_a_bounded_queue_rendered_whole_and_handed_back_is_a_window() -> None:
    """The caller is handed every kept message after the system prompt: the window it sends."""
    src = _KEEPER.replace("RETURNED", '"\\n".join(parts)')
    assert lines_of(src, "PL303", "keeper.py") == [5]
    src = _KEEPER.replace("RETURNED", "messages")
    assert lines_of(src, "PL303", "keeper.py") == [5]


def test_a_count_or_one_message_of_a_bounded_queue_handed_back_is_no_window() -> None:
    """Statistics of the queue (its length, its oldest message's time) send no conversation."""
    for returned in ("len(messages)", "messages[0]['content']", "{'n': len(messages)}"):
        src = _KEEPER.replace("RETURNED", returned)
        assert lines_of(src, "PL303", "keeper.py") == [], returned
    src = _KEEPER.replace("RETURNED", "len(self.conversations[chat_id])")
    assert lines_of(src, "PL303", "keeper.py") == []
