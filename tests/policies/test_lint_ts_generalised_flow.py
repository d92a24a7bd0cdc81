"""TypeScript rules written for code not yet seen (the sixth pass): what a function of the same
file does is read from its body and its callers, not guessed from its name, and the other SDKs'
spellings of a conversation are followed like `messages`. A helper named like a request whose
body asks no model is no request; a history cut a helper returns is a window where its call is
sent as the history; Gemini's `systemInstruction` and the Responses API's `instructions` head
the turns sent after them; every leading system message heads the history; a builder's
parameter that its caller fills from the request is that request's content; a LangChain.js
template's system slot filled from the human slot's value; and no window is read in a test's
body or in a capped list of records. Each test has twins that must keep their old result."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes

_ONE_SHOT = (
    "import OpenAI from 'openai'\n"
    "const client = new OpenAI()\n"
    "export async function generateAnswer(prompt: string) {\n"
    "  const text = buildContextualPrompt(prompt)\n"
    "  const out = await client.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{ role: 'system', content: 'Help.' }, { role: 'user', content: text }],\n"
    "  })\n"
    "  const content = out.choices[0].message.content ?? ''\n"
    "  return { content, more: generateFollowUps(content) }\n"
    "}\n"
    "function buildContextualPrompt(prompt: string): string {\n"
    "  return `Time: ${new Date().toISOString()}\\n${prompt}`\n"
    "}\n"
    "function generateFollowUps(content: string): string[] {\n"
    "  return content.split('\\n').filter((l) => l.endsWith('?'))\n"
    "}\n"
)


def test_a_helper_named_for_asking_that_asks_nothing_is_no_request() -> None:
    # The only request is a fresh system and user pair; the helper splits text.
    assert _codes(_ONE_SHOT, "client.ts") == []


def test_a_helper_that_asks_a_model_is_still_a_request() -> None:
    asks = _ONE_SHOT.replace(
        "  return content.split('\\n').filter((l) => l.endsWith('?'))\n",
        "  return chatWith(history, content)\n",
    )
    assert (13, "PL101") in _codes(asks, "client.ts")
    # One that posts to a server may ask a model there.
    posts = _ONE_SHOT.replace(
        "  return content.split('\\n').filter((l) => l.endsWith('?'))\n",
        "  return fetch('/api/more', { method: 'POST', body: content })\n",
    )
    assert (13, "PL101") in _codes(posts, "client.ts")
    # A helper defined in another file is not read: its name still counts.
    elsewhere = _ONE_SHOT.split("function generateFollowUps")[0]
    assert (13, "PL101") in _codes(elsewhere, "client.ts")


def test_a_method_read_through_this() -> None:
    src = (
        "import OpenAI from 'openai'\n"
        "class Helper {\n"
        "  client = new OpenAI()\n"
        "  async answer(q: string) {\n"
        "    const messages = [{ role: 'system', content: `Now: ${new Date().toISOString()}` },\n"
        "      { role: 'user', content: q }]\n"
        "    const out = await this.client.chat.completions.create({ model: 'gpt-4o', messages })\n"
        "    return this.generateSummary(out.choices[0].message.content ?? '')\n"
        "  }\n"
        "  generateSummary(text: string): string {\n"
        "    return text.slice(0, 200)\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "helper.ts") == []
    # The same method asking the model with the conversation: a request of it.
    asks = src.replace(
        "    return text.slice(0, 200)\n",
        "    return this.client.chat.completions.create({ model: 'gpt-4o', messages: this.log })\n",
    )
    assert (5, "PL101") in _codes(asks, "helper.ts")


_HELPER_WINDOW = (
    "import OpenAI from 'openai'\n"
    "const openai = new OpenAI()\n"
    "function lastTurns(h: Msg[]) {\n"
    "  return h.slice(-8)\n"
    "}\n"
    "export async function reply(history: Msg[], text: string) {\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{ role: 'system', content: 'x' }, ...lastTurns(history),\n"
    "      { role: 'user', content: text }],\n"
    "  })\n"
    "}\n"
)


def test_a_window_returned_by_a_helper_and_sent_as_the_history() -> None:
    assert _codes(_HELPER_WINDOW, "chat.ts") == [(4, "PL303")]
    # An arrow function bound to a name, its call bound to a local that is spread.
    arrow = (
        "const tail = (h: Msg[], n = 6) => h.slice(-n)\n"
        "export async function reply(client: Client, history: Msg[]) {\n"
        "  const recent = tail(history)\n"
        "  return client.chat.completions.create({\n"
        "    model: 'm', messages: [{ role: 'system', content: 'x' }, ...recent] })\n"
        "}\n"
    )
    assert _codes(arrow, "chat.ts") == [(1, "PL303")]


def test_a_cut_returned_by_a_helper_but_not_sent_as_history_is_quiet() -> None:
    # The helper's result is written as text (an id's last characters): no message list.
    text = (
        _HELPER_WINDOW.replace("...lastTurns(history),", "")
        .replace("content: text }", "content: `${lastTurns(requestId)}` }")
        .replace("history: Msg[], text", "requestId")
        .replace("lastTurns", "tailOf")  # a name for turns is a conversation's text (PL305)
    )
    assert _codes(text, "chat.ts") == []
    # Its call feeds a title request: a side task's recent turns, not the history.
    titled = (
        "function lastTurns(h: Msg[]) {\n"
        "  return h.slice(-8)\n"
        "}\n"
        "export async function generateTitle(client: Client, history: Msg[]) {\n"
        "  return client.chat.completions.create({\n"
        "    model: 'm',\n"
        "    messages: [{ role: 'system', content: 'Title it' }, ...lastTurns(history)] })\n"
        "}\n"
    )
    assert _codes(titled, "chat.ts") == []
    # A helper nobody in the file calls: where it goes is not seen.
    uncalled = _HELPER_WINDOW.replace("...lastTurns(history),", "...history,")
    assert _codes(uncalled, "chat.ts") == []


_GEMINI_CHAT = (
    "import { GoogleGenerativeAI } from '@google/generative-ai'\n"
    "const genAI = new GoogleGenerativeAI(process.env.KEY!)\n"
    "export async function reply(history: Turn[], text: string, memory: Memory) {\n"
    "  const recalled = await memory.search(text)\n"
    "  const model = genAI.getGenerativeModel({\n"
    "    model: 'gemini-1.5-flash',\n"
    "    systemInstruction: `You are a friend. You remember: ${recalled.join('; ')}`,\n"
    "  })\n"
    "  const chat = model.startChat({ history })\n"
    "  const r = await chat.sendMessage(text)\n"
    "  return r.response.text()\n"
    "}\n"
)


def test_gemini_system_instruction_made_from_the_newest_turn() -> None:
    # What is recalled for the turn sent by `sendMessage` heads the chat's history.
    assert _codes(_GEMINI_CHAT, "gemini.ts") == [(7, "PL304")]
    # The same request in one call, with the config's instruction and the turns as contents.
    one_call = (
        "import { GoogleGenAI } from '@google/genai'\n"
        "const ai = new GoogleGenAI({})\n"
        "export async function reply(history: Turn[], input: string, index: Index) {\n"
        "  const hits = await index.lookup(input)\n"
        "  const res = await ai.models.generateContent({\n"
        "    model: 'gemini-2.5-flash',\n"
        "    contents: [...history, { role: 'user', parts: [{ text: input }] }],\n"
        "    config: { systemInstruction: `Answer from: ${hits}` },\n"
        "  })\n"
        "  return res.text\n"
        "}\n"
    )
    assert _codes(one_call, "gemini.ts") == [(8, "PL304")]


def test_gemini_near_misses_stay_quiet() -> None:
    # A fixed instruction, or one made from the character the caller set for the chat.
    fixed = _GEMINI_CHAT.replace("${recalled.join('; ')}", "only kind things")
    assert _codes(fixed, "gemini.ts") == []
    persona = _GEMINI_CHAT.replace("${recalled.join('; ')}", "${memory.name}")
    assert _codes(persona, "gemini.ts") == []
    # A fresh chat for one message: no earlier turn is sent after the instruction.
    fresh = _GEMINI_CHAT.replace("startChat({ history })", "startChat({ history: [] })")
    assert _codes(fresh, "gemini.ts") == []
    # One prompt sent as the contents, no history: a one-shot request.
    one_shot = (
        "import { GoogleGenAI } from '@google/genai'\n"
        "const ai = new GoogleGenAI({})\n"
        "export async function answer(prompt: string, index: Index) {\n"
        "  const hits = await index.lookup(prompt)\n"
        "  const res = await ai.models.generateContent({\n"
        "    model: 'gemini-2.5-flash',\n"
        "    contents: prompt,\n"
        "    config: { systemInstruction: `Answer from: ${hits}` },\n"
        "  })\n"
        "  return res.text\n"
        "}\n"
    )
    assert _codes(one_shot, "gemini.ts") == []


_LC_TEMPLATE = (
    "import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts'\n"
    "const prompt = ChatPromptTemplate.fromMessages([\n"
    "  ['system', 'You are {name}. Answer using:\\n{context}'],\n"
    "  new MessagesPlaceholder('history'),\n"
    "  ['human', '{input}'],\n"
    "])\n"
    "export async function answer(input: string, history: Msg[], retriever: R, llm: L) {\n"
    "  const docs = await retriever.invoke(input)\n"
    "  const chain = prompt.pipe(llm)\n"
    "  return chain.invoke({ name: 'Ada', context: docs.join('\\n'), history, input })\n"
    "}\n"
)


def test_a_chat_template_system_slot_filled_from_the_newest_message() -> None:
    # What the retriever found for the human slot's value heads the replayed history.
    assert _codes(_LC_TEMPLATE, "rag.ts") == [(10, "PL304")]
    # The system template spelt as a class, the template filled directly.
    spelt = _LC_TEMPLATE.replace(
        "['system', 'You are {name}. Answer using:\\n{context}']",
        "SystemMessagePromptTemplate.fromTemplate('Answer using:\\n{context}')",
    ).replace("chain.invoke(", "prompt.formatMessages(")
    assert _codes(spelt, "rag.ts") == [(10, "PL304")]


def test_chat_template_near_misses_stay_quiet() -> None:
    # The slot filled from the caller's settings for the conversation.
    settled = _LC_TEMPLATE.replace("context: docs.join('\\n')", "context: settings.guide")
    assert _codes(settled, "rag.ts") == []
    # No history after the system message: a one-shot question.
    one_shot = _LC_TEMPLATE.replace("  new MessagesPlaceholder('history'),\n", "")
    assert _codes(one_shot, "rag.ts") == []
    # The retrieved text in the human message's own slot: the newest turn, where it belongs.
    in_turn = _LC_TEMPLATE.replace("Answer using:\\n{context}'", "Answer.'").replace(
        "['human', '{input}']", "['human', '{context}\\n{input}']"
    )
    assert _codes(in_turn, "rag.ts") == []


def test_a_window_inside_a_test_callback_is_no_breaker() -> None:
    src = (
        "describe('chat history', () => {\n"
        "  it('keeps the newest', async () => {\n"
        "    const page = await client.getHistory({ limit: 50 })\n"
        "    const recent = history.slice(-10)\n"
        "    expect(recent.length).toBe(10)\n"
        "  })\n"
        "})\n"
        "export function contextFor(history: Msg[]) {\n"
        "  return history.slice(-10)\n"
        "}\n"
    )
    # The product code beside the test keeps its finding; the test's own cuts are assertions.
    assert _codes(src, "history.ts") == [(9, "PL303")]


_METRICS = (
    "export class Monitor {\n"
    "  private metricsHistory: Metric[] = []\n"
    "  record(cpu: number) {\n"
    "    const metrics = { timestamp: Date.now(), cpu, memory: process.memoryUsage() }\n"
    "    this.metricsHistory.push(metrics)\n"
    "    if (this.metricsHistory.length > 100) {\n"
    "      this.metricsHistory.shift()\n"
    "    }\n"
    "  }\n"
    "}\n"
)


def test_a_capped_history_of_records_is_no_conversation() -> None:
    assert _codes(_METRICS, "monitor.ts") == []
    # The same cap on a list of messages (they have a role and a text) is a window.
    chat = _METRICS.replace(
        "timestamp: Date.now(), cpu, memory: process.memoryUsage()", "role: 'user', content: text"
    ).replace("cpu: number", "text: string")
    assert (7, "PL303") in _codes(chat, "monitor.ts")
    # Items whose shape is not seen (handed in) say nothing: still a window.
    handed = _METRICS.replace(
        "    const metrics = { timestamp: Date.now(), cpu, memory: process.memoryUsage() }\n", ""
    ).replace("record(cpu: number)", "record(metrics: Metric)")
    assert (6, "PL303") in _codes(handed, "monitor.ts")


_SECOND_SYSTEM = (
    "import OpenAI from 'openai'\n"
    "const openai = new OpenAI()\n"
    "export async function reply(history: Msg[], text: string, kb: Kb) {\n"
    "  const facts = await kb.lookup(text)\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4.1',\n"
    "    messages: [\n"
    "      { role: 'system', content: 'Be brief.' },\n"
    "      { role: 'system', content: `Use: ${facts}` },\n"
    "      ...history,\n"
    "      { role: 'user', content: text },\n"
    "    ],\n"
    "  })\n"
    "}\n"
)


def test_every_leading_system_message_heads_the_history() -> None:
    assert _codes(_SECOND_SYSTEM, "chat.ts") == [(9, "PL304")]
    # Put after the history, next to the newest turn, it is where it belongs.
    after = _SECOND_SYSTEM.replace(
        "      { role: 'system', content: `Use: ${facts}` },\n      ...history,\n",
        "      ...history,\n      { role: 'system', content: `Use: ${facts}` },\n",
    )
    assert _codes(after, "chat.ts") == []
    # A second fixed system message is nothing made per request.
    fixed = _SECOND_SYSTEM.replace("`Use: ${facts}`", "'Use the tools.'")
    assert _codes(fixed, "chat.ts") == []


def test_responses_api_instructions_beside_the_replayed_turns() -> None:
    src = (
        "import OpenAI from 'openai'\n"
        "const openai = new OpenAI()\n"
        "export async function reply(history: Msg[], text: string, kb: Kb) {\n"
        "  const facts = await kb.lookup(text)\n"
        "  const res = await openai.responses.create({\n"
        "    model: 'gpt-4.1',\n"
        "    instructions: `Use: ${facts}`,\n"
        "    input: [...history, { role: 'user', content: text }],\n"
        "  })\n"
        "  return res.output_text\n"
        "}\n"
    )
    assert _codes(src, "chat.ts") == [(7, "PL304")]
    # One question as the input, no earlier turns: a one-shot request.
    one_shot = src.replace("input: [...history, { role: 'user', content: text }]", "input: text")
    assert _codes(one_shot, "chat.ts") == []


_BUILDER = (
    "import OpenAI from 'openai'\n"
    "const openai = new OpenAI()\n"
    "function buildMessages(history: Msg[], text: string, notes: string) {\n"
    "  return [{ role: 'system', content: notes }, ...history, { role: 'user', content: text }]\n"
    "}\n"
    "export async function reply(history: Msg[], text: string, kb: Kb, persona: string) {\n"
    "  const facts = await kb.lookup(text)\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4.1', messages: buildMessages(history, text, facts) })\n"
    "}\n"
)


def test_a_builder_parameter_its_caller_fills_from_the_request() -> None:
    assert _codes(_BUILDER, "chat.ts") == [(4, "PL304")]
    # The caller hands the persona it was given for the conversation: nothing per request.
    settled = _BUILDER.replace(
        "buildMessages(history, text, facts)", "buildMessages(history, text, persona)"
    )
    assert _codes(settled, "chat.ts") == []
    # A builder nobody in the file calls: its caller is not seen.
    uncalled = _BUILDER.replace(
        "messages: buildMessages(history, text, facts)", "messages: history"
    )
    assert _codes(uncalled, "chat.ts") == []


_PUSHED = (
    "export async function turn(client: Client, history: Msg[], text: string) {\n"
    "  const msgs: Msg[] = []\n"
    "  msgs.push({ role: 'system', content: `Now ${new Date().toISOString()}` })\n"
    "  msgs.push(...history)\n"
    "  msgs.push({ role: 'user', content: text })\n"
    "  return client.chat.completions.create({ model: 'm', messages: msgs })\n"
    "}\n"
)


def test_a_system_message_pushed_after_the_history_heads_nothing() -> None:
    # Pushed first onto an empty list: the list's head, as before.
    assert _codes(_PUSHED, "turn.ts") == [(3, "PL101")]
    # Pushed after the history was put in: it follows the history.
    after = _PUSHED.replace(
        "  msgs.push({ role: 'system', content: `Now ${new Date().toISOString()}` })\n"
        "  msgs.push(...history)\n",
        "  msgs.push(...history)\n"
        "  msgs.push({ role: 'system', content: `Now ${new Date().toISOString()}` })\n",
    )
    assert _codes(after, "turn.ts") == []
    # Onto a stored conversation's field: appended to what it holds.
    stored = (
        "export async function note(conversation: Conversation, message: string) {\n"
        "  conversation.messages.push({ role: 'system', content: `${message} ${new Date()}` })\n"
        "  await conversation.save()\n"
        "}\n"
    )
    assert _codes(stored, "notes.ts") == []
    # Onto the instance's own list (`this.messages`): may be its first message; still read.
    own = stored.replace("conversation.messages.push", "this.messages.push")
    assert (2, "PL101") in _codes(own, "notes.ts")


def test_a_messenger_send_is_no_newest_turn() -> None:
    # `bot.sendMessage(chatId, ...)` posts the answer to a chat: the chat's id is the
    # conversation's, not this request's content.
    src = (
        "export async function onText(bot: Bot, client: Client, chatId: number, history: Msg[]) {\n"
        "  const system = `You talk in chat ${chatId}.`\n"
        "  const res = await client.chat.completions.create({\n"
        "    model: 'm', messages: [{ role: 'system', content: system }, ...history] })\n"
        "  await bot.sendMessage(chatId, res.choices[0].message.content)\n"
        "}\n"
    )
    assert _codes(src, "bot.ts") == []
    # The same call on a Gemini chat sends the newest turn.
    gemini = _GEMINI_CHAT.replace("${recalled.join('; ')}", "${text.length}")
    assert _codes(gemini, "gemini.ts") == [(7, "PL304")]


def test_a_message_emitted_to_a_client_is_no_prompt() -> None:
    # An admin's message relayed to the dashboard as a socket event: shown, not sent.
    src = (
        "exports.send = async (req, res) => {\n"
        "  const { phone, message } = req.body\n"
        "  const conversation = await Conversation.findOne({ phone })\n"
        "  io.emit('new_message', { phone, role: 'system', content: message })\n"
        "  res.json({ ok: true })\n"
        "}\n"
    )
    assert _codes(src, "relay.js") == []
    # The same text sent to a model ahead of the stored conversation is read as before.
    sent = src.replace(
        "  io.emit('new_message', { phone, role: 'system', content: message })\n",
        "  await client.chat.completions.create({ model: 'm',\n"
        "    messages: [{ role: 'system', content: message }, ...conversation.messages] })\n",
    )
    assert (5, "PL304") in _codes(sent, "relay.js")
