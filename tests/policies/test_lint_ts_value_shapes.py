"""TypeScript shapes where the rules follow a value to decide whether it changes per request:
a `...Context` made only of constants, a request body's settings, the date of a record. Each
case is a minimal, real-shaped example beside its twin that is reported."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source
from prefixlock.policies.findings import Finding


def _lint(text: str, path: str = "route.ts") -> list[Finding]:
    return lint_source(text, path, model="claude-sonnet-4-6")


def _lines(text: str, code: str) -> set[int]:
    return {f.line for f in _lint(text) if f.code == code}


# --- a `...Context` built only of the module's constants and imports (PL304) ---------------

CONTEXT_TS = """import Anthropic from "@anthropic-ai/sdk";
import categories from "./categories.json";

const anthropic = new Anthropic();

export async function POST(req: Request, extra: string) {
  const { messages } = await req.json();
  const USE_CATEGORIES = true;
  const categoryList = categories.items.map((c) => c.id).join(", ");
  const categoriesContext = USE_CATEGORIES ? `Categories: ${SOURCE}` : "";
  const systemPrompt = `You are a support assistant.
  ${categoriesContext}`;
  const response = await anthropic.messages.create({
    model: "claude-sonnet-4-6",
    max_tokens: 1000,
    system: systemPrompt,
    messages,
  });
  return Response.json(response);
}
"""


def test_ts_a_context_made_of_constants_is_the_same_each_request() -> None:
    assert 12 not in _lines(CONTEXT_TS.replace("SOURCE", "categoryList"), "PL304")


def test_ts_a_context_made_of_a_parameter_is_reported() -> None:
    assert 12 in _lines(CONTEXT_TS.replace("SOURCE", "extra"), "PL304")


# --- a field of the request body that the client sets alike for a conversation (PL304) ------

BODY_TS = """import OpenAI from "openai";

const openai = new OpenAI();

export async function POST(req: Request) {
  const body = await req.json();
  const { messages, FIELD } = body;
  let systemPrompt = "You are an IELTS writing coach.";
  if (FIELD) {
    systemPrompt += `\\n**Task:** ${FIELD}`;
  }
  const completion = await openai.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: systemPrompt }, ...messages],
  });
  return Response.json(completion);
}
"""


def test_ts_a_body_setting_is_no_per_request_content() -> None:
    for field in ("taskType", "language", "locale"):
        assert 10 not in _lines(BODY_TS.replace("FIELD", field), "PL304"), field


def test_ts_a_body_field_of_retrieved_content_is_reported() -> None:
    assert 10 in _lines(BODY_TS.replace("FIELD", "searchResults"), "PL304")


# --- the date of a record, read by its name (PL102) -----------------------------------------

DATE_TS = """import OpenAI from "openai";
import { z } from "zod";

const Schema = z.object({
  message: z.string(),
  trip: z.object({ FIELD: z.string().optional() }).optional(),
  history: z.array(z.object({ role: z.string(), content: z.string() })),
});

export async function POST(req: Request) {
  const openai = new OpenAI();
  const body = await req.json();
  const data = Schema.parse(body);
  let systemPrompt = "You are a travel assistant.";
  if (data.trip) {
    const trip = data.trip;
    systemPrompt += `\\nTrip: ${trip.FIELD ? `until ${trip.FIELD}` : "not set"}`;
  }
  const messages = [{ role: "system", content: systemPrompt }, ...data.history];
  messages.push({ role: "user", content: data.message });
  const completion = await openai.chat.completions.create({ model: "gpt-4o", messages });
  return Response.json(completion);
}
"""


def test_ts_the_date_of_a_record_is_no_clock_read() -> None:
    for field in ("startDate", "endDate", "dueDate"):
        assert 17 not in _lines(DATE_TS.replace("FIELD", field), "PL102"), field


def test_ts_a_current_date_read_by_its_name_is_reported() -> None:
    assert 17 in _lines(DATE_TS.replace("FIELD", "currentDate"), "PL102")


# --- a prompt and tools picked per request by a call named for picking (PL302) --------------

PICKED_TS = """import { runAgentLoop } from "./loop";

