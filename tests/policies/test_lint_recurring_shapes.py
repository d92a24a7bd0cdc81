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
    text = CLASSIFIER_PY.replace("MESSAGES", turns).replace(
        "(text, history)", "(first, reply, text)"
    )
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


# --- a window reported on the line that cuts (PL303) ---------------------------------------

WINDOW_TS = """export async function POST(req: Request) {
  const safeBody = await req.json();
  const recentHistory = safeBody.history
    .slice(CUT)
    .map((msg) => ({ role: msg.role, parts: [{ text: msg.content }] }));
  const chat = model.startChat({ history: [...recentHistory] });
  return chat.sendMessage(safeBody.message);
}
"""


def test_ts_a_window_spread_over_lines_is_reported_where_it_cuts() -> None:
    found = [f for f in _lint(WINDOW_TS.replace("CUT", "-10"), "route.ts") if f.code == "PL303"]
    assert [f.line for f in found] == [4]


def test_ts_the_same_chain_without_a_window_is_not_reported() -> None:
    assert "PL303" not in _codes(WINDOW_TS.replace("CUT", "0"), "route.ts")


# --- a Python request: the window or nothing, parts of a prompt, a mapped history ----------

ROUTE_PY = """import anthropic

client = anthropic.Anthropic()
SYSTEM_PROMPT = "You are a trading assistant."
MAX_HISTORY = 20


def ai_chat(body):
    sys_parts = [SYSTEM_PROMPT]
    if body.context:
        ctx_str = "\\n".join(f"{k}: {v}" for k, v in body.context.items())
        sys_parts.append(PART)
    system = "\\n\\n".join(sys_parts)
    history = body.history[WINDOW] if body.history else []
    messages = [{"role": m.role, "content": m.content} for m in history]
    messages.append({"role": "user", "content": body.message})
    return client.messages.create(model="m", max_tokens=1, system=system, messages=messages)
"""


def _route(part: str, window: str) -> list[Finding]:
    return _lint(ROUTE_PY.replace("PART", part).replace("WINDOW", window), "ai_router.py")


def test_py_a_window_or_nothing_is_a_window() -> None:
    assert [f.line for f in _route('"Be brief."', "-MAX_HISTORY:") if f.code == "PL303"] == [14]


def test_py_the_whole_history_or_nothing_is_no_window() -> None:
    assert not [f for f in _route('"Be brief."', ":") if f.code == "PL303"]


def test_py_a_request_field_appended_to_the_system_parts_is_per_request() -> None:
    # The view filters sent with this request (the same owner as its newest message) are
    # appended to the parts joined into the system prompt ahead of the mapped history.
    found = [f for f in _route('"Filters:\\n" + ctx_str', ":") if f.code == "PL304"]
    assert [f.line for f in found] == [13]


def test_py_a_fixed_part_appended_to_the_system_parts_is_not() -> None:
    assert not [f for f in _route('"Be brief."', ":") if f.code == "PL304"]


def test_py_a_fixed_role_comprehension_is_no_history() -> None:
    # `[{"role": "user", ...} for q in questions]`: new messages, no copy of a history, so
    # what the system prompt holds is sent once.
    text = ROUTE_PY.replace("PART", '"Filters:\\n" + ctx_str').replace("WINDOW", ":")
    text = text.replace('{"role": m.role, "content": m.content}', '{"role": "user", "content": m}')
    assert "PL304" not in _codes(text, "ai_router.py")


# --- a local function named for live state (PL106) -----------------------------------------

LIVE_PY = """import anthropic

client = anthropic.Anthropic()


def NAME():
    rows = db.execute("SELECT ticker, score FROM signals").fetchall()
    return "\\n".join(str(r) for r in rows)


def chat(history, text):
    system = "You are a trading assistant.\\n" + NAME()
    return client.messages.create(
        model="m", max_tokens=1, system=system,
        messages=history + [{"role": "user", "content": text}],
    )
"""


