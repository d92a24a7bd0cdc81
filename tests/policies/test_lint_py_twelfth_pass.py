"""The twelfth Python pass (real20's development half).

A function whose docstring says it returns a system prompt (its summary line, or the first
line of its `Returns:` section, with the system prompt as the object) is read as one, whatever
its name (`pycheck.docprompt`): a clock it prepends is in every request's prefix. A mention of
a system prompt elsewhere in the docstring, or a prompt not said to be a system prompt, is no
such word.
"""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_COMPOSER = (
    "from datetime import date\n"
    "\n"
    "class Composer:\n"
    "    def compose_agent_prompt(self, name):\n"
    '        """DOC"""\n'
    "        composed = self._registry.get_prompt(name)\n"
    '        composed = f"Today\'s date: {date.today().isoformat()}\\n\\n{composed}"\n'
    "        return composed\n"
)


def _composer(doc: str) -> str:
    return _COMPOSER.replace("DOC", doc)


def _returns(summary: str, returned: str) -> str:
    """A docstring's text (escaped for the source) with a `Returns:` section."""
    return f"{summary}\\n\\n        Returns:\\n            {returned}\\n        "


def test_a_function_documented_as_composing_a_system_prompt_reports_its_date() -> None:
    assert lines_of(_composer("Compose complete agent system prompt."), "PL102") == [7]


def test_a_returns_section_naming_a_system_prompt_reports_its_date() -> None:
    doc = _returns("Compose skill prompt with layers.", "Complete skill system prompt with layers.")
    assert lines_of(_composer(doc), "PL102") == [7]


def test_a_system_prompt_only_mentioned_in_the_summary_is_no_such_word() -> None:
    doc = "Build the context for the LLM including the dynamic system prompt."
    assert lines_of(_composer(doc), "PL102") == []


def test_a_prompt_not_said_to_be_a_system_prompt_is_not_read_as_one() -> None:
    assert lines_of(_composer("Compose the report prompt for one summary."), "PL102") == []


def test_a_returns_line_with_the_system_prompt_after_a_preposition_is_no_such_word() -> None:
    doc = _returns("Compose the user turn.", "Text to send with the system prompt.")
    assert lines_of(_composer(doc), "PL102") == []


# A record whose clock-stamped field picks the rows a read returns.
_ROWS = (
    "import sqlite3\n"
    "from datetime import datetime\n"
    "\n"
    "def state(channel):\n"
    '    return {"pointer": datetime.now().isoformat(), "channel": channel.id}\n'
    "\n"
    "def unsummarized(channel):\n"
    '    pointer = state(channel)["pointer"]\n'
    "    conn = sqlite3.connect('db')\n"
    "    rows = conn.execute(QUERY, (channel.id, pointer)).fetchall()\n"
    "    return [r[0] for r in rows]\n"
    "\n"
    "def build(channel, history):\n"
    '    system = "You are a helpful bot. Earlier: " + "\\n".join(unsummarized(channel))\n'
    '    return [{"role": "system", "content": system}] + history\n'
)


def _rows(query: str) -> str:
    return _ROWS.replace("QUERY", query)


def test_the_parameters_of_a_read_do_not_become_its_rows() -> None:
    src = _rows('"SELECT content FROM messages WHERE channel=? AND id > ?"')
    assert lines_of(src, "PL101") == []


def test_a_write_still_carries_its_parameters() -> None:
    # Not a read: what the call returns is not chosen stored rows.
    src = _rows('"UPDATE messages SET seen=1 WHERE channel=? AND id > ?"')
    assert lines_of(src, "PL101") != []


def test_a_query_not_written_out_still_carries_its_parameters() -> None:
    assert lines_of(_rows("channel.query_text"), "PL101") != []


def test_a_clock_in_the_rows_read_still_reports() -> None:
    # The positive twin: the clock is a column of what the read hands back.
    src = _rows('"SELECT content FROM messages WHERE id > ?"').replace(
        "[r[0] for r in rows]", "[r[0] + datetime.now().isoformat() for r in rows]"
    )
    assert lines_of(src, "PL101") != []


