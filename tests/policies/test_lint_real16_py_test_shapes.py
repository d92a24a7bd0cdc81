"""Python shapes that real16's test half showed (development data since it was scored): a chat's
last messages read from a database newest first and capped, and a chat template's slot bound
to a clock callable. Each a synthetic positive with a negative twin that differs in the one
thing the rule reads."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source
from prefixlock.policies.pycheck.analyzer import _syntax_message
from tests.helpers.lintfind import lines_of


def _codes(src: str) -> list[str]:
    return [f.code for f in lint_source(src, "agent.py")]


_SQL = (
    "def reply(cur, client, session_id, text):\n"
    "    cur.execute(\n"
    '        """\n'
    "        SELECT role, content FROM messages\n"
    "        WHERE session_id = ?\n"
    "        ORDER BY id ORDER_DIR\n"
    "        LIMIT ?\n"
    '        """,\n'
    "        (session_id, 12),\n"
    "    )\n"
    '    rows = [{"role": r, "content": c} for (r, c) in cur.fetchall()][::-1]\n'
    '    messages = [{"role": "system", "content": "S"}] + rows\n'
    '    return client.chat.completions.create(model="m", messages=messages)\n'
)


def test_sql_reading_the_newest_messages_to_a_cap_is_a_window() -> None:
    """`ORDER BY id DESC LIMIT ?` on the messages table: the last 12 messages are sent; the
    finding stands on the LIMIT line."""
    assert lines_of(_SQL.replace("ORDER_DIR", "DESC"), "PL303") == [7]


def test_sql_reading_the_messages_oldest_first_is_no_window() -> None:
    """The same query ascending: the conversation's first messages, a prefix that stays."""
    assert _codes(_SQL.replace("ORDER_DIR", "ASC")) == []


def test_sql_page_with_an_offset_is_no_window() -> None:
    """`LIMIT ? OFFSET ?`: a page the caller asked for (a history screen), not the sent chat."""
    src = _SQL.replace("ORDER_DIR", "DESC").replace("LIMIT ?\n", "LIMIT ? OFFSET ?\n")
    assert _codes(src) == []


_REPO = (
    "class Messages:\n"
    "    def NAME(self, session_id, limit):\n"
    "        return self._db.execute(\n"
    '            "SELECT id, role, content FROM messages WHERE session_id = ? "\n'
    '            "ORDER BY created_at DESC LIMIT ?", (session_id, limit)\n'
    "        ).fetchall()\n"
)


def test_a_store_method_whose_caller_is_elsewhere_is_not_assumed_sent() -> None:
    """`list_recent(limit)` in a repository: the file does not show the rows sent (its caller
    may show a page of them); named for the conversation sent, it does."""
    assert _codes(_REPO.replace("NAME", "list_recent")) == []
    assert _codes(_REPO.replace("NAME", "get_context_for_llm")) == ["PL303"]


_DELETE = (
    "def trim(cur, role):\n"
    '    cur.execute("DELETE FROM messages WHERE id NOT IN '
    '(SELECT id FROM messages ORDER BY id DESC LIMIT 100)")\n'
)


def test_sql_that_deletes_is_no_read_window() -> None:
    assert _codes(_DELETE) == []


_ORM = (
    "from sqlalchemy import desc, select\n\n\n"
    "async def load_history(session, chat_id):\n"
    "    rows = await session.execute(\n"
    "        select(Message).where(Message.chat_id == chat_id).order_by(ORDER).limit(20)\n"
    "    )\n"
    '    return [{"role": m.role, "content": m.text} for m in reversed(rows.scalars().all())]\n'
)


def test_sqlalchemy_newest_first_and_limited_is_a_window() -> None:
    assert _codes(_ORM.replace("ORDER", "desc(Message.id)")) == ["PL303"]
    assert _codes(_ORM.replace("ORDER", "Message.id.desc()")) == ["PL303"]


def test_sqlalchemy_oldest_first_is_no_window() -> None:
    assert _codes(_ORM.replace("ORDER", "Message.id")) == []


_DJANGO = (
    "def get_chat_history(chat, client):\n"
    '    recent = ChatMessage.objects.filter(chat=chat).order_by("ORDER")[:10]\n'
    '    history = [{"role": m.role, "content": m.text} for m in reversed(recent)]\n'
    '    return client.chat.completions.create(model="m", messages=history)\n'
)


