"""TypeScript: text handed to the sending function, or refilled in a map between requests, sent
as a second system message ahead of the history (PL304), whatever it is named; fixed text, a
persona handed in and text placed after the history are silent. Synthetic code."""

from __future__ import annotations

import pytest

from prefixlock.policies.engine import lint_source

_LITERAL = """\
import OpenAI from "openai";
const client = new OpenAI();
export async function reply(history: any[], extra: string, persona: string) {
  const out = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "system", content: `Notes for this turn: ${extra}` },
    ...history,
  ];
  return client.chat.completions.create({ model: "gpt-4o", messages: out });
}
"""

_REFILLED = """\
export class MessageManager {
  private messages: any[] = [];
  private ephemeral = new Map<string, string>();
  setEphemeral(key: string, content: string) {
    this.ephemeral.set(key, content);
  }
  forRequest() {
    const out: any[] = [this.messages[0]];
    for (const content of this.ephemeral.values()) {
      out.push({ role: "system", content });
    }
    for (let i = 1; i < this.messages.length; i++) {
      out.push(this.messages[i]);
    }
    return out;
  }
}
"""


def _pl304(text: str) -> list[int]:
    return [f.line for f in lint_source(text, "chat.ts") if f.code == "PL304"]


def test_text_handed_in_sent_as_a_second_system_message_ahead_of_the_history() -> None:
    assert _pl304(_LITERAL) == [6]


def test_text_refilled_between_requests_pushed_ahead_of_the_history() -> None:
    assert _pl304(_REFILLED) == [10]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("`Notes for this turn: ${extra}`", "RULES"),  # fixed text
        ("`Notes for this turn: ${extra}`", "persona"),  # the session's persona
        (  # after the history: the newest turn's place
            '{ role: "system", content: `Notes for this turn: ${extra}` },\n    ...history,',
            '...history,\n    { role: "system", content: `Notes for this turn: ${extra}` },',
        ),
    ],
)
def test_what_is_fixed_or_after_the_history_is_silent(old: str, new: str) -> None:
    assert _pl304(_LITERAL.replace(old, new)) == []


def test_a_refilled_map_pushed_after_the_history_is_silent() -> None:
    swapped = _REFILLED.replace(
        """    for (const content of this.ephemeral.values()) {
      out.push({ role: "system", content });
    }
    for (let i = 1; i < this.messages.length; i++) {
      out.push(this.messages[i]);
    }""",
        """    for (let i = 1; i < this.messages.length; i++) {
      out.push(this.messages[i]);
    }
    for (const content of this.ephemeral.values()) {
      out.push({ role: "system", content });
    }""",
    )
    assert _pl304(swapped) == []
