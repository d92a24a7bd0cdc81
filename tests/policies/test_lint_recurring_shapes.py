"""Shapes that recur across the development corpora's projects (each seen in two or more, or
named by the corpora's review as a class): every case is a minimal, real-shaped example and
its negative twin, so each rule is checked both ways."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source
from prefixlock.policies.findings import Finding


def _lint(text: str, path: str) -> list[Finding]:
    return lint_source(text, path, model="claude-sonnet-4-6")


def _codes(text: str, path: str) -> set[str]:
    return {f.code for f in _lint(text, path)}


# --- a prompt chosen by mode in a one-off request (PL302) ----------------------------------

MODE_TS = """const OpenAI = require("openai");
const openai = new OpenAI();

function buildSystemPrompt(userContext, mode = "homework") {
  let role = "";
  switch (mode) {
    case "quiz": role = "You are a quiz master."; break;
    default: role = "You are a homework helper.";
  }
  return `${role}\\nBe encouraging.`;
}

async function analyzeDocument(text, userContext, mode, history) {
  const systemPrompt = buildSystemPrompt(userContext, mode);
  const completion = await openai.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: systemPrompt },
      HISTORY
      { role: "user", content: `Document:\\n${text}` },
    ],
  });
  return completion.choices[0].message.content;
}
"""


def _pl302_lines(text: str, path: str) -> set[int]:
    return {f.line for f in _lint(text, path) if f.code == "PL302"}


def test_ts_a_prompt_chosen_by_mode_for_a_one_off_request_is_no_breaker() -> None:
    # The switch inside the builder is still a prompt chosen per case (reported there);
    # what is quiet is the call site whose request has no history.
    lines = _pl302_lines(MODE_TS.replace("HISTORY", ""), "svc.js")
    assert 14 not in lines


def test_ts_a_prompt_chosen_by_mode_before_a_history_is_reported() -> None:
    assert 14 in _pl302_lines(MODE_TS.replace("HISTORY", "...history,"), "svc.js")


MODE_PY = """import anthropic

client = anthropic.Anthropic()
PROMPTS = {"quiz": "You are a quiz master.", "help": "You are a homework helper."}


def analyze(text, mode, history):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=500,
        system=PROMPTS[mode] + " Be encouraging and keep answers short.",
        messages=MESSAGES,
    )
"""


def test_py_a_prompt_chosen_by_mode_for_a_one_off_request_is_no_breaker() -> None:
    one_off = MODE_PY.replace("MESSAGES", '[{"role": "user", "content": text}]')
    assert "PL302" not in _codes(one_off, "svc.py")


def test_py_a_prompt_chosen_by_mode_before_a_history_is_reported() -> None:
    assert "PL302" in _codes(MODE_PY.replace("MESSAGES", "history"), "svc.py")


# --- no breakpoint on a one-off classifier (PL406) -----------------------------------------

CLASSIFIER_PY = (
    """import anthropic

client = anthropic.Anthropic()
SYSTEM = \"\"\""""
    + "Classify the text as a prompt injection or as safe. " * 400
    + """\"\"\"


def classify(text, history):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=10,
        system=SYSTEM,
        messages=MESSAGES,
    )
"""
)


def test_py_a_one_off_classifier_without_cache_control_is_not_reported() -> None:
    one_off = CLASSIFIER_PY.replace("MESSAGES", '[{"role": "user", "content": text}]')
    assert "PL406" not in _codes(one_off, "validator.py")


def test_py_a_conversation_without_cache_control_is_reported() -> None:
    turns = (
        '[{"role": "user", "content": first}, {"role": "assistant", "content": reply}, '
        '{"role": "user", "content": text}]'
    )
    text = CLASSIFIER_PY.replace("MESSAGES", turns).replace("(text, history)", "(first, reply, text)")
    assert "PL406" in _codes(text, "validator.py")


# --- the current time carried in a context object (PL101) ----------------------------------

CONTEXT_TS = """function buildSystemPrompt(userContext) {
  const { tasks = [], FIELD } = userContext;
  let prompt = "You are a study planner.\\n";
  if (FIELD) {
    prompt += `Now: ${FIELD}\\n`;
  }
  return prompt;
}

export function buildChatPrompt(params: { currentDateTime: string; timezone: string }) {
  return `You are a calendar assistant. Current: ${params.MEMBER}, TZ: ${params.timezone}.`;
}
"""


def test_ts_the_current_time_in_a_handed_in_context_is_a_clock() -> None:
    text = CONTEXT_TS.replace("FIELD", "currentTime").replace("MEMBER", "currentDateTime")
    lines = {f.line for f in _lint(text, "prompt.ts") if f.code == "PL101"}
    assert lines == {5, 11}


def test_ts_a_records_time_field_in_a_handed_in_context_is_not() -> None:
    # `businessHours`, `dueDate`: what the record holds, not the present moment.
    text = CONTEXT_TS.replace("FIELD", "businessHours").replace("MEMBER", "dueDate")
    assert not _codes(text, "prompt.ts") & {"PL101", "PL102"}


def test_ts_a_field_read_in_a_callback_over_a_list_is_the_items() -> None:
    text = """function buildSystemPrompt(ctx) {
  return `Tasks:\\n${ctx.tasks.map((t) => t.currentTime).join("\\n")}`;
}
"""
    assert "PL101" not in _codes(text, "prompt.ts")