def test_django_minus_id_ordering_sliced_is_a_window() -> None:
    assert _codes(_DJANGO.replace("ORDER", "-id")) == ["PL303"]


def test_django_ascending_ordering_sliced_is_no_window() -> None:
    assert _codes(_DJANGO.replace("ORDER", "id")) == []


_PARTIAL = (
    "from datetime import datetime\n"
    "from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder\n\n"
    "actor = ChatPromptTemplate.from_messages(\n"
    "    [\n"
    '        ("system", "You write posts. Current time: {time}"),\n'
    '        MessagesPlaceholder(variable_name="messages"),\n'
    "    ]\n"
    ").partial(\n"
    "    time=BOUND,\n"
    ")\n"
)


def test_a_chat_template_slot_bound_to_a_clock_callable() -> None:
    """`partial(time=lambda: datetime.now().isoformat())`: called at every format, ahead of the
    messages placeholder."""
    assert lines_of(_PARTIAL.replace("BOUND", "lambda: datetime.now().isoformat()"), "PL101") == [
        10
    ]


def test_a_chat_template_slot_bound_to_a_clock_function() -> None:
    src = _PARTIAL.replace("BOUND", "now_text") + (
        "\n\ndef now_text():\n    return datetime.now().isoformat()\n"
    )
    assert "PL101" in _codes(src)


def test_a_chat_template_slot_bound_to_a_value_read_once_is_not_per_request() -> None:
    """The reading itself bound (no lambda): taken once at import, not at each format."""
    assert _codes(_PARTIAL.replace("BOUND", "datetime.now().isoformat()")) == []


def test_a_template_without_the_conversation_is_not_reported() -> None:
    """No messages placeholder: a one-shot prompt, no conversation whose prefix is reused."""
    src = _PARTIAL.replace("BOUND", "lambda: datetime.now().isoformat()").replace(
        '        MessagesPlaceholder(variable_name="messages"),\n', ""
    )
    assert _codes(src) == []


def test_an_f_string_error_on_an_older_python_says_the_file_may_need_3_12() -> None:
    """Python 3.12 lets an f-string reuse its quotes inside its braces; 3.11's parser rejects
    the whole file, and the message says why instead of pointing at a mistake."""
    msg = _syntax_message("f-string: unmatched '('", (3, 11))
    assert "Python 3.12" in msg and "3.11" in msg


def test_other_syntax_errors_and_newer_pythons_get_the_plain_message() -> None:
    assert _syntax_message("invalid syntax", (3, 11)) == "syntax error: invalid syntax"
    assert _syntax_message("f-string: x", (3, 12)) == "syntax error: f-string: x"


_PRESET = (
    "import datetime\n\n\n"
    "class Bot:\n"
    "    def get_preset(self, name):\n"
    "        today = datetime.datetime.now().isoformat()\n"
    '        return [{"role": "system", "content": f"You are {name}. Now: {today}"}]\n\n'
    "    async def start(self, client, name, text):\n"
    "        CALL\n"
)
_IN_SESSION = (
    "self.session = ChatSession(\n"
    "            options=SessionOptions(messages=[*self.get_preset(name)]),\n"
    "        )"
)
_PER_REQUEST = (
    "return await client.chat.completions.create(\n"
    '            model="m", messages=[*self.get_preset(name), {"role": "user", "content": text}]\n'
    "        )"
)


def test_a_prompt_built_only_inside_a_session_construction_is_fixed_for_the_session() -> None:
    """Every call of the builder lies in `ChatSession(...)`'s arguments: read once per
    conversation, not per request."""
    assert _codes(_PRESET.replace("CALL", _IN_SESSION)) == []


def test_the_same_builder_called_for_a_request_is_per_request() -> None:
    assert "PL101" in _codes(_PRESET.replace("CALL", _PER_REQUEST))


def test_a_builder_also_called_for_a_request_keeps_its_finding() -> None:
    src = _PRESET.replace("CALL", _IN_SESSION + "\n        " + _PER_REQUEST)
    assert "PL101" in _codes(src)