# A module-level list named for a history, in a file that builds chat messages.
_LOG = (
    "from datetime import datetime\n"
    "\n"
    "_veto_history: list[dict] = []\n"
    "\n"
    "async def review(client, decision):\n"
    '    messages = [{"role": "user", "content": decision.text}]\n'
    "    result = await client.create(messages=messages)\n"
    "    _veto_history.append(ITEM)\n"
    "    return result\n"
    "\n"
    "def get_veto_history(limit=20):\n"
    "    return _veto_history[-limit:]\n"
)
_RECORD = '{"ts": datetime.now().isoformat(), "symbol": decision.symbol, "verdict": result}'


def _log(item: str) -> str:
    return _LOG.replace("ITEM", item)


def test_a_window_over_a_list_of_records_is_no_conversation_window() -> None:
    assert lines_of(_log(_RECORD), "PL303") == []


def test_a_window_over_a_list_of_messages_still_reports() -> None:
    assert lines_of(_log('{"role": "assistant", "content": result}'), "PL303") == [12]


def test_a_window_over_a_list_grown_by_values_from_elsewhere_still_reports() -> None:
    assert lines_of(_log("result.message"), "PL303") == [12]


def test_a_record_list_also_extended_elsewhere_still_reports() -> None:
    src = _log(_RECORD) + "\ndef restore(saved):\n    _veto_history.extend(saved)\n"
    assert lines_of(src, "PL303") == [12]


# The running summary handed to a formatter of another module, its text in the system message.
_SUMMARY = (
    "from utils.display import format_context\n"
    "\n"
    "def build(channel, messages):\n"
    "    summary = load_summary(channel)\n"
    "    always_on = MADE\n"
    '    system = "You are the channel bot.\\n\\n" + str(always_on)\n'
    '    return [{"role": "system", "content": system}] + messages\n'
)


def _summary(made: str) -> str:
    return _SUMMARY.replace("MADE", made)


def test_text_a_formatter_makes_from_the_summary_reports_in_the_system_message() -> None:
    assert lines_of(_summary("format_context(summary)"), "PL303") == [5]


def test_the_summary_s_length_is_no_summary_text() -> None:
    assert lines_of(_summary("len(summary)"), "PL303") == []


def test_a_value_not_named_for_a_summary_handed_to_a_formatter_is_no_summary() -> None:
    assert lines_of(_summary("format_context(channel)"), "PL303") == []


def test_a_lecture_s_summary_handed_to_a_formatter_is_no_conversation_summary() -> None:
    src = _summary("format_context(lecture_summary)").replace("summary = ", "lecture_summary = ")
    assert lines_of(src, "PL303") == []


# A retrieval of another module handed the conversation, its text in the system message.
_RETRIEVAL = (
    "from utils.retrieval import CALL\n"
    "\n"
    "def build(channel, conversation_msgs):\n"
    "    found = CALL(channel.id, ARG, 2000)\n"
    '    system = "You are the channel bot.\\n\\nPast messages:\\n" + found\n'
    '    return [{"role": "system", "content": system}] + conversation_msgs\n'
)


def _retrieval(call: str = "retrieve_segments", arg: str = "conversation_msgs") -> str:
    return _RETRIEVAL.replace("CALL", call).replace("ARG", arg)


def test_a_retrieval_handed_the_conversation_reports_in_the_system_message() -> None:
    assert lines_of(_retrieval(), "PL304") == [4]


def test_a_retrieval_handed_an_id_of_the_conversation_is_no_request_fetch() -> None:
    assert lines_of(_retrieval(arg="conversation_id"), "PL304") == []


def test_a_call_not_named_for_retrieval_handed_the_conversation_is_no_fetch() -> None:
    assert lines_of(_retrieval(call="count_segments"), "PL304") == []


def test_a_window_over_exchanges_kept_as_pairs_still_reports() -> None:
    # `{"question": ..., "answer": ...}`: a conversation kept in another shape.
    src = _log('{"question": decision.text, "answer": result}')
    assert lines_of(src, "PL303") == [12]
