"""TypeScript: text inserted into the history a number of messages back from its end (an
author's note at `depth`) stands at a new place every turn (PL303); an insertion before the
newest message alone, at a fixed place from the start, or into a list that is no conversation
is silent. Synthetic code."""

from __future__ import annotations

import pytest

from prefixlock.policies.engine import lint_source

_BUILDER = """\
export function buildMessages(history: any[], note: string, depth: number, user: string) {
  const messages: any[] = [{ role: "system", content: SYSTEM_PROMPT }, ...history];
  if (note) {
    const insertAt = Math.max(1, messages.length - depth);
    messages.splice(insertAt, 0, { role: "system", content: note });
  }
  messages.push({ role: "user", content: user });
  return messages;
}
"""


def _pl303(text: str) -> list[int]:
    return [f.line for f in lint_source(text, "builder.ts") if f.code == "PL303"]


def test_a_note_inserted_depth_messages_back_is_reported() -> None:
    assert _pl303(_BUILDER) == [5]


def test_the_offset_written_in_the_call_is_read_alike() -> None:
    text = _BUILDER.replace("messages.splice(insertAt,", "messages.splice(messages.length - 4,")
    assert _pl303(text) == [5]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("messages.length - depth", "messages.length - 1"),  # before the newest message
        ("Math.max(1, messages.length - depth)", "1"),  # a fixed place from the start
        ("messages.splice(insertAt, 0,", "messages.splice(insertAt, 1,"),  # a replacement
    ],
)
def test_other_insertions_are_silent(old: str, new: str) -> None:
    assert _pl303(_BUILDER.replace(old, new)) == []


def test_an_insertion_into_a_list_that_is_no_conversation_is_silent() -> None:
    text = _BUILDER.replace("messages.splice(", "sections.splice(").replace(
        "const insertAt", "const sections: string[] = [];\n    const insertAt"
    )
    assert _pl303(text.replace("messages.length - depth", "sections.length - depth")) == []