def test_py_a_local_function_named_for_live_state_is_runtime_state() -> None:
    assert "PL106" in _codes(LIVE_PY.replace("NAME", "_live_data_summary"), "router.py")


def test_py_a_local_function_named_for_fixed_text_is_not() -> None:
    assert "PL106" not in _codes(LIVE_PY.replace("NAME", "_signal_guide"), "router.py")


# --- a store's retention cap (PL303) --------------------------------------------------------

STORE_TS = """const MAX_MESSAGES = 200;

export function loadConversation(raw: string) {
  const value = JSON.parse(raw);
  const messages = value.messages.slice(-MAX_MESSAGES);
  window.localStorage.setItem("conversation", JSON.stringify({ ...value, messages }));
  return { id: value.id, messages };
}
SENDS
"""

SENDS_TS = """
export async function ask(conversation: any) {
  return openai.chat.completions.create({ model: "gpt-4o", messages: conversation.messages });
}
"""


def test_ts_a_stores_retention_cap_is_no_window() -> None:
    assert "PL303" not in _codes(STORE_TS.replace("SENDS", ""), "conversationStorage.ts")


def test_ts_a_cap_in_a_file_that_also_asks_a_model_is_a_window() -> None:
    assert "PL303" in _codes(STORE_TS.replace("SENDS", SENDS_TS), "conversationStorage.ts")


def test_ts_a_cap_in_a_file_neither_storing_nor_named_for_a_store_is_a_window() -> None:
    text = STORE_TS.replace("SENDS", "").replace(
        '  window.localStorage.setItem("conversation", JSON.stringify({ ...value, messages }));\n',
        "",
    )
    assert "PL303" in _codes(text, "conversation.ts")


# --- the caller's own system prompt, passed in beside the message (PL304) ------------------

OPTS_TS = """const SYSTEM_PROMPT = "You are a trading terminal's agent.";

async function runLoop(opts: AgentRunOpts): Promise<void> {
  const systemPrompt = VALUE;
  const messages: Message[] = [
    ...(opts.history ?? []),
    { role: "user", content: opts.userMessage },
  ];
  for (let i = 0; i < 8; i++) {
    const response = await callLLM(opts.llmEnv, { system: systemPrompt, messages, tools });
    messages.push({ role: "assistant", content: response.content });
  }
}
"""


def test_ts_the_callers_system_prompt_is_not_the_request() -> None:
    text = OPTS_TS.replace("VALUE", "opts.systemPrompt ?? SYSTEM_PROMPT")
    assert "PL304" not in _codes(text, "agent.ts")


def test_ts_the_callers_message_in_the_system_prompt_is_the_request() -> None:
    text = OPTS_TS.replace("VALUE", "`${SYSTEM_PROMPT}\\nTask: ${opts.userMessage}`")
    assert "PL304" in _codes(text, "agent.ts")


OPTS_PY = """SYSTEM_PROMPT = "You are a trading terminal's agent."


def run_loop(client, opts):
    system = VALUE
    messages = [*opts.history, {"role": "user", "content": opts.user_message}]
    while True:
        reply = client.messages.create(model="m", max_tokens=9, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
"""


def test_py_the_callers_system_prompt_is_not_the_request() -> None:
    text = OPTS_PY.replace("VALUE", "opts.system_prompt or SYSTEM_PROMPT")
    assert "PL304" not in _codes(text, "agent.py")


def test_py_the_callers_message_in_the_system_prompt_is_the_request() -> None:
    text = OPTS_PY.replace("VALUE", 'SYSTEM_PROMPT + f"Task: {opts.user_message}"')
    assert "PL304" in _codes(text, "agent.py")


# --- what the history's first message makes, and the options beside the history (PL304) ---

