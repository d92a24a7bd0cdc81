"""TypeScript: a template whose slots are filled by a `.replace` callback (`text.replace(VARS,
(m, v) => v === "datetime" ? new Date().toISOString() : m)`) carries what the callback returns,
written straight into a system prompt or returned by a helper that renders it. Synthetic code;
the twins fill the slot with fixed text."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source

_INLINE = """\
const TEMPLATE = "You are helpful. Now: {{date}}";
export async function chat(history: any[]) {
  const systemPrompt = TEMPLATE.replace(/\\{\\{(\\w+)\\}\\}/g, (m, v) =>
    v === "date" ? new Date().toISOString() : m,
  );
  return client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: systemPrompt }, ...history],
  });
}
"""

_HELPER = """\
const VARS = /\\{\\{(datetime|skills)\\}\\}/gi;
function resolveVariables(content: string): string {
  return content.replace(VARS, (match: string, variable: string) => {
    switch (variable.toLowerCase()) {
      case "datetime":
        return new Date().toISOString();
      default:
        return match;
    }
  });
}
export async function chat(history: any[], template: string) {
  const systemPrompt = resolveVariables(template);
  return client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: systemPrompt }, ...history],
  });
}
"""


def _volatile(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, "chat.ts") if f.code.startswith("PL1")]


def test_a_clock_returned_by_a_replace_callback_reaches_the_system_prompt() -> None:
    assert _volatile(_INLINE) == [(4, "PL101")]


def test_a_fixed_text_returned_by_the_callback_is_silent() -> None:
    assert _volatile(_INLINE.replace("new Date().toISOString()", '"today"')) == []


def test_a_helper_that_fills_slots_from_the_clock_is_followed() -> None:
    assert _volatile(_HELPER) == [(13, "PL101")]


def test_a_helper_that_fills_slots_with_fixed_text_is_silent() -> None:
    assert _volatile(_HELPER.replace("new Date().toISOString()", '"2024-01-01"')) == []
