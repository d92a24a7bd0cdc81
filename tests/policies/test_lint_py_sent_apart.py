"""The newest user message sent as text joined from the history's earlier user messages, while
the history keeps only the new text (`pycheck/sentapart.py`): the next request replays that
turn with other bytes. Each negative is a twin of the positive that differs in the one thing
the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_PY = (
    "def ask(client, text, history):\n"
    '    params = {"model": "m", "messages": [{"role": "system", "content": PROMPT}]}\n'
    '    params["messages"].extend(history)\n'
    '    asked = [m["content"] for m in SOURCE if m["role"] == "user"]\n'
    "    asked.append(text)\n"
    '    params["messages"].append({"role": "user", "content": "\\n".join(asked)})\n'
    "    reply = client.chat.completions.create(**params)\n"
    '    history.append({"role": "user", "content": KEPT})\n'
    '    history.append({"role": "assistant", "content": reply.choices[0].message.content})\n'
    "    return reply\n"
)


def _src(source: str = "history", kept: str = "text") -> str:
    return _PY.replace("SOURCE", source).replace("KEPT", kept)


def test_joined_user_messages_sent_but_the_new_one_kept_alone() -> None:
    assert lines_of(_src(), "PL303", "ask.py") == [6]


def test_the_joined_text_kept_as_sent_is_not_reported() -> None:
    assert lines_of(_src(kept='"\\n".join(asked)'), "PL303", "ask.py") == []


def test_text_joined_from_another_list_is_not_reported() -> None:
    assert lines_of(_src(source="notes"), "PL303", "ask.py") == []
