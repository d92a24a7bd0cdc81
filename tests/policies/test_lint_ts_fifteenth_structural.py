"""The fifteenth structural pass, TypeScript: history windows whatever the list is named. The
oldest item of a list the file replays as the conversation dropped under a test of a count or a
reply's token use against a named bound; the older half dropped in a loop while a request is
over a byte budget; a store read handed a `WINDOW_SIZE`. Each with its near misses: a queue
drained to empty, a list never sent, a half cut once outside a loop."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_POP_FRONT = (
    "export class User {\n"
    "  async ask(question: string) {\n"
    "    const conversation = this.currentConversation\n"
    "    const messages = [{ role: 'system', content: conversation.prefix }]\n"
    "    conversation.data.forEach(([q, a]) => {\n"
    "      messages.push({ role: 'user', content: q })\n"
    "      messages.push({ role: 'assistant', content: a })\n"
    "    })\n"
    "    messages.push({ role: 'user', content: question })\n"
    "    const res = await this.gpt.chatCompletion({ messages })\n"
    "    conversation.data.push([question, res.text])\n"
    "    if (res.usage.prompt_tokens >= setting.maxPrompts) {\n"
    "      conversation.data.shift()\n"
    "    }\n"
    "    return res.text\n"
    "  }\n"
    "}\n"
)


def test_a_replayed_list_shifted_once_over_a_token_bound_is_reported() -> None:
    assert lines_of(_POP_FRONT, "PL303", "user.ts") == [13]


def test_a_list_never_replayed_is_no_window() -> None:
    # The pairs are kept but never walked into the request's messages.
    quiet = _POP_FRONT.replace(
        "    conversation.data.forEach(([q, a]) => {\n"
        "      messages.push({ role: 'user', content: q })\n"
        "      messages.push({ role: 'assistant', content: a })\n"
        "    })\n",
        "",
    )
    assert lines_of(quiet, "PL303", "user.ts") == []


_DEPTH = (
    "export class Bot {\n"
    "  private _messageDepth = 10\n"
    "  private messageQueue: Message[] = []\n"
    "  private systemMessages: Message[] = []\n"
    "  get messages() {\n"
    "    return [...this.systemMessages, ...this.messageQueue]\n"
    "  }\n"
    "  private add(message: Message): void {\n"
    "    this.messageQueue.push(message)\n"
    "    while (this.messageQueue.filter((m) => m.role === 'user').length > this._messageDepth) {\n"
    "      this.messageQueue.shift()\n"
    "    }\n"
    "  }\n"
    "}\n"
)


def test_a_queue_kept_to_a_depth_and_sent_after_the_system_messages_is_reported() -> None:
    assert lines_of(_DEPTH, "PL303", "bot.ts") == [11]


def test_a_queue_drained_to_empty_is_no_window() -> None:
    drained = _DEPTH.replace(
        "while (this.messageQueue.filter((m) => m.role === 'user').length > this._messageDepth)",
        "while (this.messageQueue.length > 0)",
    )
    assert lines_of(drained, "PL303", "bot.ts") == []


_HALVED = (
    "const MAX_REQUEST_BYTES = 100000\n"
    "export function transform(options: any, model: string) {\n"
    "  let msgs = options.messages || []\n"
    "  while (JSON.stringify({ model, messages: msgs }).length > MAX_REQUEST_BYTES) {\n"
    "    msgs = msgs.slice(Math.floor(msgs.length / 2))\n"
    "  }\n"
    "  options.messages = msgs\n"
    "  return options\n"
    "}\n"
)


def test_the_older_half_dropped_while_over_a_byte_budget_is_reported() -> None:
    assert lines_of(_HALVED, "PL303", "transform.ts") == [5]


def test_a_half_taken_once_outside_a_loop_is_not_this_window() -> None:
    once = _HALVED.replace(
        "  while (JSON.stringify({ model, messages: msgs }).length > MAX_REQUEST_BYTES) {\n"
        "    msgs = msgs.slice(Math.floor(msgs.length / 2))\n"
        "  }\n",
        "  const pages = msgs.slice(Math.floor(msgs.length / 2))\n  console.log(pages)\n",
    )
    assert lines_of(once, "PL303", "transform.ts") == []


_WINDOWED = (
    "import OpenAI from 'openai'\n"
    "const openai = new OpenAI()\n"
    "const WINDOW_SIZE = 10\n"
    "export async function reply(conversationId, m) {\n"
    "  const history = getConversationHistory(conversationId, WINDOW_SIZE)\n"
    "  const res = await openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{ role: 'system', content: S }, ...history, { role: 'user', content: m }],\n"
    "  })\n"
    "  return res.choices[0].message.content\n"
    "}\n"
)


def test_a_conversation_loaded_with_a_window_size_is_reported() -> None:
    assert lines_of(_WINDOWED, "PL303", "chat.js") == [5]


def test_a_window_size_handed_to_a_call_not_named_for_the_history_is_not() -> None:
    resized = _WINDOWED.replace("getConversationHistory", "resizePanel")
    assert lines_of(resized, "PL303", "chat.js") == []


_PRIMED = (
    "import { GoogleGenAI } from '@google/genai'\n"
    "const client = new GoogleGenAI({})\n"
    "export async function answer(question: string, context: string, history: Turn[]) {\n"
    "  return client.models.generateContentStream({\n"
    "    model: 'gemini-2.5-flash',\n"
    "    config: { systemInstruction: PROMPT },\n"
    "    contents: [\n"
    "      ...(context\n"
    "        ? [\n"
    "            { role: 'user' as const, parts: [{ text: `Context:\\n${context}` }] },\n"
    "            { role: 'model' as const, parts: [{ text: 'Understood.' }] },\n"
    "          ]\n"
    "        : []),\n"
    "      ...history,\n"
    "      { role: 'user', parts: [{ text: question }] },\n"
    "    ],\n"
    "  })\n"
    "}\n"
)


def test_retrieved_context_sent_as_a_turn_ahead_of_the_history_is_reported() -> None:
    assert lines_of(_PRIMED, "PL304", "gemini.ts") == [10]


def test_a_fixed_primer_turn_ahead_of_the_history_is_not() -> None:
    fixed = _PRIMED.replace("`Context:\\n${context}`", "'Answer from the documents.'")
    assert lines_of(fixed, "PL304", "gemini.ts") == []


def test_retrieved_context_after_the_history_is_not() -> None:
    after = _PRIMED.replace("      ...history,\n", "").replace(
        "    contents: [\n", "    contents: [\n      ...history,\n"
    )
    assert lines_of(after, "PL304", "gemini.ts") == []


_FIRST_ONLY = (
    "import OpenAI from 'openai'\n"
    "export class Service {\n"
    "  private openai = new OpenAI()\n"
    "  private isFirstRequest = true\n"
    "  readonly systemMessage = { role: 'system', content: 'You are kind.' }\n"
    "  generateChat(messages: any) {\n"
    "    const target = this.isFirstRequest ? [this.systemMessage, ...messages] : [...messages]\n"
    "    this.isFirstRequest = false\n"
    "    return this.openai.chat.completions.create({ messages: target, model: 'gpt-4o' })\n"
    "  }\n"
    "}\n"
)


def test_a_system_message_sent_only_on_the_first_request_is_reported() -> None:
    assert lines_of(_FIRST_ONLY, "PL303", "service.ts") == [7]


def test_a_system_message_chosen_by_a_flag_never_cleared_is_not_this_shape() -> None:
    kept = _FIRST_ONLY.replace("    this.isFirstRequest = false\n", "")
    assert lines_of(kept, "PL303", "service.ts") == []


_FLATTENED = (
    "export function sanitize(rawMessages: any[]) {\n"
    "  const kept = new Set<string>()\n"
    "  for (let i = rawMessages.length - 1; i >= 0; i--) {\n"
    "    for (const part of rawMessages[i].content) {\n"
    "      if (part.type === 'tool-call' && !kept.has(part.toolName)) kept.add(part.toolCallId)\n"
    "    }\n"
    "  }\n"
    "  const out: any[] = []\n"
    "  for (const msg of rawMessages) {\n"
    "    const parts: any[] = []\n"
    "    for (const part of msg.content) {\n"
    "      if (kept.has(part.toolCallId)) {\n"
    "        parts.push({ type: 'tool-call', toolCallId: part.toolCallId, args: part.args })\n"
    "      } else {\n"
    "        parts.push({ type: 'text', text: `[called ${part.toolName}]` })\n"
    "      }\n"
    "    }\n"
    "    out.push({ role: msg.role, content: parts })\n"
    "  }\n"
    "  return out\n"
    "}\n"
)


def test_older_tool_calls_flattened_to_text_while_the_newest_are_kept_is_reported() -> None:
    assert lines_of(_FLATTENED, "PL303", "compress.ts") == [15]


def test_tool_calls_flattened_by_a_plain_flag_are_not_this_shape() -> None:
    # A model without tool support: the same choice on every turn of the conversation.
    flag = _FLATTENED.replace("if (kept.has(part.toolCallId)) {", "if (supportsTools) {")
    assert lines_of(flag, "PL303", "compress.ts") == []


_SIZE_BUDGET = (
    "async function buildConversation(sessionId, question) {\n"
    "  const prompt = []\n"
    "  for (const m of await MsgTable.where({ sessionId }).find()) {\n"
    "    prompt.push({ role: 'user', content: m.question })\n"
    "    prompt.push({ role: 'assistant', content: m.answer })\n"
    "  }\n"
    "  prompt.push({ role: 'user', content: question })\n"
    "  return prompt\n"
    "}\n"
    "async function discardConversation(sessionId) {\n"
    "  let totalSize = 0\n"
    "  const rows = await MsgTable.where({ sessionId }).sort({ createdAt: -1 }).find()\n"
    "  for (const row of rows) {\n"
    "    totalSize += row.msgSize\n"
    "    if (totalSize > OPENAI_MAX_TOKEN) {\n"
    "      await MsgTable.where({ _id: row._id }).delete()\n"
    "    }\n"
    "  }\n"
    "}\n"
)


def test_stored_messages_deleted_past_a_size_budget_are_reported() -> None:
    assert lines_of(_SIZE_BUDGET, "PL303", "event.js") == [16]


def test_a_cache_entry_evicted_by_its_key_is_not() -> None:
    evicted = _SIZE_BUDGET.replace(
        "await MsgTable.where({ _id: row._id }).delete()", "cache.delete(row._id)"
    )
    assert lines_of(evicted, "PL303", "event.js") == []


_REPLY_CHAIN = (
    "export async function getConversationHistory(chatId: number, start: Message) {\n"
    "  const history: Turn[] = []\n"
    "  let current: Message | null = start\n"
    "  const HISTORY_DEPTH_LIMIT = 15\n"
    "  while (current && history.length < HISTORY_DEPTH_LIMIT) {\n"
    "    history.unshift({ role: current.from?.is_bot ? 'model' : 'user', text: current.text })\n"
    "    current = current.reply_to_message ?? null\n"
    "  }\n"
    "  return history\n"
    "}\n"
)


def test_a_reply_chain_collected_back_to_a_depth_is_reported() -> None:
    assert lines_of(_REPLY_CHAIN, "PL303", "db.ts") == [6]


def test_a_reply_chain_walked_to_its_start_is_not() -> None:
    whole = _REPLY_CHAIN.replace(
        "while (current && history.length < HISTORY_DEPTH_LIMIT)", "while (current)"
    )
    assert lines_of(whole, "PL303", "db.ts") == []