SIDE_TS = """export async function sideQuery(opts: SideQueryOptions) {
  const { model, system, messages, skipPrefix = true } = opts;
  const client = await getClient();
  const header = fingerprint(HEADER);
  const systemBlocks = [
    { type: "text", text: header },
    ...(skipPrefix ? [] : [{ type: "text", text: CLI_PREFIX }]),
    { type: "text", text: system },
  ];
  return client.beta.messages.create({ model, system: systemBlocks, messages });
}
"""


def test_ts_a_fingerprint_of_the_first_message_is_the_same_every_turn() -> None:
    text = SIDE_TS.replace("fingerprint(HEADER)", "extractFirstUserMessageText(messages)")
    assert "PL304" not in _codes(text, "sideQuery.ts")


def test_ts_a_fingerprint_of_the_last_message_changes_every_turn() -> None:
    text = SIDE_TS.replace("fingerprint(HEADER)", "extractLastUserMessageText(messages)")
    assert "PL304" in _codes(text, "sideQuery.ts")


def test_ts_an_option_destructured_beside_the_history_is_not_made_from_it() -> None:
    assert "PL304" not in _codes(SIDE_TS.replace("HEADER", '"x-app: cli"'), "sideQuery.ts")


FIRST_PY = """def side_query(client, messages, system):
    text = HEADER
    header = fingerprint(text)
    return client.messages.create(
        model="m", max_tokens=9, system=[header, system], messages=messages
    )
"""


def test_py_a_fingerprint_of_the_first_message_is_the_same_every_turn() -> None:
    text = FIRST_PY.replace("HEADER", "first_user_message_text(messages)")
    assert "PL304" not in _codes(text, "side.py")


def test_py_a_fingerprint_of_the_last_message_changes_every_turn() -> None:
    text = FIRST_PY.replace("HEADER", "last_user_message_text(messages)")
    assert "PL304" in _codes(text, "side.py")


# --- a compaction request that leaves out the system prompt and tools (PL305) --------------

COMPACT_TS = """export class BaseProvider {
  async stream(options: StreamOptions) {
    const FLAG =
      options.messages[options.messages.length - 1]?.metadata?.FLAG;
    return streamText({
      model: this.getModel(options.modelId),
      messages: await this.convertToModelMessages(options.messages),
      system: FLAG ? undefined : options.systemPrompt,
      tools: FLAG ? undefined : options.tools,
    });
  }
}
"""


def test_ts_a_compaction_request_without_the_sessions_prefix_is_a_side_request() -> None:
    found = [f for f in _lint(COMPACT_TS.replace("FLAG", "isCompactPrompt"), "p.ts")]
    assert [f.line for f in found if f.code == "PL305"] == [8]


def test_ts_a_prefix_left_out_for_another_flag_is_not() -> None:
    assert "PL305" not in _codes(COMPACT_TS.replace("FLAG", "isGuest"), "p.ts")


COMPACT_PY = """def stream(client, messages, system, tools):
    FLAG = messages[-1].get("flag")
    return client.messages.create(
        model="m", max_tokens=9, messages=messages,
        system=None if FLAG else system,
        tools=[] if FLAG else tools,
    )
"""


def test_py_a_compaction_request_without_the_sessions_prefix_is_a_side_request() -> None:
    assert "PL305" in _codes(COMPACT_PY.replace("FLAG", "is_compact"), "p.py")


def test_py_a_prefix_left_out_for_another_flag_is_not() -> None:
    assert "PL305" not in _codes(COMPACT_PY.replace("FLAG", "is_guest"), "p.py")


# --- a loader of this file handed a count for its cap parameter (PL303) --------------------

LOADER_JS = """function getConversationMessages(conversationId, PARAM = 20) {
  const rows = db.prepare(
    "SELECT role, content FROM ai_messages WHERE conversation_id = ? " +
      "ORDER BY created_at DESC LIMIT ?"
  ).all(conversationId, PARAM);
  return rows.reverse();
}

async function reply(conversationId, userMessage) {
  const history = getConversationMessages(conversationId, 20);
  const chatMessages = history.map((m) => ({ role: m.role, content: m.content }));
  chatMessages.push({ role: "user", content: userMessage });
  return openaiProvider.sendToOpenAI(chatMessages);
}
"""


