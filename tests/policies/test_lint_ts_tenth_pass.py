"""The tenth TypeScript pass: a request known only by its callee's name is judged by what it is
handed. A fresh system prompt and one user text (or a fresh pair of messages held in a local)
is one-shot work, so a clock or the current request in its system prompt is re-sent with no
conversation after it; a history handed beside it, or a list grown before the call, keeps
the finding. Each with the near misses that stay reported."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes, lines_of

_STEP = (
    "export async function step(state, query) {\n"
    "  const systemPrompt = `You act on pages. Now: ${new Date().toISOString()}`\n"
    "  const user = `Task: ${query}`\n"
    "  return callActionLLM(systemPrompt, user, { tenantId: state.tenantId })\n"
    "}\n"
)


def test_a_system_prompt_and_one_user_text_handed_to_a_call_is_one_shot() -> None:
    assert lines_of(_STEP, "PL101", "step.ts") == []


def test_a_history_handed_beside_the_system_prompt_keeps_the_clock_reported() -> None:
    chat = _STEP.replace(
        "callActionLLM(systemPrompt, user,", "callActionLLM(systemPrompt, history,"
    )
    assert lines_of(chat, "PL101", "step.ts") == [2]


def test_a_history_in_the_options_beside_the_system_prompt_keeps_the_clock_reported() -> None:
    chat = _STEP.replace("{ tenantId: state.tenantId }", "{ messages: state.chatMessages }")
    assert lines_of(chat, "PL101", "step.ts") == [2]


def test_one_text_handed_to_an_object_that_may_keep_the_chat_is_still_a_conversation() -> None:
    # `chat.send(prompt)`: no system prompt handed; the chat object may keep the history.
    kept = _STEP.replace(
        "callActionLLM(systemPrompt, user, { tenantId: state.tenantId })",
        "chat.send(`${systemPrompt} ${user}`)",
    )
    assert lines_of(kept, "PL101", "step.ts") == [2]


_PAIR = (
    "export async function synthesize(manager, model, question) {\n"
    "  const system = `You synthesise. Current time: ${new Date().toISOString()}`\n"
    "  const messages = [\n"
    "    { role: 'system', content: system },\n"
    "    { role: 'user', content: question },\n"
    "  ]\n"
    "  const response = await manager.call('oa', model, messages, { ...config, n: 9 })\n"
    "  tracker.trackCall({ purpose: 'Synthesis', model, ms: 3 })\n"
    "  return response\n"
    "}\n"
)


def test_a_fresh_pair_held_in_a_local_and_handed_by_position_is_one_shot() -> None:
    # The tracker's record asks nothing; the settings spread into the options hold no chat.
    assert lines_of(_PAIR, "PL101", "synth.ts") == []


def test_a_pair_grown_before_the_call_is_a_conversation() -> None:
    grown = _PAIR.replace("  const response", "  messages.push(...history)\n  const response")
    assert lines_of(grown, "PL101", "synth.ts") == [2]


def test_history_spread_into_the_options_keeps_the_clock_reported() -> None:
    spread = _PAIR.replace("{ ...config, n: 9 }", "{ ...chatHistory }")
    assert lines_of(spread, "PL101", "synth.ts") == [2]


def test_a_record_that_carries_a_prompt_is_still_a_request() -> None:
    # `{ purpose, prompt }`: a call handed something a model could be asked with.
    asked = _PAIR.replace(
        "  const response = await manager.call('oa', model, messages, { ...config, n: 9 })\n",
        "  const response = await manager.call({ purpose: 'x', model, system })\n",
    )
    assert 2 in lines_of(asked, "PL101", "synth.ts")


def test_a_pair_written_in_langchain_forms_is_one_shot() -> None:
    # `["system", text]`, `["human", text]` and `new HumanMessage(text)` are the same fresh
    # pair; a predicate named for the model (`isLLMAvailable()`) asks it nothing.
    tuples = _PAIR.replace(
        "    { role: 'system', content: system },\n    { role: 'user', content: question },\n",
        "    ['system', system],\n    ['human', question],\n",
    ).replace("  const messages", "  if (!isLLMAvailable()) return null\n  const messages")
    assert lines_of(tuples, "PL101", "synth.ts") == []
    made = tuples.replace("['human', question]", "new HumanMessage(question)")
    assert lines_of(made, "PL101", "synth.ts") == []


def test_a_langchain_pair_with_an_earlier_reply_is_a_conversation() -> None:
    # An `["ai", text]` turn is a history: the request re-sends what came before.
    replayed = _PAIR.replace(
        "    { role: 'user', content: question },\n",
        "    ['ai', lastReply],\n    ['human', question],\n",
    ).replace("    { role: 'system', content: system },\n", "    ['system', system],\n")
    assert lines_of(replayed, "PL101", "synth.ts") == [2]


_TWO = (
    "export async function answer(openai, history, query) {\n"
    "  const first = await openai.chat.completions.create({ model: M, messages: history, tools })\n"
    "  if (!first.choices[0].message.tool_calls) return first\n"
    "  const found = await search(query)\n"
    "  return openai.chat.completions.create({\n"
    "    model: M,\n"
    "    messages: [\n"
    "      { role: 'system', content: `Summarise these results: ${found.text}` },\n"
    "    ],\n"
    "  })\n"
    "}\n"
)


def test_a_value_written_inside_a_one_shot_request_beside_a_conversation_is_not_reported() -> None:
    # The search results sit in the second request's own literal, a lone system message:
    # that request sends no history, whatever the first one does.
    assert lines_of(_TWO, "PL304", "answer.ts") == []


def test_the_same_value_in_the_request_that_replays_the_history_stays_reported() -> None:
    replayed = _TWO.replace(
        "      { role: 'system', content: `Summarise these results: ${found.text}` },\n",
        "      { role: 'system', content: `Summarise these results: ${found.text}` },\n"
        "      ...history,\n",
    )
    assert lines_of(replayed, "PL304", "answer.ts") == [8]


_LOOPED = (
    "export async function review(files) {\n"
    "  const out = []\n"
    "  for (const f of files) {\n"
    "    const systemPrompt = `You review code. File: ${f.path}`\n"
    "    out.push(await callLLM(systemPrompt, 'Review it.'))\n"
    "  }\n"
    "  return out\n"
    "}\n"
)


def test_a_fresh_request_made_per_item_of_a_loop_is_sent_again_and_stays_reported() -> None:
    # Each pass sends the same prompt head again: the file in the system prompt breaks it.
    assert lines_of(_LOOPED, "PL304", "review.ts") == [4]


_QUOTED = (
    "export async function writeQueries(params) {\n"
    "  const recentBlock = params.recentMessages\n"
    "    .slice(-6)\n"
    "    .map((m) => `${m.role}: ${m.content}`)\n"
    '    .join("\\n")\n'
    "  const user = `Recent messages:\\n${recentBlock}\\nPrompt: ${params.prompt}`\n"
    "  return callModel({\n"
    "    messages: [\n"
    "      { role: 'system', content: 'You write search queries.' },\n"
    "      { role: 'user', content: user },\n"
    "    ],\n"
    "  })\n"
    "}\n"
)


def test_recent_turns_quoted_as_text_in_a_one_shot_request_are_no_window_nor_side_request() -> None:
    assert [c for _, c in _codes(_QUOTED)] == []


def test_recent_turns_sent_as_messages_after_the_prompt_stay_a_window() -> None:
    sent = _QUOTED.replace(
        "      { role: 'user', content: user },\n",
        "      ...params.recentMessages.slice(-6),\n      { role: 'user', content: user },\n",
    )
    assert "PL303" in [c for _, c in _codes(sent)]


def test_recent_turns_with_an_empty_fallback_quoted_in_a_one_shot_request_are_no_window() -> None:
    # `history?.slice(-5) || []`: the fallback only stands in for a missing history.
    fallback = _QUOTED.replace(
        "  const recentBlock = params.recentMessages\n    .slice(-6)\n",
        "  const recent = params.recentMessages?.slice(-6) || []\n  const recentBlock = recent\n",
    )
    assert [c for _, c in _codes(fallback)] == []
    sent = fallback.replace(
        "      { role: 'user', content: user },\n",
        "      ...recent,\n      { role: 'user', content: user },\n",
    )
    assert "PL303" in [c for _, c in _codes(sent)]


def test_the_whole_conversation_quoted_under_its_own_prompt_stays_a_side_request() -> None:
    whole = _QUOTED.replace("    .slice(-6)\n", "")
    assert "PL305" in [c for _, c in _codes(whole)]


def _codes(text: str) -> list[tuple[int, str]]:
    return line_codes(text, "search.ts")


_TITLE = (
    "export async function reply(model, messages: ChatMessage[]) {\n"
    "  const response = await generateText({ model, messages })\n"
    "  return response.text\n"
    "}\n"
    "\n"
    "export async function titleOf(model, messages: ChatMessage[]) {\n"
    "  const systemPrompt = 'Write a three-word title for this conversation.'\n"
    "  const promptMessages = [{ role: 'system', content: systemPrompt }, ...messages]\n"
    "  const response = await generateText({ model, messages: promptMessages })\n"
    "  return response.text\n"
    "}\n"
)


def test_a_title_request_over_a_chat_sent_with_no_system_prompt_is_reported() -> None:
    assert lines_of(_TITLE, "PL305", "ai.ts") == [8]


def test_the_same_system_prompt_handed_to_the_helper_is_no_other_prefix() -> None:
    # The helper is handed lists that start with a system message: it sends one after all.
    helper = _TITLE.replace(
        "export async function titleOf",
        "export async function ask(model, h) {\n"
        "  return reply(model, [{ role: 'system', content: 'Chat.' }, ...h])\n"
        "}\n"
        "export async function titleOf",
    )
    assert lines_of(helper, "PL305", "ai.ts") == []


def test_a_request_sending_a_list_it_builds_itself_is_no_bare_conversation() -> None:
    # `messages` is made in the function, not handed in: nothing says it lacks a system prompt.
    built = _TITLE.replace(
        "export async function reply(model, messages: ChatMessage[]) {\n",
        "export async function reply(model, chat) {\n  const messages = load(chat)\n",
    )
    assert lines_of(built, "PL305", "ai.ts") == []


_ROWS = (
    "export async function answer(senderId, text, systemPrompt) {\n"
    "  const recent = await Message.find({ uid: senderId })\n"
    "    .sort({ createdAt: -1 })\n"
    "    .limit(20)\n"
    "  const messages = [\n"
    "    { role: 'system', content: systemPrompt },\n"
    "    ...recent.reverse().map((m) => ({ role: m.role, content: m.content })),\n"
    "    { role: 'user', content: text },\n"
    "  ]\n"
    "  return client.chat.completions.create({ model: 'm', messages })\n"
    "}\n"
)


def test_the_newest_rows_of_any_store_replayed_after_the_system_prompt_are_reported() -> None:
    assert lines_of(_ROWS, "PL303", "bot.ts") == [2]


def test_the_oldest_rows_replayed_are_a_stable_prefix() -> None:
    oldest = _ROWS.replace("createdAt: -1", "createdAt: 1")
    assert lines_of(oldest, "PL303", "bot.ts") == []


def test_the_newest_rows_shown_and_not_sent_are_no_window() -> None:
    shown = _ROWS.replace(
        "    ...recent.reverse().map((m) => ({ role: m.role, content: m.content })),\n", ""
    )
    assert lines_of(shown, "PL303", "bot.ts") == []


def test_a_builder_that_returns_the_titled_list_is_not_judged_here() -> None:
    # The list is returned, not sent: where it goes is its callers' business.
    built = _TITLE.replace(
        "  const response = await generateText({ model, messages: promptMessages })\n"
        "  return response.text\n",
        "  return promptMessages\n",
    )
    assert lines_of(built, "PL305", "ai.ts") == []
