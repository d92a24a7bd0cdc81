"""Rules made general after real2, real3 and real4 were all scored (both halves became
development data): each test is the shape of the real code a rule missed or misfired on, in
Python and TypeScript alike where the shape exists in both."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source
from tests.helpers.lintfind import line_codes as _codes


def test_a_date_read_at_import_is_a_note() -> None:
    # gpt-researcher's deep_agents benchmark and open-interpreter's computer-use loop: a module
    # constant with today's date, sent by a function. One process keeps the constant, so it is
    # no finding (every corpus labels these false); a clock read at import that a function
    # writes into its request is a note (a process started on another day differs).
    src = (
        "from datetime import datetime\n"
        "SYSTEM_PROMPT = f\"Today's date is {datetime.now().strftime('%B %d, %Y')}.\"\n"
        "STARTED = f'Process started {datetime.now()}'\n"
        "def ask(client, q):\n"
        "    return client.messages.create(\n"
        "        model='m', max_tokens=9, system=SYSTEM_PROMPT + STARTED,\n"
        "        messages=[{'role': 'user', 'content': q}],\n"
        "    )\n"
        "def ask_today(client, q):\n"
        "    system = f\"Today is {datetime.now().strftime('%B %d, %Y')}.\"\n"
        "    return client.messages.create(model='m', max_tokens=9, system=system, messages=q)\n"
    )
    found = lint_source(src, "agent.py")
    assert [(f.line, f.code, f.severity) for f in found] == [
        (3, "PL101", "note"),
        (10, "PL102", "warning"),
    ]


def test_python_window_that_keeps_the_first_message() -> None:
    # shell_gpt's chat cache: the first message and the last `length` ones are stored and sent
    # again; once past the length the second message changes every turn.
    src = (
        "import json\n"
        "class ChatCache:\n"
        "    def _write(self, messages, chat_id):\n"
        "        # Retain the first message since it defines the role\n"
        "        truncated_messages = (\n"
        "            messages[:1] + messages[1 + max(0, len(messages) - self.length) :]\n"
        "        )\n"
        "        json.dump(truncated_messages, (self.path / chat_id).open('w'))\n"
    )
    assert _codes(src, "chat_handler.py") == [(6, "PL303")]


def test_typescript_windows_of_a_history_without_its_system_messages_and_of_a_session() -> None:
    # VoltAgent's summarisation keeps the last `keepMessages` of the non-system messages;
    # OpenAI Agents JS's conversation session returns only the newest `limit` items.
    ts = (
        "export function applySummary(messages: Message[], keepMessages: number) {\n"
        "  const nonSystemMessages = messages.filter((m) => m.role !== 'system')\n"
        "  const systemMessages = messages.filter((m) => m.role === 'system')\n"
        "  const tail = nonSystemMessages.slice(-keepMessages)\n"
        "  const first = systemMessages.slice(-keepMessages)\n"
        "  return [...first, ...tail]\n"
        "}\n"
        "export class OpenAIConversationsSession {\n"
        "  async getItems(limit: number): Promise<AgentInputItem[]> {\n"
        "    const orderedItems: AgentInputItem[] = await this.load()\n"
        "    if (orderedItems.length > limit) {\n"
        "      orderedItems.splice(0, orderedItems.length - limit)\n"
        "    }\n"
        "    return orderedItems\n"
        "  }\n"
        "}\n"
        "export class Toasts {\n"
        "  trim(items: Toast[], limit: number) {\n"
        "    items.splice(0, items.length - limit)\n"
        "  }\n"
        "}\n"
    )
    assert _codes(ts, "summary.ts") == [(4, "PL303"), (12, "PL303")]


def test_a_request_id_handed_to_a_memory_search_is_not_its_result() -> None:
    # vanna's system-prompt enhancer: a random request id names the memory search; the
    # memories found are text, the id is not. An id written into a template still is. The
    # memories, searched with the user's message, are per-request content in the system
    # prompt (PL304, line 4), found since a search handed the request is followed.
    src = (
        "import uuid\n"
        "async def enhance_system_prompt(self, system_prompt, user, user_message):\n"
        "    context = ToolContext(user=user, request_id=str(uuid.uuid4()))\n"
        "    memories = await self.agent_memory.search(query=user_message, context=context)\n"
        "    for result in memories:\n"
        "        system_prompt += f'- {result.memory.content}\\n'\n"
        "    return system_prompt\n"
        "def build_system_prompt(template):\n"
        "    return template.format(session_id=uuid.uuid4())\n"
    )
    assert _codes(src, "enhancer.py") == [(4, "PL304"), (9, "PL103")]


def test_a_fixed_date_named_so_is_not_today() -> None:
    # NextChat's template vars: the model's knowledge cutoff, looked up in a table of dates;
    # the time filled beside it is today's (filled through `Object.entries(vars).forEach`).
    ts = (
        "function fillTemplateWith(input: string, modelConfig: ModelConfig) {\n"
        "  const cutoff = KnowledgeCutOffDate[modelConfig.model] ?? KnowledgeCutOffDate.default\n"
        "  const vars = { cutoff, model: modelConfig.model, time: new Date().toString() }\n"
        "  let output = modelConfig.template ?? DEFAULT_INPUT_TEMPLATE\n"
        "  Object.entries(vars).forEach(([name, value]) => {\n"
        "    const regex = new RegExp(`{{${name}}}`, 'g')\n"
        "    output = output.replace(regex, value.toString())\n"
        "  })\n"
        "  return output\n"
        "}\n"
        "export function systemPrompts(modelConfig: ModelConfig) {\n"
        "  return [createMessage({ role: 'system', content: fillTemplateWith('', modelConfig) })]\n"
        "}\n"
    )
    assert _codes(ts, "chat.ts") == [(12, "PL101")]


def test_typescript_values_followed_through_loops_over_entries() -> None:
    ts = (
        "function fill(template: string) {\n"
        "  const vars = { today: new Date().toISOString().slice(0, 10) }\n"
        "  let output = template\n"
        "  for (const [name, value] of Object.entries(vars)) {\n"
        "    output = output.replaceAll(`{{${name}}}`, value)\n"
        "  }\n"
        "  return output\n"
        "}\n"
        "export const run = (client: Anthropic, t: string) =>\n"
        "  client.messages.create({ model: 'm', max_tokens: 9, system: fill(t), messages: [] })\n"
    )
    assert _codes(ts, "fill.ts") == [(10, "PL102")]


def test_python_budget_loops_left_by_return_or_over_enumerate() -> None:
    # SuperAGI's _split_history returns where the token budget runs out; MetaGPT's
    # compress_messages keeps the latest messages while `keep_token` lasts, counting them
    # with enumerate.
    src = (
        "def _split_history(self, history, pending_token_limit):\n"
        "    hist_token_count = 0\n"
        "    i = len(history)\n"
        "    for message in reversed(history):\n"
        "        hist_token_count += count_tokens([message])\n"
        "        if hist_token_count > pending_token_limit:\n"
        "            return history[:i], history[i:]\n"
        "        i -= 1\n"
        "    return [], history\n"
        "def compress(self, user_assistant_msgs, keep_token, compressed):\n"
        "    current_token_count = 0\n"
        "    for i, msg in enumerate(reversed(user_assistant_msgs)):\n"
        "        token_count = self.count_tokens([msg])\n"
        "        if current_token_count + token_count <= keep_token:\n"
        "            compressed.insert(1, msg)\n"
        "            current_token_count += token_count\n"
        "        else:\n"
        "            break\n"
        "    return compressed\n"
        "def newest_first(history):\n"
        "    for i, m in enumerate(reversed(history)):\n"
        "        if m['role'] == 'user':\n"
        "            return m\n"
    )
    assert _codes(src, "budget.py") == [(4, "PL303"), (12, "PL303")]


def test_typescript_retrieved_context_written_into_the_system_prompt() -> None:
    # LlamaIndexTS's context system prompt and bolt.diy's build-mode context buffer: what was
    # retrieved for this question goes into the system prompt. Not: a user's profile, a fixed
    # text chosen by a flag (scira's router), a module constant loaded once, nor a `prompt`
    # that may be the user's turn of a one-off question.
    ts = (
        "const PROJECT_CONTEXT = loadProjectNotes()\n"
        "export const contextSystemPrompt = (context: string) => {\n"
        "  return `Use the following context to answer the question.\n"
        "Context: ${context}\n"
        "Project: ${PROJECT_CONTEXT}`\n"
        "}\n"
        "export function build(files: FileMap, profileContext: string, hasImages: boolean) {\n"
        "  const codeContext = createFilesContext(files, true)\n"
        "  const imageContext = hasImages ? '\\nPrefer a vision model.' : ''\n"
        "  const systemPrompt = `${getSystemPrompt()}\n"
        "CONTEXT BUFFER: ${codeContext}\n"
        "User info: ${profileContext}${imageContext}`\n"
        "  return streamText({ model, system: systemPrompt, messages })\n"
        "}\n"
        "export const answerPrompt = (context: string, question: string) =>\n"
        "  `Answer from the context.\nContext: ${context}\nQuestion: ${question}`\n"
    )
    # `${question}` in a prompt builder not named for the prefix (line 18) is the question's own
    # turn of a one-shot request; named for the system prompt it is ahead of a history.
    assert _codes(ts, "prompt.ts") == [(4, "PL304"), (11, "PL304")]
    system = ts.replace("answerPrompt", "answerSystemPrompt")
    assert _codes(system, "prompt.ts") == [
        (4, "PL304"),
        (11, "PL304"),
        (17, "PL304"),
        (18, "PL304"),
    ]


def test_a_message_appended_by_a_state_update_is_not_the_prefix() -> None:
    # deer-flow's subagent middleware returns a dated system reminder as a state update: the
    # graph's add_messages reducer appends it once and keeps it. A request body that carries
    # its own system message is still the prefix.
    src = (
        "from datetime import datetime\n"
        "from langchain_core.messages import SystemMessage\n"
        "class SubagentDateContextMiddleware(AgentMiddleware):\n"
        "    def before_agent(self, state, runtime):\n"
        "        current_date = datetime.now().strftime('%Y-%m-%d, %A')\n"
        "        reminder = f'<system-reminder>{current_date}</system-reminder>'\n"
        "        return {'messages': [SystemMessage(content=reminder)]}\n"
        "def body(question):\n"
        "    today = datetime.now().strftime('%Y-%m-%d')\n"
        "    return {'model': 'gpt-4o', 'messages': [{'role': 'system', 'content': today}]}\n"
    )
    assert _codes(src, "middleware.py") == [(9, "PL102")]


def test_the_recent_turns_a_title_is_asked_from_are_no_window() -> None:
    # NextChat asks for a topic from the last messages once, in a request of its own; the
    # conversation itself, cut the same way, is a window.
    ts = (
        "export function summarizeTopic(messages: ChatMessage[], count: number) {\n"
        "  const topicMessages = messages\n"
        "    .slice(messages.length - count, messages.length)\n"
        "    .concat(createMessage({ role: 'user', content: Locale.Store.Prompt.Topic }))\n"
        "  api.llm.chat({ messages: topicMessages, config: { model } })\n"
        "}\n"
        "export function send(messages: ChatMessage[], count: number) {\n"
        "  const recentMessages = messages.slice(messages.length - count, messages.length)\n"
        "  api.llm.chat({ messages: recentMessages, config: { model } })\n"
        "}\n"
    )
    assert _codes(ts, "chat.ts") == [(8, "PL303")]


def test_a_summary_request_built_by_push_is_a_side_request() -> None:
    # VoltAgent's summariser pushes its own system prompt and the conversation, flattened by a
    # helper into one user message, into a list it sends.
    ts = (
        "export async function summarize(systemPrompt: string, newMessages: Message[]) {\n"
        "  const summaryInput = buildSummaryInput({ previousSummary: '', messages: newMessages })\n"
        "  const summaryMessages: Array<{ role: 'system' | 'user'; content: string }> = []\n"
        "  if (systemPrompt.trim()) {\n"
        "    summaryMessages.push({ role: 'system' as const, content: systemPrompt })\n"
        "  }\n"
        "  summaryMessages.push({ role: 'user' as const, content: summaryInput })\n"
        "  return generateText({ model, messages: summaryMessages })\n"
        "}\n"
        "export async function ask(systemPrompt: string, question: string) {\n"
        "  const msgs: Message[] = []\n"
        "  msgs.push({ role: 'system', content: systemPrompt })\n"
        "  msgs.push({ role: 'user', content: question })\n"
        "  return generateText({ model, messages: msgs })\n"
        "}\n"
    )
    assert _codes(ts, "summary.ts") == [(7, "PL305")]


def test_the_last_message_sent_with_another_role() -> None:
    # Inngest AgentKit's Anthropic adapter sends a trailing assistant message as a user one;
    # on the next request it is no longer last and goes back to its own role.
    ts = (
        "export const requestParser = (messages: Message[], system: string) => {\n"
        "  const anthropicMessages = messages.map(toAnthropic)\n"
        "  const lastMessage = anthropicMessages[anthropicMessages.length - 1]\n"
        "  if (lastMessage?.role === 'assistant') {\n"
        "    lastMessage.role = 'user'\n"
        "  }\n"
        "  const draft = { role: 'assistant' }\n"
        "  draft.role = 'user'\n"
        "  return { system, messages: anthropicMessages }\n"
        "}\n"
    )
    assert _codes(ts, "anthropic.ts") == [(5, "PL303")]
    src = (
        "def to_request(messages, system):\n"
        "    if messages[-1]['role'] == 'assistant':\n"
        "        messages[-1]['role'] = 'user'\n"
        "    reply = {'role': 'assistant', 'content': ''}\n"
        "    reply['role'] = 'user'\n"
        "    return {'system': system, 'messages': messages}\n"
    )
    assert _codes(src, "adapter.py") == [(3, "PL303")]


def test_the_model_chosen_by_the_step_of_an_agent_loop() -> None:
    # Cody's agentic handler asks the extended-thinking model on turn 0 and the base model on
    # every later turn of one loop.
    ts = (
        "export async function run(chat: ChatBuilder) {\n"
        "  let turnCount = 0\n"
        "  while (turnCount < MAX_TURN) {\n"
        "    const model = turnCount === 0 ? AGENT_MODELS.ExtendedThinking : AGENT_MODELS.Base\n"
        "    await requestLLM(chat, model)\n"
        "    turnCount++\n"
        "  }\n"
        "  const model = fast ? 'haiku' : 'sonnet'\n"
        "}\n"
    )
    assert _codes(ts, "AgenticHandler.ts") == [(4, "PL302")]
    src = (
        "def run(client, messages):\n"
        "    for step in range(10):\n"
        "        model = 'o3' if step == 0 else 'gpt-4.1'\n"
        "        client.responses.create(model=model, input=messages)\n"
        "        client.responses.create(model='o3' if fast else 'gpt-4.1', input=messages)\n"
    )
    assert _codes(src, "loop.py") == [(3, "PL302")]


def test_retrieved_context_before_the_conversation_in_one_text() -> None:
    # chatGPTBox's Bing client puts the page context ahead of the formatted conversation.
    # The conversation first and the context after it keeps the history's prefix.
    ts = (
        "export async function generateAnswers(port, question, session, context) {\n"
        "  let previousMessagesFormatted = formatMessages(session.conversationRecords)\n"
        "  if (context) {\n"
        "    previousMessagesFormatted = `${context}\\n\\n${previousMessagesFormatted}`\n"
        "  }\n"
        "  const prompt = `${previousMessagesFormatted}\\n\\n${context}`\n"
        "  return send(previousMessagesFormatted, prompt)\n"
        "}\n"
    )
    assert _codes(ts, "index.mjs") == [(4, "PL304")]


def test_constants_transforms_ids_and_creation_times_are_no_volatile_text() -> None:
    # opencommit: an upper-case constant and a function that cleans its argument are named
    # for commits but read no repository; magnitude's UI store: a record's id and creation
    # time name and date it. Today's date in the same system message of a conversation
    # still counts.
    ts = (
        "import { STRUCTURE_OF_COMMIT } from './commitlint/constants'\n"
        "export const ask = (example: string, chat: Msg[]) => client.chat.completions.create({\n"
        "  model: 'gpt-4o',\n"
        "  messages: [{ role: 'system', content: `You write commits. ${STRUCTURE_OF_COMMIT}\n"
        "${removeConventionalCommitWord(example)}\n"
        "Today is ${new Date().toDateString()}` }, ...chat],\n"
        "})\n"
        "let idCounter = 0\n"
        "function nextId(): string {\n"
        "  return `sysmsg-${Date.now()}-${idCounter++}`\n"
        "}\n"
        "export function addSystemMessage(text: string): string {\n"
        "  const id = nextId()\n"
        "  const msg = { id, text, createdAt: Date.now() }\n"
        "  systemMessages = [...systemMessages, msg]\n"
        "  return id\n"
        "}\n"
    )
    assert _codes(ts, "prompts.ts") == [(6, "PL102")]


def test_a_name_declared_without_a_value_stays_in_its_function() -> None:
    # supermemory's middleware: `let memories: string` in one function, assigned later, is
    # not the `memories` parameter of another function, which writes the memories searched
    # for this turn into a system message.
    ts = (
        "export async function addMemories(messages: Message[], ctx: Ctx) {\n"
        "  let memories: string\n"
        "  memories = PROMPT_TEMPLATE\n"
        "  return injectMemories(messages, memories)\n"
        "}\n"
        "const injectMemories = (messages: Message[], memories: string) => {\n"
        "  return [{ id: crypto.randomUUID(), role: 'system' as const, content: memories },\n"
        "    ...messages]\n"
        "}\n"
    )
    found = lint_source(ts, "middleware.ts")
    assert [(f.line, f.code) for f in found] == [(7, "PL304")]
    assert "(retrieved for this request)" in found[0].message