def test_js_a_count_handed_to_a_loaders_cap_parameter_is_a_window() -> None:
    found = [f for f in _lint(LOADER_JS.replace("PARAM", "limit"), "agent.js")]
    assert [f.line for f in found if f.code == "PL303"] == [10]


def test_js_a_loader_declared_below_its_caller_is_read_too() -> None:
    # The file's declarations are gathered once, whichever comes first (a function
    # declaration is hoisted); the caller's count still meets the cap parameter.
    loader, caller = LOADER_JS.replace("PARAM", "limit").split("\n\n")
    found = _lint(caller + "\n\n" + loader, "agent.js")
    assert [f.line for f in found if f.code == "PL303"] == [2]


def test_js_a_count_handed_to_another_parameter_is_not() -> None:
    assert "PL303" not in _codes(LOADER_JS.replace("PARAM", "page"), "agent.js")


def test_ts_a_file_named_for_storage_that_asks_no_model_reports_no_window() -> None:
    text = STORE_TS.replace("SENDS", "").replace(
        '  window.localStorage.setItem("conversation", JSON.stringify({ ...value, messages }));\n',
        "",
    )
    assert "PL303" not in _codes(text, "copilotStorage.ts")


# --- what was retrieved for a one-off request (PL304) ---------------------------------------

RETRIEVED_TS = """export async function classify(text: string, history: any[]) {
  const combinedContext = await searchDocs(text);
  return openai.chat.completions.create({
    model: "gpt-4o",
    messages: [
      { role: "system", content: `Sort the request.\\n${combinedContext}` },
      HISTORY
      { role: "user", content: text },
    ],
  });
}
"""


def test_ts_what_was_retrieved_for_a_one_off_request_is_its_own_input() -> None:
    assert "PL304" not in _codes(RETRIEVED_TS.replace("HISTORY", ""), "classify.ts")


def test_ts_what_was_retrieved_ahead_of_a_history_is_reported() -> None:
    assert "PL304" in _codes(RETRIEVED_TS.replace("HISTORY", "...history,"), "chat.ts")


# --- a parameter's taint kept on an attribute is that method's, not another's (PL304) -------

METHODS_PY = """class ChatApp:
    def remember(self, user_input):
        self.state["last"] = user_input

    def on_submit(self, user_input):
        self.process(user_input)

    def process(self, user_input):
        system_context = build_context(self.state.get("repo"))
        messages = [{"role": "system", "content": SYSTEM}]
        messages += self.history
        messages.append({"role": "user", "content": user_input})
        return self.client.chat.completions.create(model="m", messages=messages)
"""


def test_py_another_methods_parameter_on_an_attribute_is_not_this_request() -> None:
    text = METHODS_PY.replace("SYSTEM", "system_context")
    assert "PL304" not in _codes(text, "chat_tui.py")


def test_py_this_methods_parameter_in_the_system_message_is_the_request() -> None:
    text = METHODS_PY.replace("SYSTEM", 'system_context + f"Task: {user_input}"')
    assert "PL304" in _codes(text, "chat_tui.py")


# --- system messages spread at the head of a converted history (PL304) ----------------------

SPREAD_TS = """export async function handleChat(parsed: ParsedChat) {
  const { messages: history, projectId } = parsed.data;
  const project = await loadProject(projectId);
  const processedMessages = assembleModelMessages(history);
  const lastUserMessage = history.filter((m) => m.role === "user").pop();
  const attachmentUrls = (lastUserMessage?.attachments ?? []).map((a) => a.url);
  const systemMessages = buildSystemPrompt(project.prompt, EXTRA);
  const finalMessages = [...systemMessages, ...processedMessages];
  return streamText({ model, messages: finalMessages });
}
"""


