"""The newest messages of a conversation, read to a count and rendered as text, written into the
system prompt (TypeScript, `jscheck/windowtext.py`): the system prompt changes with every
message and its start moves once the conversation passes the count. Each negative is a twin of
the positive that differs in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_TS = (
    "export async function reply(store: Store, id: string, text: string) {\n"
    "  const READ;\n"
    "  const earlier = recentMessages.filter((m) => m.content !== '');\n"
    "  let systemPrompt = BASE_PROMPT;\n"
    "  const historyText = earlier.map((m) => `${m.role}: ${m.content}`).join('\\n');\n"
    "  TARGET += `\\n## Previous conversation\\n${historyText}`;\n"
    "  return agent({ system: systemPrompt, prompt: text });\n"
    "}\n"
)
_READ = "recentMessages = await store.getRecent({ conversationId: id, limit: 10 })"


def _src(read: str = _READ, target: str = "systemPrompt") -> str:
    return _TS.replace("READ", read).replace("TARGET", target)


def test_recent_messages_read_to_a_count_written_into_the_system_prompt() -> None:
    assert lines_of(_src(), "PL303", "reply.ts") == [6]


def test_a_history_cut_by_a_negative_slice_is_a_window_too() -> None:
    read = "recentMessages = (await store.all(id)).slice(-8)"
    assert lines_of(_src(read=read), "PL303", "reply.ts") == [6]


def test_the_text_written_into_a_user_prompt_is_not_reported() -> None:
    src = _src(target="userPrompt").replace("let systemPrompt", "let userPrompt")
    assert lines_of(src, "PL303", "reply.ts") == []


def test_a_whole_history_read_without_a_count_is_not_this_window() -> None:
    read = "recentMessages = await store.getRecent({ conversationId: id })"
    assert lines_of(_src(read=read), "PL303", "reply.ts") == []


def test_a_count_not_read_from_the_newest_end_is_not_a_window() -> None:
    read = "recentMessages = (await store.all(id)).slice(0, 8)"
    assert lines_of(_src(read=read), "PL303", "reply.ts") == []
    first = "recentMessages = await store.getFirst({ conversationId: id, limit: 10 })"
    assert (
        lines_of(
            _src(read=first.replace("recentMessages", "openingMessages")).replace(
                "recentMessages.filter", "openingMessages.filter"
            ),
            "PL303",
            "reply.ts",
        )
        == []
    )
