"""Side requests and windows that are not a conversation resent: excerpts of the recent turns,
each message cut to a length (a memory extractor's last 20 messages cut to 500 characters, a
classifier's last five cut to 200), which the labels count as no breaker; and lists named for
a field of the sessions or messages (`sessionIds`, `stateHistoryTimestamps`), not for them.
Each case has its twin: the same code with the whole messages, or the messages themselves,
is still reported."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(text: str, path: str) -> list[str]:
    return [f.code for f in lint_source(text, path)]


EXTRACT_TS = """export async function extract(llm: any, messages: any[]) {
  const conversationText = messages
    .slice(-20)
    .map((m) => `${m.role}: ${TEXT}`)
    .join("\\n");
  return llm.complete({
    messages: [
      { role: "system", content: EXTRACTION_PROMPT },
      { role: "user", content: conversationText },
    ],
  });
}
"""


def test_ts_excerpts_of_the_last_turns_are_no_window_and_no_side_request() -> None:
    assert _codes(EXTRACT_TS.replace("TEXT", "${m.content.slice(0, 500)}"), "x.ts") == []


def test_ts_the_last_turns_quoted_whole_in_a_one_shot_request_are_an_excerpt_too() -> None:
    # The last 20 turns made into one text under a fresh system and user pair: an excerpt of
    # the recent turns (the labels' rule for a consolidator's last six), not the history.
    assert _codes(EXTRACT_TS.replace("TEXT", "${m.content}"), "x.ts") == []


def test_ts_the_whole_conversation_quoted_is_still_a_side_request() -> None:
    whole = EXTRACT_TS.replace("TEXT", "${m.content}").replace("    .slice(-20)\n", "")
    assert _codes(whole, "x.ts") == ["PL305"]


def test_ts_the_last_turns_sent_as_messages_are_still_a_window() -> None:
    sent = EXTRACT_TS.replace(
        '      { role: "user", content: conversationText },\n',
        "      ...messages.slice(-20),\n",
    )
    assert "PL303" in _codes(sent, "x.ts")


CLASSIFY_PY = """async def classify(llm, state):
    history_str = "\\n".join(
        f"{msg['role']}: TEXT" for msg in state.conversation_history[-5:]
    )
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER.format(q=state.query, history=history_str)},
    ]
    return await llm.complete(messages=messages)
"""


def test_py_excerpts_of_the_last_turns_are_no_side_request() -> None:
    assert "PL305" not in _codes(CLASSIFY_PY.replace("TEXT", "{msg['content'][:200]}"), "c.py")


def test_py_the_whole_turns_under_another_system_prompt_are_a_side_request() -> None:
    assert "PL305" in _codes(CLASSIFY_PY.replace("TEXT", "{msg['content']}"), "c.py")


FIELDS_TS = """export class Flow {
  NAME: any[] = [];
  prune(maxHistory: number) {
    while (this.NAME.length > maxHistory) {
      this.NAME.shift();
    }
  }
  remove(id: string) {
    this.NAME = this.NAME.filter((s: any) => s !== id && s.role !== "tool");
  }
}
"""


def test_ts_lists_of_ids_or_timestamps_are_no_history() -> None:
    assert _codes(FIELDS_TS.replace("NAME", "stateHistoryTimestamps"), "f.ts") == []
    assert _codes(FIELDS_TS.replace("NAME", "sessionIds"), "f.ts") == []


def test_ts_the_messages_themselves_are_a_history() -> None:
    assert _codes(FIELDS_TS.replace("NAME", "messages"), "f.ts") == ["PL303", "PL303"]


BUDGET_TS = """const estimate = (t: string) => t.length / 4;
export function fit(text: string, onTrace: (m: object) => void) {
  const tokens = estimateTokenCount(text);
  const NAME = { tokens, max: 1000 };
  onTrace({ NAME });
  return NAME;
}
"""


def test_ts_a_prompt_budget_is_a_number_not_a_prompt() -> None:
    assert _codes(BUDGET_TS.replace("NAME", "promptBudget"), "b.ts") == []


def test_ts_the_same_figures_in_a_system_prompt_are_reported() -> None:
    src = BUDGET_TS.replace("const NAME = { tokens, max: 1000 };", "const NAME = `Used ${tokens}`;")
    assert "PL106" in _codes(src.replace("NAME", "systemPrompt"), "b.ts")
