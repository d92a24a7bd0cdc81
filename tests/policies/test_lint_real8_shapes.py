"""Shapes real8 missed or misread (made general after real8
became development data): a history filled back from its newest message through a local alias,
a list the loop condition measures as the messages' size dropped from the front while over a
budget, a helper named for cutting to a token budget, a system message written from the
request's current state ahead of the history, and a model call's `maxTokens` (the reply's
limit) that is no history budget; in Python, a window bound to a local the function returns
and a window of the history filtered into a local. Each test is fresh code in the real shape
with a case that must stay silent."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(text: str, path: str = "chat.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, path)]


def test_a_history_filled_back_through_a_local_alias_to_a_count() -> None:
    # The newest messages kept while a count and a character budget last, read through
    # `source` (the history or nothing). The same loop over a list of prices cuts no history.
    src = (
        "function trimHistory(messages = [], maxMessages = 6) {\n"
        "  const source = Array.isArray(messages) ? messages : [];\n"
        "  const kept = [];\n"
        "  for (let i = source.length - 1; i >= 0; i -= 1) {\n"
        "    if (kept.length >= maxMessages) break;\n"
        "    kept.unshift(source[i]);\n"
        "  }\n"
        "  return kept;\n"
        "}\n"
        "function cheapest(prices = [], maxItems = 6) {\n"
        "  const source = Array.isArray(prices) ? prices : [];\n"
        "  const kept = [];\n"
        "  for (let i = source.length - 1; i >= 0; i -= 1) {\n"
        "    if (kept.length >= maxItems) break;\n"
        "    kept.unshift(source[i]);\n"
        "  }\n"
        "  return kept;\n"
        "}\n"
    )
    assert _codes(src, "privacy-bot.js") == [(4, "PL303")]


def test_recent_messages_dropped_while_the_messages_measure_over_a_budget() -> None:
    # `recent` is no history by its name; the loop condition measures the assembled messages
    # against a character budget. A queue drained while jobs are waiting is no budget loop.
    src = (
        "function build(input, recent) {\n"
        "  let messages = assemble(recent);\n"
        "  while (messageChars(messages) > input.maxContextChars && recent.length > 0) {\n"
        "    recent.shift();\n"
        "    messages = assemble(recent);\n"
        "  }\n"
        "  while (queue.length > 0) {\n"
        "    queue.shift();\n"
        "  }\n"
        "  return messages;\n"
        "}\n"
    )
    assert _codes(src) == [(4, "PL303")]


def test_a_copy_sliced_from_the_front_while_its_tokens_are_over_a_budget() -> None:
    # `kept = kept.slice(1)` while the kept messages' estimate is over the remaining budget; the
    # same slice in a loop bounded by retries drops no message.
    src = (
        "class Builder {\n"
        "  trim(messages, remainingBudget) {\n"
        "    let kept = [...messages];\n"
        "    while (this.estimateMessageTokens(kept) > remainingBudget && kept.length > 0) {\n"
        "      kept = kept.slice(1);\n"
        "    }\n"
        "    let args = process.argv;\n"
        "    while (args.length > 2) {\n"
        "      args = args.slice(1);\n"
        "    }\n"
        "    return kept;\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src) == [(5, "PL303")]


def test_a_helper_named_for_cutting_to_a_token_budget() -> None:
    # `trimToTokenBudget(messages)` names its budget in its own name; a helper that counts the
    # messages' tokens cuts nothing.
    src = (
        "class ContextBuilder {\n"
        "  build(messages) {\n"
        "    const size = this.countTokens(messages);\n"
        "    const trimmed = this.trimToTokenBudget(messages);\n"
        "    return trimmed;\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src) == [(4, "PL303")]


def test_a_reply_limit_is_no_history_budget() -> None:
    # `maxTokens` handed to the call that sends the messages limits the reply; handed to a
    # trimmer it is the history's budget.
    src = (
        "export async function reply(messages) {\n"
        "  const out = await chat(messages, { maxTokens: 200 });\n"
        "  const kept = runChatTrimmer(messages, { maxTokens: 1024 });\n"
        "  return [out, kept];\n"
        "}\n"
    )
    assert _codes(src) == [(3, "PL303")]


def test_the_current_state_in_a_system_message_ahead_of_the_history() -> None:
    # The spec being edited, written into a second system message before the history is pushed:
    # every edit changes the prefix ahead of the whole conversation. The same state written
    # after the history is in the newest turn, and a fixed system message is no state.
    src = (
        "export function buildChatMessages(input) {\n"
        "  const messages = [{ role: 'system', content: SYSTEM_PROMPT }];\n"
        "  if (input.currentSpec) {\n"
        "    messages.push({\n"
        "      role: 'system',\n"
        "      content: `Current spec:\\n${JSON.stringify(input.currentSpec)}`,\n"
        "    });\n"
        "  }\n"
        "  for (const m of input.history) {\n"
        "    messages.push({ role: m.role, content: m.content });\n"
        "  }\n"
        "  return messages;\n"
        "}\n"
        "export function buildAfter(input) {\n"
        "  const messages = [{ role: 'system', content: SYSTEM_PROMPT }];\n"
        "  for (const m of input.history) messages.push(m);\n"
        "  messages.push({ role: 'system', content: `Spec: ${input.currentSpec}` });\n"
        "  return messages;\n"
        "}\n"
    )
    assert _codes(src) == [(6, "PL304")]


def test_the_current_state_spread_before_the_history_in_one_list() -> None:
    # The browser state as a system message, then the recent messages spread after it; the
    # user who asked (`currentUser`) stays the same within a conversation.
    src = (
        "export function build(currentBrowserContext, currentUser, recentMessages) {\n"
        "  const withState = [\n"
        "    { role: 'system', content: `Page:\\n${currentBrowserContext}` },\n"
        "    ...recentMessages,\n"
        "  ];\n"
        "  const withUser = [\n"
        "    { role: 'system', content: `User: ${currentUser}` },\n"
        "    ...recentMessages,\n"
        "  ];\n"
        "  return [withState, withUser];\n"
        "}\n"
    )
    assert _codes(src) == [(3, "PL304")]


def test_python_a_window_bound_to_a_local_that_is_returned() -> None:
    # `trim_history` keeps the last messages in `trimmed` and returns it after a marker; the
    # same slice of a history only printed is not what is sent.
    src = (
        "def trim_history(messages, max_messages=20):\n"
        "    if len(messages) <= max_messages:\n"
        "        return messages\n"
        "    trimmed = messages[-max_messages:]\n"
        "    marker = {'role': 'user', 'content': 'earlier messages trimmed'}\n"
        "    return [marker] + trimmed\n"
        "def show(history):\n"
        "    recent = history[-5:]\n"
        "    print(recent)\n"
        "    return len(history)\n"
    )
    assert _codes(src, "agent_loop.py") == [(4, "PL303")]


def test_python_a_window_of_the_history_filtered_into_a_local() -> None:
    # The system messages and the rest split by comprehensions, the rest cut to its last 20:
    # `other` is the history without its system messages. A comprehension over prices is not.
    src = (
        "_MAX_HISTORY = 20\n"
        "def _trim_history(history):\n"
        "    system = [m for m in history if m.get('role') == 'system']\n"
        "    other = [m for m in history if m.get('role') != 'system']\n"
        "    if len(other) > _MAX_HISTORY:\n"
        "        other = other[-_MAX_HISTORY:]\n"
        "    return system + other\n"
        "def _cheapest(prices):\n"
        "    rest = [p for p in prices if p > 0]\n"
        "    rest = rest[-3:]\n"
        "    return rest\n"
    )
    assert _codes(src, "openai_agent.py") == [(6, "PL303")]


def test_python_a_history_read_back_by_a_call_named_for_the_recent_entries() -> None:
    # A store's `load_recent(user_key)` hands back its newest turns (a window by its name); an
    # awaited read with a cap held in an attribute (`limit=agent.max_context_messages`) is one
    # too. Reading every stored turn (`load_all`) keeps the whole conversation.
    src = (
        "class Agent:\n"
        "    async def respond(self, prompt, user_key, conversation, agent, repo):\n"
        "        messages = [{'role': 'system', 'content': self.system_prompt}]\n"
        "        history = self._memory.load_recent(user_key)\n"
        "        stored = await repo.list_recent(\n"
        "            conversation_id=conversation.id, limit=agent.max_context_messages\n"
        "        )\n"
        "        history_all = self._memory.load_all(user_key)\n"
        "        for turn in [*history, *stored, *history_all]:\n"
        "            messages.append({'role': turn['role'], 'content': turn['text']})\n"
        "        return messages\n"
    )
    assert _codes(src, "agent.py") == [(4, "PL303")]  # `stored` is no history by its name
    src = src.replace("stored = await", "history_rows = await").replace("*stored", "*history_rows")
    assert _codes(src, "agent.py") == [(4, "PL303"), (5, "PL303")]


def test_the_system_message_at_the_head_of_a_live_history_replaced() -> None:
    # `updateSession` writes the new instructions over history[0] mid-session. A constructor
    # sets the session's own, a setter (`addSystemPrompt`) may run before the first request,
    # and fixed text is the same bytes.
    src = (
        "class Transport {\n"
        "  constructor(config) {\n"
        "    this.history[0] = { role: 'system', content: config.instructions };\n"
        "  }\n"
        "  addSystemPrompt(text) {\n"
        "    this.history[0] = { role: 'system', content: text };\n"
        "  }\n"
        "  async updateSession(config) {\n"
        "    if (this.pipeline.history.length > 0) {\n"
        "      this.pipeline.history[0] = { role: 'system', content: config.instructions };\n"
        "    }\n"
        "    this.history[0] = { role: 'system', content: 'You are a voice agent.' };\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "transport.ts") == [(10, "PL302")]


def test_python_the_system_message_replaced_in_a_turn_that_sends_the_history() -> None:
    # Each turn writes the mode's prompt over messages[0] and sends the list; a setter that
    # sends nothing may run before the first request.
    src = (
        "class Chat:\n"
        "    def add_system_prompt(self, prompt):\n"
        "        self.messages[0] = {'role': 'system', 'content': prompt}\n"
        "    def turn(self, text, mode):\n"
        "        self.messages[0] = {'role': 'system', 'content': PROMPTS[mode]}\n"
        "        self.messages.append({'role': 'user', 'content': text})\n"
        "        return client.chat.completions.create(model=M, messages=self.messages)\n"
    )
    assert _codes(src, "chat.py") == [(5, "PL302")]


def test_a_date_in_the_system_prompt_of_a_one_off_request_is_no_finding() -> None:
    # A planning function sends its system prompt with one user message and no history: the
    # date in it is the same all day and no conversation's prefix follows it. The same prompt
    # sent ahead of the history is reported.
    src = (
        "export async function plan(kind, data) {\n"
        "  const today = new Date().toISOString().split('T')[0];\n"
        "  let systemPrompt = '';\n"
        "  if (kind === 'a') systemPrompt = `You plan. Today is ${today}.`;\n"
        "  return fetch(URL, { body: JSON.stringify({ messages: [\n"
        "    { role: 'system', content: systemPrompt },\n"
        "    { role: 'user', content: `Data:\\n${data}` },\n"
        "  ] }) });\n"
        "}\n"
        "export async function chat(history) {\n"
        "  const today = new Date().toISOString().split('T')[0];\n"
        "  const systemPrompt = `You help. Today is ${today}.`;\n"
        "  return client.create({\n"
        "    messages: [{ role: 'system', content: systemPrompt }, ...history],\n"
        "  });\n"
        "}\n"
    )
    assert _codes(src) == [(12, "PL102")]


def test_a_prompt_sent_as_the_user_message_is_no_prefix() -> None:
    # `prompt` is read only as the content of a user message: the request's own turn. The same
    # name sent as the system message is the prefix.
    src = (
        "export async function insight(ctx) {\n"
        "  const prompt = `Write about ${new Date().toDateString()}:\\n${ctx}`;\n"
        "  return client.create({ messages: [\n"
        "    { role: 'system', content: 'Be brief.' },\n"
        "    { role: 'user', content: prompt },\n"
        "  ] });\n"
        "}\n"
        "export async function persona(history) {\n"
        "  const prompt = `You are Ann. Today: ${new Date().toDateString()}`;\n"
        "  return client.create({ messages: [{ role: 'system', content: prompt }, ...history] });\n"
        "}\n"
    )
    assert [c for _, c in _codes(src)] == ["PL102"]
    assert _codes(src)[0][0] == 9


def test_a_prompt_file_located_from_the_working_directory_is_no_file_tree() -> None:
    # The system prompt read from a fixed file found under process.cwd(): its text, not the
    # path, reaches the prompt. The directory's listing written into it is a file tree.
    src = (
        "import { readFile, readdir } from 'node:fs/promises';\n"
        "import { join } from 'node:path';\n"
        "export async function loadSystemPrompt() {\n"
        "  const text = await readFile(join(process.cwd(), 'context', 'system.md'), 'utf8');\n"
        "  return text;\n"
        "}\n"
        "export async function treePrompt() {\n"
        "  const files = await readdir(process.cwd());\n"
        "  return `Files:\\n${files.sort().join('\\n')}`;\n"
        "}\n"
    )
    assert [c for _, c in _codes(src)] == ["PL105"]
    assert _codes(src)[0][0] == 9


def test_a_window_start_is_reported_where_it_cuts_the_history() -> None:
    # The start computed from the history's length less a cap is reported at the slice that
    # drops the messages; one never used to cut stays at its declaration.
    src = (
        "function limit(conversationMessages, systemMessage) {\n"
        "  if (conversationMessages.length > 20) {\n"
        "    const historySize = 15;\n"
        "    const excessMessages = conversationMessages.length - historySize - 1;\n"
        "    conversationMessages = [\n"
        "      systemMessage,\n"
        "      ...conversationMessages.slice(excessMessages + 1),\n"
        "    ];\n"
        "  }\n"
        "  return conversationMessages;\n"
        "}\n"
    )
    assert _codes(src, "messageCreate.js") == [(7, "PL303")]
