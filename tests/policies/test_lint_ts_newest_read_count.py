"""A call named for the newest messages of a conversation (or their context) handed a count
(`sessions.getRecentContext(id, 10)`) returns a window, wherever the call is defined: once the
conversation is longer than the count its first message moves on every turn. Each negative is
a twin of the positive that differs in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_TS = (
    "export async function reply(sessions: Store, model: Model, id: string, text: string) {\n"
    "  const recent = sessions.READ;\n"
    "  const messages = [\n"
    "    new SystemMessage(PROMPT),\n"
    "    ...recent.map((m) => new HumanMessage(m.content)),\n"
    "    new HumanMessage(text),\n"
    "  ];\n"
    "  return model.invoke(messages);\n"
    "}\n"
)


def _src(read: str) -> str:
    return _TS.replace("READ", read)


def test_a_read_named_for_the_recent_context_given_a_count_is_a_window() -> None:
    assert lines_of(_src("getRecentContext(id, 10)"), "PL303", "reply.ts") == [2]
    assert lines_of(_src("fetchLatestMessages(id, 20)"), "PL303", "reply.ts") == [2]


def test_a_count_of_one_is_the_newest_message_not_a_window() -> None:
    assert lines_of(_src("getRecentContext(id, 1)"), "PL303", "reply.ts") == []


def test_a_read_not_named_for_the_newest_is_not_this_window() -> None:
    assert lines_of(_src("getContext(id, 10)"), "PL303", "reply.ts") == []


def test_a_read_of_recent_things_other_than_messages_is_not_a_window() -> None:
    assert lines_of(_src("getRecentFiles(id, 10)"), "PL303", "reply.ts") == []
