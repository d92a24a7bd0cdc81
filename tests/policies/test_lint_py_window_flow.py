"""A history window found by where the cut list goes, whatever it is called: the history read
from its owner under another name (`items = state["messages"]`) and a window bound to a local
that is then joined into the list a later request is given (`msgs = [system, *kept, user]`).
Each positive has a twin that differs in the one step the rule follows."""

from __future__ import annotations

import pytest

from tests.helpers.lintfind import lines_of

_JOINED = (
    "def reply(client, state, user_message):\n"
    "    items = SOURCE\n"
    "    kept = items[-10:]\n"
    '    msgs = [{"role": "system", "content": PROMPT}, *kept,\n'
    '            {"role": "user", "content": user_message}]\n'
    "    SEND\n"
)
_SEND = 'return client.chat.completions.create(model="m", messages=msgs)'


def test_a_window_of_the_history_read_under_another_name_is_found() -> None:
    src = _JOINED.replace("SOURCE", 'state["messages"]').replace("SEND", _SEND)
    assert lines_of(src, "PL303") == [3]


def test_a_window_joined_into_the_sent_list_through_two_locals_is_found() -> None:
    src = _JOINED.replace("SOURCE", 'state["messages"]').replace(
        "SEND", "final = msgs + []\n    " + _SEND.replace("messages=msgs", "messages=final")
    )
    assert lines_of(src, "PL303") == [3]


def test_the_last_items_of_another_list_are_no_window() -> None:
    """`items = state["documents"]`: the newest documents, not the conversation."""
    src = _JOINED.replace("SOURCE", 'state["documents"]').replace("SEND", _SEND)
    assert lines_of(src, "PL303") == []


def test_a_window_joined_into_a_list_that_is_only_logged_is_no_window() -> None:
    """The same list printed, never given to a request."""
    src = _JOINED.replace("SOURCE", 'state["messages"]').replace("SEND", "print(msgs)")
    assert lines_of(src, "PL303") == []


def test_a_window_read_into_text_for_a_summary_is_not_followed_as_a_list() -> None:
    """`"\\n".join(...)` of the window is text, not the list joined into the request."""
    src = (
        "def reply(client, state, user_message):\n"
        '    items = state["messages"]\n'
        "    kept = items[-10:]\n"
        '    digest = "; ".join(m["content"] for m in kept)\n'
        '    msgs = [{"role": "user", "content": "Sum up: " + digest}]\n'
        '    return client.chat.completions.create(model="m", messages=msgs)\n'
    )
    assert lines_of(src, "PL303") == []


def test_a_window_of_a_history_parameter_joined_into_the_sent_list_is_found() -> None:
    src = _JOINED.replace("items = SOURCE", "items = history").replace("SEND", _SEND)
    src = src.replace("(client, state, user_message)", "(client, history, user_message)")
    assert lines_of(src, "PL303") == [3]


# Eighteenth pass, Python structural: a window counts by where it goes, whatever builds the
# messages. Each positive beside the twin that differs in the one thing the rule reads.
_FLATTENED = (
    "def create_prompt(history, n=10):\n"
    '    prompt = ""\n'
    "    for seg in history[-n:]:\n"
    "        prompt += GROW\n"
    "    return prompt\n"
    'ROLE = "role"\n'
)
_APPENDED = (
    "def recent_messages(path):\n"
    '    messages = [{"role": "system", "content": PROMPT}]\n'
    "    with open(path) as f:\n"
    "        data = json.load(f)\n"
    "    for item in data[-5:]:\n"
    "        INTO.append(item)\n"
    "    return messages\n"
)
_WALKED = (
    "def history_for(state, budget):\n"
    "    picked, used = [], 0\n"
    "    for node in reversed(state.nodes):\n"
    "        if used >= budget:\n"
    "            break\n"
    "        picked.append(MADE)\n"
    "        used += len(node.text)\n"
    "    return list(reversed(picked))\n"
)


_GOT = (
    "def build(session, system_prompt, text):\n"
    '    messages = [{"role": "system", "content": system_prompt}]\n'
    '    history = session.get("KEY", [])[-HISTORY_N:]\n'
    "    messages.extend(history)\n"
    '    messages.append({"role": "user", "content": text})\n'
    "    return messages\n"
)
_CLASSES = (
    "class Memory:\n"
    "    def get_messages(self, messages):\n"
    "        messages = CUT\n"
    "        return [SystemMessage(self.system_prompt)] + messages\n"
)
_BUDGET = (
    "def truncate(messages, notes, max_chars=12000):\n"
    "    rest = REST\n"
    "    keep, total = [], 0\n"
    "    for msg in reversed(rest):\n"
    "        if total + len(msg) > max_chars:\n"
    "            break\n"
    "        total += len(msg)\n"
    "        keep.append(msg)\n"
    "    return keep\n"
)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # a list of any name walked from its newest item into messages while a budget lasts,
        # reported at the budget test
        (_WALKED.replace("MADE", 'Message(role="user", content=node.text)'), [4]),
        (_WALKED.replace("MADE", '{"role": "user", "content": node.text}'), [4]),
        (_WALKED.replace("MADE", "node.text"), []),
        (
            _WALKED.replace("reversed(state.nodes)", "state.nodes").replace(
                "MADE", "{'role': 'user', 'content': node.text}"
            ),
            [],
        ),
        # the window written out as the text of the prompt the function returns
        (_FLATTENED.replace("GROW", "f\"{seg['role']}: {seg['content']}\\n\""), [3]),
        (_FLATTENED.replace("GROW", "len(seg['content'].split())").replace('""', "0"), []),
        (_FLATTENED.replace("GROW", "f\"{seg['content']}\"").replace("return prompt", "pass"), []),
        # a list read by a call, its last items appended to the conversation's list
        (_APPENDED.replace("INTO", "messages"), [5]),
        (_APPENDED.replace("INTO", "seen"), []),
        (_APPENDED.replace("data[-5:]", "data[:5]").replace("INTO", "messages"), []),
        # twentieth pass: a history read by a dict's `.get` is the history under that key
        (_GOT.replace("KEY", "conversation_history"), [3]),
        (_GOT.replace("KEY", "cart_items"), []),
        # a window in a file whose messages are a framework's classes, not role dicts
        (_CLASSES.replace("CUT", "messages[-self.max_history:]"), [3]),
        (_CLASSES.replace("CUT", "messages[:self.max_history]"), []),
        # the last items of a list of a field of each step, in a file of message classes
        (
            "def paths(self, n):\n"
            "    m = [SystemMessage(P)]\n"
            "    paths = [s.screenshot_path for s in self.history]\n"
            "    return paths[-n:]\n",
            [],
        ),
        # the same window read by a router for its verdict on the turn's path: a side task
        (_CLASSES.replace("CUT", "messages[-10:]").replace("get_messages", "router_node"), []),
        # the history less its system message, filled from the newest back while a budget lasts
        (_BUDGET.replace("REST", "messages[1:]"), [4]),
        (_BUDGET.replace("REST", "notes[1:]"), []),
        # a window of the history walked newest first while a budget lasts (cut twice)
        (_BUDGET.replace("reversed(rest)", "messages[-10:][::-1]"), [4]),
        (_BUDGET.replace("reversed(rest)", "notes[-10:][::-1]"), []),
    ],
)
def test_a_window_reaches_the_request_through_what_builds_it(src: str, expected: list[int]) -> None:
    assert lines_of(src, "PL303") == expected