def test_ts_the_newest_messages_attachments_in_spread_system_messages_are_per_request() -> None:
    assert "PL304" in _codes(SPREAD_TS.replace("EXTRA", "attachmentUrls"), "route.ts")


def test_ts_the_projects_prompt_in_spread_system_messages_is_not() -> None:
    assert "PL304" not in _codes(SPREAD_TS.replace("EXTRA", "project.rules"), "route.ts")


# --- a system prompt template whose slots are filled in another module (PL101, PL102) -------

TEMPLATE_PY = '''NAME = """You are a research supervisor.
Today's date is {date}. Plan with the brief in the conversation.
Respond as JSON: {{"date": "YYYY-MM-DD", "tasks": []}}
"""
'''


def test_py_a_date_slot_in_a_system_prompt_template_is_reported_at_the_slot() -> None:
    found = _lint(TEMPLATE_PY.replace("NAME", "LEAD_RESEARCHER_SYSTEM_PROMPT"), "prompts.py")
    assert [(f.line, f.code) for f in found] == [(2, "PL102")]


def test_py_the_same_slot_in_a_user_prompt_template_is_not() -> None:
    assert not _lint(TEMPLATE_PY.replace("NAME", "RESEARCH_USER_PROMPT"), "prompts.py")


def test_py_a_template_filled_in_its_own_module_is_followed_where_it_is_filled() -> None:
    text = TEMPLATE_PY.replace("NAME", "LEAD_SYSTEM_PROMPT") + (
        "\n\ndef run(client, history):\n"
        "    system = LEAD_SYSTEM_PROMPT.format(date='2026-01-01')\n"
        "    return client.messages.create(model='m', max_tokens=9, system=system, "
        "messages=history)\n"
    )
    # Reported where it is filled (by the argument's name), not again at the slot.
    assert 2 not in {f.line for f in _lint(text, "prompts.py")}


def test_py_a_side_tasks_system_prompt_template_is_not() -> None:
    # Sent once per piece of work (a researcher's notes compressed once), no loop sharing it.
    assert not _lint(TEMPLATE_PY.replace("NAME", "COMPRESS_RESEARCH_SYSTEM_PROMPT"), "prompts.py")


# --- windows kept by a helper, and windows written back to the store (PL303) ----------------

LIMIT_TS = """function limitLast<T>(items: T[], limit: number | undefined): T[] {
  if (!Number.isFinite(limit) || (limit as number) < 1) return items;
  return items.slice(Math.max(0, items.length - (limit as number)));
}

export function buildPromptContext(options: Options) {
  const settings = options.settings || {};
  const kept = limitLast(ARG);
  return { systemPrompt: assembleSystemPrompt(options.instructions), kept };
}
"""


def test_ts_a_helper_keeping_the_last_of_the_transcript_to_a_cap_is_a_window() -> None:
    text = LIMIT_TS.replace(
        "ARG", "options.transcript || [], settings.prompts?.maxTranscriptMessages"
    )
    assert 8 in {f.line for f in _lint(text, "context.ts") if f.code == "PL303"}


def test_ts_the_same_helper_over_memories_is_not() -> None:
    text = LIMIT_TS.replace("ARG", "options.memories || [], settings.memory?.maxItems")
    assert 8 not in {f.line for f in _lint(text, "context.ts") if f.code == "PL303"}


SAVE_PY = """import json

MAX_HISTORY = 10


async def _save_history(redis, sender_id, history):
    trimmed = WINDOW
    await redis.set(f"chat:{sender_id}", json.dumps(trimmed), ex=86400)


async def handle(client, redis, sender_id, text, history):
    messages = [{"role": "system", "content": "You help."}, *history]
    messages.append({"role": "user", "content": text})
    reply = await client.chat.completions.create(model="m", messages=messages)
    await _save_history(redis, sender_id, [*history, {"role": "user", "content": text}])
    return reply
"""


