"""TypeScript history windows written in other ways than `slice(-n)`: the oldest message
dropped once a cap is passed, messages kept by index, the newest first cut and turned back,
lodash's `takeRight`, a helper named for the recent messages handed a count, and a copy of the
history cut while over a token budget. Synthetic code; each shape has a twin that must stay
silent (a queue drained to empty, a log capped, the latest message alone)."""

from __future__ import annotations

import pytest

from prefixlock.policies.engine import lint_source

_HEAD = """\
import OpenAI from "openai";
const client = new OpenAI();
const MAX_HISTORY = 20;
export async function chat(history: any[], userMessage: string, logs: string[]) {
"""
_TAIL = """\
  const res = await client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: SYSTEM_PROMPT }, ...recent],
  });
  return res;
}
"""


def _windows(body: str) -> list[int]:
    text = _HEAD + body + _TAIL
    return [f.line for f in lint_source(text, "chat.ts") if f.code == "PL303"]


@pytest.mark.parametrize(
    ("window", "twin"),
    [
        (  # the oldest message dropped once over a cap, not a log capped
            "  if (history.length > MAX_HISTORY) history.shift();\n  const recent = history;\n",
            "  if (logs.length > MAX_HISTORY) logs.shift();\n  const recent = history;\n",
        ),
        (  # the oldest pair spliced off over a cap, not a system message taken out
            "  if (history.length >= MAX_HISTORY) { history.splice(0, 2); }\n"
            "  const recent = history;\n",
            "  if (history.length > 0 && history[0].role === 'system') history.splice(0, 1);\n"
            "  const recent = history;\n",
        ),
        (  # the oldest pair after the system message spliced off over a setting's pairs,
            # not a message put in at index 1
            "  if (history.length > (process.env.HISTORY_LENGTH * 2) + 1) history.splice(1, 2);\n"
            "  const recent = history;\n",
            "  if (history.length > (process.env.HISTORY_LENGTH * 2) + 1) "
            "history.splice(1, 0, note);\n"
            "  const recent = history;\n",
        ),
        (  # the oldest after the system message cut to a length setting, not to another list's
            "  if (history.length > HISTORY_LENGTH) "
            "history.splice(1, history.length - HISTORY_LENGTH);\n"
            "  const recent = history;\n",
            "  if (history.length > logs.length) history.splice(1, history.length - logs.length);\n"
            "  const recent = history;\n",
        ),
        (  # kept by index from the length less a cap, not a filter by role
            "  const recent = history.filter((_, i) => i >= history.length - MAX_HISTORY);\n",
            "  const recent = history.filter((m, i) => m.role !== 'tool' || i > 0);\n",
        ),
        (  # the newest n, not the latest one
            "  const recent = [...history].reverse().slice(0, MAX_HISTORY).reverse();\n",
            "  const recent = [...history].reverse().slice(0, 1);\n",
        ),
        (  # lodash's last n, not the last one
            "  const recent = takeRight(history, 12);\n",
            "  const recent = takeRight(history, 1);\n",
        ),
        (  # a helper for the recent messages handed a count, not the latest message
            "  const recent = await getRecentMessages(history, 10);\n",
            "  const recent = await getRecentMessages(history, 1);\n",
        ),
        (  # a copy of the history cut while over a token budget, not a queue drained
            "  const recent = [...history];\n"
            "  while (countTokens(recent) > maxTokens) recent.shift();\n",
            "  const recent = [...history];\n"
            "  while (recent.length > 0) console.log(recent.shift());\n",
        ),
    ],
)
def test_a_window_is_reported_and_its_twin_is_silent(window: str, twin: str) -> None:
    assert _windows(window), window
    assert _windows(twin) == [], twin


def test_the_drop_in_the_other_branch_is_silent() -> None:
    body = (
        "  if (history.length > MAX_HISTORY) { console.warn('long'); } else { history.shift(); }\n"
        "  const recent = history;\n"
    )
    assert _windows(body) == []


_FILL = """\
export async function history(db: any, chatId: string, system: string, question: string) {
  const rows = await db.rows(chatId);
  let budget = 3500;
  const out: any[] = [{ role: "user", content: question }];
  for (const row of rows) {
    if (budget - row.tokens < 0) break;
    budget -= row.tokens;
    out.push({ role: row.role, content: row.text });
  }
  out.push({ role: "system", content: system });
  return out.reverse();
}
"""


def test_rows_filled_newest_first_while_a_budget_lasts_are_a_window() -> None:
    found = [f.line for f in lint_source(_FILL, "db.ts") if f.code == "PL303"]
    assert found == [6]


@pytest.mark.parametrize(
    "twin",
    [
        _FILL.replace("return out.reverse();", "return out;"),  # walked oldest first
        _FILL.replace("budget - row.tokens < 0", "row.hidden"),  # no budget
        _FILL.replace("out.push({ role: row.role, content: row.text });", "out.push(row.id);"),
    ],
)
def test_a_fill_kept_in_order_without_a_budget_or_of_no_messages_is_silent(twin: str) -> None:
    assert [f.line for f in lint_source(twin, "db.ts") if f.code == "PL303"] == []
