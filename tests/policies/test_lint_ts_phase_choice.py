"""TypeScript: a tool list or a system prompt chosen by the phase or stage of a flow
(`TOOLS[phase]`, `stage === "checkout" ? A : B`) changes within one conversation as the flow
moves on (PL302), as one chosen by a mode does; a fixed setting is silent. Synthetic code."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source

_TOOLS = """\
import OpenAI from "openai";
const client = new OpenAI();
export async function chat(history: any[], q: string) {
  const phase = detectPhase(history);
  const tools = TOOLS_BY_PHASE[phase];
  return client.chat.completions.create({
    model: "gpt-4o",
    tools,
    messages: [{ role: "system", content: SYSTEM }, ...history, { role: "user", content: q }],
  });
}
"""

_PROMPT = """\
import OpenAI from "openai";
const client = new OpenAI();
export async function chat(history: any[], stage: string) {
  const systemPrompt = stage === "checkout" ? CHECKOUT_PROMPT : BROWSE_PROMPT;
  return client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: systemPrompt }, ...history],
  });
}
"""


def _pl302(text: str) -> list[int]:
    return [f.line for f in lint_source(text, "chat.ts") if f.code == "PL302"]


def test_tools_chosen_by_the_flows_phase() -> None:
    assert _pl302(_TOOLS) == [5]


def test_tools_chosen_by_something_else_are_silent() -> None:
    assert (
        _pl302(_TOOLS.replace("[phase]", "[region]").replace("const phase", "const region")) == []
    )


def test_a_system_prompt_chosen_by_the_stage() -> None:
    assert _pl302(_PROMPT) == [4]


def test_a_fixed_stage_setting_is_silent() -> None:
    fixed = _PROMPT.replace('stage === "checkout"', "config.isCheckout").replace(
        "stage: string", "config: { isCheckout: boolean }"
    )
    assert _pl302(fixed) == []