const SUB_AGENT_TOOLS = { plan: [planTool], flight: [flightTool] };
PICK_AT_START
export async function chat(req: Request, history: Message[], tracker: Tracker) {
  PICK_PER_REQUEST
  const allowedTools = SUB_AGENT_TOOLS[subAgentType];
  let systemPromptOverride: string | undefined;
  switch (subAgentType) {
    case "plan":
      systemPromptOverride = buildPlanAgentPrompt(tracker);
      break;
    default:
      systemPromptOverride = buildFlightAgentPrompt(tracker);
  }
  return runAgentLoop(history, systemPromptOverride, allowedTools);
}
"""

_PICK = "const subAgentType = selectSubAgent(position, tracker);"


def test_ts_a_sub_agent_selected_per_request_picks_the_prompt_and_tools() -> None:
    text = PICKED_TS.replace("PICK_AT_START", "").replace(
        "PICK_PER_REQUEST", _PICK.replace("position", "req.position")
    )
    assert {7, 11} <= _lines(text, "PL302")


def test_ts_a_sub_agent_selected_once_at_start_is_no_per_request_choice() -> None:
    text = PICKED_TS.replace("PICK_AT_START", _PICK.replace("tracker", "DEFAULTS")).replace(
        "PICK_PER_REQUEST", ""
    )
    assert not _lines(text, "PL302")


# --- a value read once for a run that owns its conversation (PL1xx) -------------------------

RUN_TS = """export async function runAgent(provider: Provider, task: string, HISTORY_PARAM) {
  START
  const frozen = `Today is ${new Date().toDateString()}.`;
  for (let turn = 1; turn <= 20; turn++) {
    const system = `You are a coding agent.\\n${READ}`;
    const reply = await provider.runTurn({ systemPrompt: system, messages });
    messages.push({ role: "assistant", content: reply.text });
    if (!reply.toolCalls.length) break;
  }
  return messages;
}
"""


def _run(start: str, read: str, param: str = "extra: string") -> str:
    return RUN_TS.replace("START", start).replace("READ", read).replace("HISTORY_PARAM", param)


_FRESH = 'const messages = [{ role: "user", content: task }];'


def test_ts_a_date_read_before_the_loop_of_a_run_that_starts_its_conversation_is_kept() -> None:
    assert not _lines(_run(_FRESH, "${frozen}"), "PL102")


def test_ts_a_date_read_inside_the_loop_is_reported() -> None:
    assert 5 in _lines(_run(_FRESH, "Today is ${new Date().toDateString()}."), "PL102")


def test_ts_a_date_read_before_the_loop_of_a_handed_in_history_is_reported() -> None:
    # The function goes on with a conversation it was handed: a later call, on another day,
    # sends the same history under another date.
    assert _lines(_run("", "${frozen}", "messages: Message[]"), "PL102")


# --- the working directory in the system message of a conversation the process starts -------

CWD_TS = """export class MessageManager {
  private messages: Message[] = [];

  reset(): void {
    this.messages = [
      {
        role: "system",
        content: getSystemPrompt(process.cwd(), this.tools),
      },
      RESTORED
    ];
  }
}
"""


def test_ts_the_working_directory_in_a_conversation_started_here_is_fixed() -> None:
    assert not _lines(CWD_TS.replace("RESTORED", ""), "PL105")


def test_ts_the_working_directory_ahead_of_a_restored_conversation_is_reported() -> None:
    assert 8 in _lines(CWD_TS.replace("RESTORED", "...saved,"), "PL105")


# --- each option of a prompt builder's call is an input of its own (PL304) -------------------

OPTIONS_TS = """import OpenAI from "openai";
const openai = new OpenAI();

export async function POST(req: Request) {
  const body = await req.json();
  const { clientId, format, history, message, SECOND } = body;
  const systemPrompt = await buildWriterSystemPrompt({
    clientId,
    format: format || "post",
    SECOND,
  });
  const completion = await openai.chat.completions.create({
    model: "gpt-4o",
    messages: [
      { role: "system", content: systemPrompt },
      ...history,
      { role: "user", content: message },
    ],
  });
  return Response.json(completion);
}
"""


def test_ts_two_request_fields_handed_to_a_prompt_builder_are_two_findings() -> None:
    assert {9, 10} <= _lines(OPTIONS_TS.replace("SECOND", "additionalMaterial"), "PL304")


def test_ts_a_conversation_setting_beside_a_request_field_is_one_finding() -> None:
    assert _lines(OPTIONS_TS.replace("SECOND", "workspaceId"), "PL304") == {9}


# --- state in a system message, then the list's own messages put back after a cut (PL304) ---

STATE_TS = """export async function runTask(client, webContents, chatHistory, userMessage) {
  const messages = [];
  messages.push({ role: "system", content: SYSTEM_PROMPT });
  messages.push({ role: "user", content: userMessage });
  const currentUrl = webContents.getURL();
  messages.push({ role: "system", content: `Current page: ${currentUrl}` });
  AFTER
  for (let round = 0; round < 10; round++) {
    const reply = await client.chat.completions.create({ model: "gpt-4o", messages });
    messages.push(reply.choices[0].message);
  }
}
"""

_CUT = """if (messages.length > 40) {
    const keep = messages.slice(0, 2).concat(messages.slice(-30));
    messages.length = 0;
    messages.push(...keep);
  }"""


def test_ts_the_lists_own_messages_put_back_after_a_cut_are_no_history_after_state() -> None:
    assert 6 not in _lines(STATE_TS.replace("AFTER", _CUT), "PL304")


def test_ts_a_history_pushed_after_a_state_system_message_is_reported() -> None:
    assert 6 in _lines(STATE_TS.replace("AFTER", "messages.push(...chatHistory);"), "PL304")


# --- a translated UI string's slots are no prompt template (PL106) ---------------------------

UI_TS = """export function finish(goal: string, currentSteps: Step[], t: (k: string) => string) {
  const steps = [...currentSteps];
  const text = TEMPLATE.replace("{steps}", steps.length.toString()).replace("{goal}", goal);
  return text;
}
"""


def test_ts_a_translated_ui_string_filled_with_a_step_count_is_no_prompt() -> None:
    assert not _lines(UI_TS.replace("TEMPLATE", 't("taskCompletedDesc")'), "PL106")


def test_ts_a_prompt_template_filled_with_a_step_count_is_reported() -> None:
    assert 3 in _lines(UI_TS.replace("TEMPLATE", "PROMPT_TEMPLATE"), "PL106")


# --- a field named for what is measured about a system prompt (PL304) -----------------------

MEASURED_TS = """export async function calibrate(modelId: string, runs: number) {
  const results: ProbeResults[] = [];
  for (let i = 0; i < runs; i++) results.push(await runProbes(modelId));
  return {
    modelId,
    FIELD: majority(results.map((r) => r.verdict)),
  };
}
"""


def test_ts_a_verdict_about_the_system_prompt_is_no_prompt_text() -> None:
    for field in ("systemPromptAttention", "systemPromptVersion"):
        assert not _lines(MEASURED_TS.replace("FIELD", field), "PL304"), field


def test_ts_retrieved_results_in_a_system_prompt_field_are_reported() -> None:
    assert 6 in _lines(MEASURED_TS.replace("FIELD", "systemPrompt"), "PL304")