def test_py_a_window_written_back_to_the_store_is_a_window() -> None:
    text = SAVE_PY.replace("WINDOW", "history[-(MAX_HISTORY * 2):]")
    assert [f.line for f in _lint(text, "orchestrator.py") if f.code == "PL303"] == [7]


def test_py_the_whole_history_written_back_is_not() -> None:
    assert "PL303" not in _codes(SAVE_PY.replace("WINDOW", "list(history)"), "orchestrator.py")


def test_py_a_window_only_logged_is_not() -> None:
    text = SAVE_PY.replace("WINDOW", "history[-(MAX_HISTORY * 2):]").replace(
        'await redis.set(f"chat:{sender_id}", json.dumps(trimmed), ex=86400)',
        "print(json.dumps(trimmed))",
    )
    assert "PL303" not in _codes(text, "orchestrator.py")


# --- the prompt or tools picked by an option sent with each request (PL302) -----------------

PICKED_TS = """export async function POST(req: Request) {
  const { messages, webSearch, selectedTools, sessionId } = await validate(req);
  const availableTools: Record<string, Tool> = {};
  if (CONDITION) {
    availableTools.search = searchTool;
  }
  availableTools.image = imageTool;
  const mcpTools = await registerMcpTools(servers, MCP_ARG);
  const buildSystemPrompt = () => {
    if (CONDITION) return `${BASE} You can search the web.`;
    return BASE;
  };
  const systemPrompt = buildSystemPrompt();
  return streamText({
    model,
    messages: convertToModelMessages(messages),
    system: systemPrompt,
    tools: { ...availableTools, ...mcpTools },
  });
}
"""


def _picked(condition: str, mcp_arg: str) -> set[int]:
    text = PICKED_TS.replace("CONDITION", condition).replace("MCP_ARG", mcp_arg)
    return {f.line for f in _lint(text, "route.ts") if f.code == "PL302"}


def test_ts_a_prompt_and_tools_picked_by_request_options_are_reported() -> None:
    assert _picked("webSearch", "selectedTools") == {17, 18}


def test_ts_the_tools_made_from_a_selection_sent_with_the_request_are_reported() -> None:
    assert _picked("ENABLED", "selectedTools") == {18}


def test_ts_a_prompt_and_tools_picked_by_settings_of_the_deployment_are_not() -> None:
    assert _picked("ENABLED", "ALL_TOOLS") == set()


# --- `instructions` of a record handed to a person, not a model (PL103) ---------------------

RECORD_TS = """import { randomBytes } from "crypto";

export function createChallenge(projectId: string) {
  const challengeCode = randomBytes(16).toString("hex");
  return {
    KEYS
    instructions: `Sign the message sigil-verify:${challengeCode} with your key.`,
  };
}
"""


def test_ts_a_records_instructions_for_a_person_are_no_prompt() -> None:
    text = RECORD_TS.replace("KEYS", "id: `c-${challengeCode}`, method: 'keypair', projectId,")
    assert "PL103" not in _codes(text, "challenge.ts")


def test_ts_an_agents_instructions_are_a_prompt() -> None:
    text = RECORD_TS.replace("KEYS", "id: 'verifier', name: 'Verifier', model: 'gpt-4o',")
    assert "PL103" in _codes(text, "challenge.ts")


# --- recent turns handed to a tracker, not sent as the conversation (PL303) -----------------

TRACKER_TS = """export class TextSession {
  async onText(ws: WebSocket, text: string) {
    const result = await generateText({ model, system: SYSTEM, messages: this.history });
    this.state.addAssistantTurn(result.text);
    CALL(ws, this.skillName, this.state.turns.slice(-6));
  }
}
"""


def test_ts_recent_turns_handed_to_a_tracker_are_no_window() -> None:
    assert "PL303" not in _codes(TRACKER_TS.replace("CALL", "runProgressTracking"), "s.ts")


def test_ts_recent_turns_handed_to_a_reply_are_a_window() -> None:
    assert "PL303" in _codes(TRACKER_TS.replace("CALL", "streamReply"), "s.ts")
