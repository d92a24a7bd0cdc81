"""TypeScript: a tool list picked by a search over the current message, with the search under a
`.map` (`(await toolIndex.search(userMessage, 5)).map((r) => r.tool)`), is chosen per request
(PL302), as a direct `selectTools(userMessage)` is; a search over a fixed query is silent.
Synthetic code."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source

_SEARCHED = """\
import OpenAI from "openai";
const client = new OpenAI();
export async function chat(history: any[], userMessage: string) {
  const tools = (await toolIndex.search(userMessage, 5)).map((r) => r.tool);
  return client.chat.completions.create({
    model: "gpt-4o",
    tools,
    messages: [{ role: "system", content: SYSTEM }, ...history],
  });
}
"""


def _pl302(text: str) -> list[int]:
    return [f.line for f in lint_source(text, "chat.ts") if f.code == "PL302"]


def test_tools_from_a_search_over_the_current_message_under_a_map() -> None:
    assert _pl302(_SEARCHED) == [4]


def test_tools_from_a_search_over_a_fixed_query_are_silent() -> None:
    assert _pl302(_SEARCHED.replace("search(userMessage, 5)", 'search("core", 5)')) == []
