"""Shapes real10 missed (made general after real10's test half was scored once and became
development data): a history window whose negated count is scaled from turns to messages, a
system prompt built in another module from what it is handed here, and fields of the incoming
request's body written into a system prompt. Each test is fresh code in the real shape with a
case that must stay silent."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(text: str, path: str = "chat.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, path)]


def test_python_a_window_counted_in_turns_and_scaled_to_messages() -> None:
    # `-keep * 2` keeps the last `keep` exchanges (user and assistant each): the same sliding
    # window as `[-n:]`. A list of prices cut the same way is no conversation, and a slice
    # from a positive start scaled the same way is a page, not the newest messages.
    src = (
        "def recent(history, keep):\n"
        "    recent_turns = history[-keep * 2:]\n"
        "    return [{'role': 'system', 'content': 'You help.'}, *recent_turns]\n"
        "def tail(prices, n):\n"
        "    last = prices[-n * 2:]\n"
        "    return last\n"
        "def page(history, n):\n"
        "    shown = history[n * 2:]\n"
        "    return shown\n"
    )
    assert _codes(src, "memory.py") == [(2, "PL303")]


def test_a_system_prompt_built_in_another_module_from_retrieved_context() -> None:
    # The builder is a service's method (another file): what it is handed is its text. The
    # retrieved `context` moves the prompt's start on every question; a base prompt the user
    # set once and a builder defined in this file (checked where it is defined) do not count
    # here.
    src = (
        "export class Builder {\n"
        "  constructor(private rag: RagService) {}\n"
        "  systemFor(context: string, basePrompt?: string): string {\n"
        "    return this.rag.composeRagSystemPrompt(context, basePrompt)\n"
        "  }\n"
        "  plain(basePrompt: string): string {\n"
        "    return this.rag.composeRagSystemPrompt(basePrompt)\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "builder.ts") == [(4, "PL304")]


def test_a_date_handed_to_a_system_prompt_builder_of_another_module() -> None:
    # An imported builder given today's date and time as positional arguments: the prompt
    # carries them. The same builder given only the user's name is a fixed prompt.
    src = (
        "import { buildSystemPrompt } from './prompt';\n"
        "export function parse(text: string, name: string) {\n"
        "  const today = new Date().toISOString();\n"
        "  const system = buildSystemPrompt(name, today);\n"
        "  const fixed = buildSystemPrompt(name);\n"
        "  return [system, fixed, text];\n"
        "}\n"
    )
    assert [c for _, c in _codes(src, "parse.ts")] == ["PL101"]


def test_fields_of_the_request_body_written_into_the_system_prompt() -> None:
    # The format this request asks for ends the system prompt in front of the history: a
    # conversation that switches format changes its prefix. The conversation's id and the
    # system prompt the client sends (set once for a conversation) do not count, nor does a
    # body field written into the user's own turn.
    src = (
        "export async function POST(req: Request) {\n"
        "  const body = (await req.json()) as Body & { stream?: boolean };\n"
        "  const { format, chatId, systemPrompt, history, text } = body;\n"
        "  const head = `${systemPrompt}\\nchat ${chatId}`;\n"
        "  const full = head + `\\n## Format: ${format || 'post'}`;\n"
        "  const messages = [{ role: 'system', content: full }, ...history];\n"
        "  messages.push({ role: 'user', content: `${text} (${format})` });\n"
        "  return client.chat(messages);\n"
        "}\n"
    )
    assert _codes(src, "route.ts") == [(5, "PL304")]


def test_an_express_request_body_in_the_system_message() -> None:
    # `req.body` read in a handler: its `persona` is set once (no finding), its `topic` is
    # this request's.
    src = (
        "app.post('/chat', async (req, res) => {\n"
        "  const { topic, persona } = req.body;\n"
        "  const messages = [\n"
        "    { role: 'system', content: `You are ${persona}. Topic: ${topic}` },\n"
        "    ...store.get(req.params.id),\n"
        "  ];\n"
        "  res.json(await openai.chat.completions.create({ model, messages }));\n"
        "});\n"
    )
    assert _codes(src, "server.js") == [(4, "PL304")]


def test_a_prompt_template_with_a_slot_for_recalled_memory() -> None:
    # A template wrapping the base prompt, with a slot the store's memory fills at each
    # invoke: the prefix changes whenever the memory does. A template that also holds the
    # question is the user's turn; a slot for the user's profile is set once; a template
    # with only a `{{base}}` slot is fixed.
    src = (
        "export const MEMORY_PROMPT_TEMPLATE = `{{base}}\n"
        "<memory>\n"
        "{{memoryJson}}\n"
        "</memory>`;\n"
        "export const ANSWER_PROMPT = `Use {searchResults} to answer {question}.`;\n"
        "export const PROFILE_SYSTEM_PROMPT = `{{base}}\\nAbout the user: {{profileContext}}`;\n"
        "export const WRAP_PROMPT = `{{base}}\\nBe brief.`;\n"
    )
    assert _codes(src, "prompts.ts") == [(1, "PL304")]


def test_a_system_prompt_template_with_a_slot_for_retrieved_documents() -> None:
    # Named for the system prompt, the template is the prefix even beside a question slot.
    src = (
        "const SYSTEM_PROMPT = 'Answer from these:\\n{documents}\\nUser asked: {question}';\n"
        "const KNOWN_SYSTEM_PROMPT = 'Known context:\\n{appContext}';\n"
    )
    assert _codes(src, "rag.js") == [(1, "PL304")]


def test_python_a_budget_loop_over_the_window_a_helper_kept() -> None:
    # `recent` keeps the newest exchanges; the loop then fills the request oldest first while
    # a token budget lasts, so where the budget cuts moves as the window slides: reported at
    # the budget's test. The same loop over the whole history keeps the oldest messages (the
    # prefix holds), and over a helper that cuts nothing it is no window either.
    src = (
        "class Memory:\n"
        "    def recent(self, history, keep):\n"
        "        last = history[-keep * 2:]\n"
        "        return last\n"
        "    def everything(self, history):\n"
        "        return list(history)\n"
        "    def build(self, history, budget):\n"
        "        turns = self.recent(history=history, keep=5)\n"
        "        messages, used = [], 0\n"
        "        for t in turns:\n"
        "            if used + len(t.text) > budget:\n"
        "                break\n"
        "            messages.append({'role': t.role, 'content': t.text})\n"
        "            used += len(t.text)\n"
        "        return messages\n"
        "    def build_all(self, history, budget):\n"
        "        kept, used = [], 0\n"
        "        for t in history:\n"
        "            if used + len(t.text) > budget:\n"
        "                break\n"
        "            kept.append({'role': t.role, 'content': t.text})\n"
        "        whole = self.everything(history)\n"
        "        for t in whole:\n"
        "            if used + len(t.text) > budget:\n"
        "                break\n"
        "            kept.append({'role': t.role, 'content': t.text})\n"
        "        return kept\n"
    )
    assert _codes(src, "memory.py") == [(3, "PL303"), (11, "PL303")]


def test_a_session_memory_read_per_turn_in_the_system_message() -> None:
    # The session's short-term memory (read back on each turn, growing with it) stringified
    # into the system message ahead of the history. A fixed note named for memory is literal
    # text, and a project's memory handed in with a fixture is notes kept across sessions.
    src = (
        "export class Coordinator {\n"
        "  async casual(message: string, sessionId: string) {\n"
        "    const shortTermMemory = await this.memoryService.getContext(sessionId);\n"
        "    const memoryNote = 'Keep answers short.';\n"
        "    return this.llm.chat([\n"
        "      { role: 'system', content: `${CASUAL}\\n${JSON.stringify(shortTermMemory)}` },\n"
        "      { role: 'system', content: `${CASUAL}\\n${memoryNote}` },\n"
        "      { role: 'system', content: `${CASUAL}\\n${this.fixture.setup.memory}` },\n"
        "      ...shortTermMemory.chatHistory,\n"
        "      { role: 'user', content: message },\n"
        "    ]);\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "coordinator.ts") == [(6, "PL304")]


def test_python_a_parameter_named_for_the_session_memory_in_the_system_prompt() -> None:
    # As in TypeScript: the session's memory handed to a system-prompt builder moves its
    # start whenever the memory grows. A cap on the memory, the user's profile memory (set
    # once) and a project's memory (notes kept across sessions) do not.
    src = (
        "class Agent:\n"
        "    def system_prompt(self, short_term_memory, memory_limit, profile_memory, memory):\n"
        "        return (\n"
        "            f'You help.\\nMemory: {short_term_memory}\\n'\n"
        "            f'Keep {memory_limit} items. About the user: {profile_memory}\\n{memory}'\n"
        "        )\n"
    )
    assert _codes(src, "agent.py") == [(4, "PL304")]


def test_machine_state_named_system_is_no_system_prompt() -> None:
    # A health report's `system` record (uptime, load, CPU) and a tool named `system_time`
    # say "system" of the machine; neither is a prompt. A system prompt with the uptime in
    # its text still is.
    src = (
        "const os = require('os');\n"
        "function report(metrics) {\n"
        "  return {\n"
        "    telemetry: { system: { ...metrics, uptime: process.uptime(), load: os.loadavg() } },\n"
        "  };\n"
        "}\n"
        "const tools = { system_time: () => new Date().toISOString() };\n"
        "function prompt() {\n"
        "  const systemPrompt = `Up for ${process.uptime()} s.`;\n"
        "  return systemPrompt;\n"
        "}\n"
    )
    assert _codes(src, "doctor.js") == [(9, "PL106")]


def test_a_mode_named_setting_inside_a_tool_is_no_choice() -> None:
    # `approvalMode: "interrupt"` is a key of the one tool's fixed settings; tools picked by
    # a `mode` variable still are chosen per mode.
    src = (
        "export function make(mode: string) {\n"
        "  const fixed = createAgent({\n"
        "    tools: { add: tool({ approvalMode: 'interrupt', execute: add }) },\n"
        "  });\n"
        "  const picked = createAgent({ tools: mode === 'plan' ? readOnly : all });\n"
        "  return [fixed, picked];\n"
        "}\n"
    )
    assert _codes(src, "agents.ts") == [(5, "PL302")]


def test_python_a_system_prompt_written_per_item_of_a_loop_of_calls() -> None:
    # Each conflict gets a system prompt naming its file: no call reads another's cache past
    # that line. The same loop with the file in the user prompt, a loop over agents (each with
    # a conversation of its own), and a system prompt built per item but never sent in the
    # loop are not this.
    src = (
        "async def plan(self, conflicts, agents):\n"
        "    out = []\n"
        "    for conflict in conflicts:\n"
        "        system_prompt = f'''You resolve merge conflicts.\n"
        "        File: {conflict.get('file')}'''\n"
        "        out.append(await self.ask(f'Resolve it.', system_prompt))\n"
        "    for conflict in conflicts:\n"
        "        system_prompt = 'You resolve merge conflicts.'\n"
        "        out.append(await self.ask(f\"File: {conflict['file']}\", system_prompt))\n"
        "    for agent in agents:\n"
        "        system = f'You are {agent.name}.'\n"
        "        out.append(await self.ask('Go.', system))\n"
        "    for conflict in conflicts:\n"
        "        system_note = f'File: {conflict}'\n"
        "        out.append(system_note)\n"
        "    return out\n"
    )
    assert _codes(src, "resolver.py") == [(5, "PL304")]


def test_a_system_prompt_written_per_item_of_a_loop_of_calls() -> None:
    # As in Python: the file of each conflict in the system prompt of that conflict's call.
    # The item in the user prompt, a loop over personas, and a per-item note only pushed to a
    # list are not this.
    src = (
        "export async function plan(conflicts: Conflict[], personas: Persona[]) {\n"
        "  const out: string[] = [];\n"
        "  for (const conflict of conflicts) {\n"
        "    const systemPrompt = `You resolve conflicts.\\nFile: ${conflict.file}`;\n"
        "    out.push(await generateText({ model, system: systemPrompt, prompt: 'Go.' }));\n"
        "  }\n"
        "  for (const conflict of conflicts) {\n"
        "    const system = 'You resolve conflicts.';\n"
        "    out.push(await generateText({ model, system, prompt: `File: ${conflict.file}` }));\n"
        "  }\n"
        "  for (const persona of personas) {\n"
        "    const systemPrompt = `You are ${persona.name}.`;\n"
        "    out.push(await ask('Go.', systemPrompt));\n"
        "  }\n"
        "  for (const conflict of conflicts) {\n"
        "    const systemNote = `File: ${conflict.file}`;\n"
        "    out.push(systemNote);\n"
        "  }\n"
        "  return out;\n"
        "}\n"
    )
    assert _codes(src, "resolver.ts") == [(4, "PL304")]


def test_python_the_history_sent_through_a_memory_strategy() -> None:
    # A configurable memory (window, token budget, summary) hands back the history it keeps,
    # and that is what the request sends. Saving to the memory, searching it, and a note the
    # memory writes about the history that is not sent are not this.
    src = (
        "def step(run, memory, chat_messages, tool_calls):\n"
        "    system = [{'role': 'system', 'content': run.instructions}]\n"
        "    messages = system + memory.integrate_context(chat_messages) + tool_calls\n"
        "    memory.save(chat_messages)\n"
        "    hits = memory.search(chat_messages)\n"
        "    note = memory.describe(chat_messages)\n"
        "    return llm.run(messages=messages, extra=[hits, note])\n"
    )
    assert _codes(src, "runner.py") == [(3, "PL303")]


def test_a_project_memory_handed_to_an_imported_builder_is_settled() -> None:
    # An eval fixture's project memory (notes kept across sessions) given to a system-prompt
    # builder of another module: fixed for the run, no finding. The session memory read back
    # this turn and handed to the same builder is.
    src = (
        "import { buildSystemPrompt } from './prompt';\n"
        "export async function run(fixture: Fixture, sessionId: string) {\n"
        "  const memory = fixture.setup?.memory ?? '';\n"
        "  const fixed = buildSystemPrompt(memory);\n"
        "  const sessionMemory = await memoryStore.load(sessionId);\n"
        "  const moving = buildSystemPrompt(sessionMemory);\n"
        "  return [fixed, moving];\n"
        "}\n"
    )
    assert _codes(src, "runner.ts") == [(6, "PL304")]


def test_a_proxy_passing_the_clients_system_prompt_through() -> None:
    # A gateway reads the client's system prompt off the body and forwards it (processed):
    # the client sets it once for its conversation. A field of the body for this request
    # written into the system prompt still is per-request content.
    src = (
        "export async function handle(c: Context) {\n"
        "  const payload = await c.req.json<Payload>();\n"
        "  if (payload.system) {\n"
        "    payload.system = await processSystem(payload.system, payload.model);\n"
        "  }\n"
        "  const system = `${payload.system}\\nTone: ${payload.tone}`;\n"
        "  return forward({ system, messages: payload.messages });\n"
        "}\n"
    )
    assert _codes(src, "handler.ts") == [(6, "PL304")]
