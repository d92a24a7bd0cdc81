"""Shapes real9 missed or misread (made general after real9 became development data): a
framework's history store or builder configured with a message cap, a window cut at the end of
an order-keeping chain over the history, a running summary written into the system prompt (both
languages); and, against false findings, a filter that picks one role's messages, a slice from
where this turn began, an entry of a record named for hours, and a minified bundle too deep to
read. Each test is fresh code in the real shape with a case that must stay silent."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.engine import MINIFIED_LINE, lint_file, lint_source


def _codes(text: str, path: str = "chat.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, path)]


def test_python_a_history_provider_configured_with_a_message_cap() -> None:
    # The store hands the agent only its newest messages; reported at the cap. A queue read
    # with `max_messages`, an agent loop's `max_turns`, a cap forwarded from the caller and a
    # cap of None are no window of a history.
    src = (
        "store = SqlHistoryStore(url=DB, max_messages=12)\n"
        "memory = WindowedChatMemory(k=4)\n"
        "win = ConversationWindowMemory(k=4)\n"
        "msgs = compose_messages_with_history(\n"
        "    system=PROMPT,\n"
        "    history=past,\n"
        "    max_history_messages=8,\n"
        ")\n"
        "batch = subscriber.pull(max_messages=50)\n"
        "team = RoundRobinGroupChat(agents, max_turns=5)\n"
        "def make(max_messages=None):\n"
        "    return SqlHistoryStore(url=DB, max_messages=max_messages)\n"
        "whole = SqlHistoryStore(url=DB, max_messages=None)\n"
        "sized = SqlHistoryStore(url=DB, max_message_length=2000)\n"
    )
    assert _codes(src, "agent.py") == [(1, "PL303"), (3, "PL303"), (7, "PL303")]


def test_a_window_cut_at_the_end_of_a_chain_over_the_history() -> None:
    # Reported at `.slice`, where the chain cuts. The same chain over a list of orders, and a
    # filter that keeps one role's messages to mark them, cut no history.
    src = (
        "async function load(store, id) {\n"
        "  const storedMessages = await store.list(id);\n"
        "  const recentMessages = storedMessages\n"
        "    .filter((m) => m.role === 'user' || m.role === 'assistant')\n"
        "    .map((m) => ({ role: m.role, content: m.content }))\n"
        "    .slice(-16);\n"
        "  const lastOrders = orders.filter((o) => o.open).slice(-16);\n"
        "  const lastTwo = recentMessages.filter((m) => m.role === 'user').slice(-2);\n"
        "  return [recentMessages, lastOrders, lastTwo];\n"
        "}\n"
    )
    assert _codes(src, "history.ts") == [(6, "PL303")]


def test_a_slice_from_where_this_turn_began_is_no_window() -> None:
    # The messages this turn added are the newest ones; a start kept in `cutIndex` moves.
    src = (
        "function collect(result, turnStart, cutIndex) {\n"
        "  const added = result.messages.slice(turnStart);\n"
        "  const kept = result.messages.slice(cutIndex);\n"
        "  return { added, kept };\n"
        "}\n"
    )
    assert _codes(src, "turn.ts") == [(3, "PL303")]


def test_a_running_summary_written_into_the_system_prompt() -> None:
    # The conversation's summary opens the system prompt; a summary of the tools does not
    # change as the chat goes on.
    src = (
        "export async function answer(input: { summary?: string }, messages: Msg[]) {\n"
        "  const base = await loadPersona();\n"
        "  const systemPrompt = input.summary\n"
        "    ? `Earlier in this chat: ${input.summary}\\n\\n${base}`\n"
        "    : base;\n"
        "  return streamText({ model, system: systemPrompt, messages });\n"
        "}\n"
        "export async function tools(toolSummary: string, messages: Msg[]) {\n"
        "  const systemPrompt = `You can use: ${toolSummary}`;\n"
        "  return streamText({ model, system: systemPrompt, messages });\n"
        "}\n"
    )
    assert _codes(src, "runner.ts") == [(4, "PL303")]


def test_python_a_running_summary_written_into_the_system_prompt() -> None:
    # In the system message it moves the prefix at each new summary; as the first user
    # message after the system prompt it is where a summary belongs, and a skills summary is
    # fixed text.
    src = (
        "def build(history, conversation_summary, skills_summary):\n"
        "    system = f'You help.\\nSo far: {conversation_summary}\\n{skills_summary}'\n"
        "    return [{'role': 'system', 'content': system}, *history]\n"
        "def build_after(history, conversation_summary):\n"
        "    note = {'role': 'user', 'content': f'Summary: {conversation_summary}'}\n"
        "    return [{'role': 'system', 'content': 'You help.'}, note, *history]\n"
    )
    assert _codes(src, "context.py") == [(2, "PL303")]


def test_an_upper_case_summary_is_the_summarisers_own_prompt() -> None:
    # `prompts.SUMMARY` is the summariser's instructions, fixed text, not a running summary
    # (real10's coordinator service); the side request itself is PL305's to report.
    ts = (
        "export async function turn(state: State, messages: Msg[]) {\n"
        "  return llm.chat([{ role: 'system', content: prompts.SUMMARY }, ...messages])\n"
        "}\n"
    )
    py = (
        "def turn(history, cfg):\n"
        "    system = f'You help.\\n{cfg.SUMMARY}'\n"
        "    return [{'role': 'system', 'content': system}, *history]\n"
        "def running(history, cfg):\n"
        "    system = f'You help.\\n{cfg.summary}'\n"
        "    return [{'role': 'system', 'content': system}, *history]\n"
    )
    assert _codes(ts, "coordinator.ts") == []
    assert _codes(py, "coordinator.py") == [(5, "PL303")]


def test_an_entry_of_a_record_named_for_hours_is_no_clock() -> None:
    # `shop.hours.monday` is a schedule's text; `hours` itself still reads as a time.
    src = (
        "function build(shop, hours) {\n"
        "  const systemPrompt = `Open: ${shop.hours.monday}.`;\n"
        "  const systemNote = `Hours now: ${hours}.`;\n"
        "  return [systemPrompt, systemNote];\n"
        "}\n"
    )
    assert [c for _, c in _codes(src, "shop.js")] == ["PL101"]
    assert _codes(src, "shop.js")[0][0] == 3


def test_a_minified_bundle_past_a_bound_is_no_finding(tmp_path: Path) -> None:
    # Past its time budget a hand-written file is a PL906 notice; the same code as a bundle
    # whose lines a minifier wrote is generated, and a notice about it is no finding.
    funcs = [f"function f{i}(x) {{ return x + {i}; }}" for i in range(20_000)]
    hand = tmp_path / "hand.js"
    hand.write_text("\n".join(funcs) + "\n")
    bundle = tmp_path / "bundle.js"
    bundle.write_text("/* bundle */\n" + "".join(funcs) + "\n")
    assert len(bundle.read_text().splitlines()[1]) >= MINIFIED_LINE
    found, _ = lint_file(str(hand), "js", None, time_s=0.05)
    assert [f.code for f in found] == ["PL906"]
    assert lint_file(str(bundle), "js", None, time_s=0.05) == ([], 0)


def test_python_a_parameter_named_for_retrieved_content_in_the_system_prompt() -> None:
    # The memories found for this request, one line each, in the text a system-prompt builder
    # returns; the user's profile context and a list of rules are set once.
    src = (
        "class Context:\n"
        "    def build_system_prompt(self, memories, profile_context, rules):\n"
        "        parts = ['You help.', profile_context]\n"
        "        for rule in rules:\n"
        "            parts.append(f'* {rule}')\n"
        "        for memory in memories:\n"
        "            parts.append(f'- {memory}')\n"
        "        return '\\n'.join(parts)\n"
    )
    assert _codes(src, "context.py") == [(7, "PL304")]


def test_a_prompt_picked_by_mode_ahead_of_its_default() -> None:
    # `PROMPTS[mode] || PROMPTS.plain`: the choice is the mode's; a prompt picked by a fixed
    # key with the same default is one prompt.
    src = (
        "const PROMPTS = { plain: 'Be plain.', pirate: 'Talk like a pirate.' };\n"
        "function systemFor(channel) {\n"
        "  const mode = modes.get(channel);\n"
        "  const modePrompt = PROMPTS[mode] || PROMPTS.plain;\n"
        "  const basePrompt = PROMPTS['plain'] || 'Be plain.';\n"
        "  return [modePrompt, basePrompt];\n"
        "}\n"
    )
    assert _codes(src, "bot.js") == [(4, "PL302")]


def test_retrieved_content_appended_before_the_history_a_statement_at_a_time() -> None:
    # The memories found for this message are added to the text before the recent turns are;
    # added after them, they sit next to the newest message, where they belong.
    src = (
        "class Agent {\n"
        "  build(message: string, memoryContext: string): string {\n"
        "    let prompt = 'You help.\\n';\n"
        "    prompt += `${memoryContext}\\n`;\n"
        "    this.chatHistory.forEach((m) => {\n"
        "      prompt += `${m.role}: ${m.content}\\n`;\n"
        "    });\n"
        "    return prompt + message;\n"
        "  }\n"
        "  after(message: string, memoryContext: string): string {\n"
        "    let text = 'You help.\\n';\n"
        "    for (const m of this.chatHistory) text += `${m.role}: ${m.content}\\n`;\n"
        "    text += `${memoryContext}\\n`;\n"
        "    return text + message;\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "agent.ts") == [(4, "PL304")]


def test_a_section_of_the_system_prompt_looked_up_by_mode() -> None:
    # One section of the system prompt is the mode's note; a section looked up by the shop's
    # region (set once per deployment) is no mode.
    src = (
        "const NOTES = { ask: 'Ask one question.', inform: 'Give prices.' };\n"
        "function build(replyMode, region) {\n"
        "  const systemPrompt = `You sell bikes.\\n${NOTES[replyMode] || NOTES.inform}`;\n"
        "  const systemNote = `Region rules: ${NOTES[region] || NOTES.inform}`;\n"
        "  return [systemPrompt, systemNote];\n"
        "}\n"
    )
    assert _codes(src, "formatter.js") == [(3, "PL302")]


def test_a_window_memory_and_stores_read_back_to_a_count() -> None:
    # A window memory, a messages collection read newest first and cut, and a store call for
    # the messages with a `limit`; a memory kept whole, a collection of users, an unsorted page
    # and another store call with a limit are no windows.
    src = (
        "const memory = new BufferWindowMemory({ k: 5, memoryKey: 'chat_history' });\n"
        "const whole = new BufferMemory({ memoryKey: 'chat_history' });\n"
        "async function recent(db, store, chatId) {\n"
        "  const rows = await db.collection('messages').find({ chatId })"
        ".sort({ at: -1 }).limit(20).toArray();\n"
        "  const users = await db.collection('users').find({}).sort({ name: 1 }).limit(20);\n"
        "  const page = await db.messages.find({ chatId }).limit(20);\n"
        "  const stored = await store.getMessages(chatId, { limit: 20 });\n"
        "  const orders = await store.getOrders(chatId, { limit: 20 });\n"
        "  return [rows, users, page, stored, orders];\n"
        "}\n"
    )
    assert _codes(src, "store.ts") == [(1, "PL303"), (4, "PL303"), (7, "PL303")]


def test_python_a_store_read_newest_first_to_a_count_and_a_repository_window() -> None:
    # pymongo's newest-first read of the messages, and a repository class returning the last
    # messages of one conversation; users, an unsorted page, one message's text cut by
    # position and a price repository are not conversations cut.
    src = (
        "def recent(db, chat_id):\n"
        "    rows = list(db.messages.find({'chat': chat_id}).sort('ts', -1).limit(20))\n"
        "    users = list(db.users.find({}).sort('name', 1).limit(20))\n"
        "    page = list(db['chat_messages'].find({'chat': chat_id}).limit(20))\n"
        "    return rows, users, page\n"
        "class ConversationRepository:\n"
        "    def recent(self, cid, n):\n"
        "        return self.messages[cid][-n:]\n"
        "    def tail_of_one(self, i, n):\n"
        "        return self.messages[i][-n:]\n"
        "class PriceRepository:\n"
        "    def recent(self, cid, n):\n"
        "        return self.prices[cid][-n:]\n"
    )
    assert _codes(src, "store.py") == [(2, "PL303"), (8, "PL303")]


def test_python_messages_dropped_when_a_request_overflows() -> None:
    # The overflowing request is resent without its oldest messages; catching the error and
    # giving up keeps the history whole.
    src = (
        "import openai\n"
        "def ask(client, messages):\n"
        "    try:\n"
        "        return client.chat.completions.create(model='m', messages=messages)\n"
        "    except openai.BadRequestError as e:\n"
        "        if 'context_length_exceeded' in str(e):\n"
        "            messages.pop(1)\n"
        "            return client.chat.completions.create(model='m', messages=messages)\n"
        "        raise\n"
        "def ask_once(client, messages):\n"
        "    try:\n"
        "        return client.chat.completions.create(model='m', messages=messages)\n"
        "    except openai.BadRequestError as e:\n"
        '        if "maximum context length" in str(e):\n'
        "            return 'too long'\n"
        "        raise\n"
        "    except:\n"
        "        messages.pop(1)\n"
        "        raise\n"
    )
    assert _codes(src, "ask.py") == [(7, "PL303")]


def test_messages_dropped_when_a_request_overflows() -> None:
    # A catch that cuts the history on a context-length error, and a retry strategy that
    # truncates the request; a catch that gives up, and another retry strategy, cut nothing.
    src = (
        "async function ask(client, messages) {\n"
        "  try {\n"
        "    return await client.chat(messages);\n"
        "  } catch (err) {\n"
        "    if (/context length/i.test(err.message)) {\n"
        "      messages.splice(1, 4);\n"
        "      return client.chat(messages);\n"
        "    }\n"
        "    throw err;\n"
        "  }\n"
        "}\n"
        "async function askOnce(client, messages) {\n"
        "  try {\n"
        "    return await client.chat(messages);\n"
        "  } catch (err) {\n"
        "    if (err.code === 'context_length_exceeded') return 'too long';\n"
        "    throw err;\n"
        "  }\n"
        "}\n"
        "const strategies = [\n"
        "  createAutoTruncateStrategy({ truncate: (p) => autoTruncateBody(p) }),\n"
        "  createNetworkRetryStrategy(),\n"
        "];\n"
    )
    assert _codes(src, "handler.ts") == [(6, "PL303"), (21, "PL303")]


def test_one_message_removed_by_its_id_is_no_rewrite() -> None:
    # Taking one message out by its id (a deleted message, a typing placeholder) is an edit;
    # dropping every tool message from the kept history rewrites its past.
    src = (
        "function remove(state, id) {\n"
        "  state.messages = state.messages.filter((m) => m.id !== id);\n"
        "}\n"
        "function prune(state) {\n"
        "  state.messages = state.messages.filter((m) => m.role !== 'tool');\n"
        "}\n"
    )
    assert _codes(src, "chatSlice.ts") == [(5, "PL303")]


def test_a_builder_of_the_user_turn_is_no_prefix() -> None:
    # `finalPrompt` builds only the user message of a final pass (its length logged); the
    # request written into a builder whose text is also a system message is in the prefix.
    src = (
        "const finalPrompt = (input: { userMessage: string }) =>\n"
        "  `USER MESSAGE:\\n${input.userMessage}`;\n"
        "const notePrompt = (input: { userMessage: string }) =>\n"
        "  `Asked: ${input.userMessage}`;\n"
        "export async function run(client, system, userMessage, history) {\n"
        "  const finalUserPrompt = finalPrompt({ userMessage });\n"
        "  log(finalUserPrompt.length);\n"
        "  await client.create({ messages: [\n"
        "    { role: 'system', content: system },\n"
        "    { role: 'user', content: finalUserPrompt },\n"
        "  ] });\n"
        "  return client.create({ messages: [\n"
        "    { role: 'system', content: notePrompt({ userMessage }) },\n"
        "    ...history,\n"
        "  ] });\n"
        "}\n"
    )
    found = lint_source(src, "engine.ts")
    assert found and all(f.code == "PL304" and "`notePrompt()`" in f.message for f in found)
