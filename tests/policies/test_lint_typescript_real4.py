"""The TypeScript/JavaScript rules added on real4's development half, each on the shape of the
real code it was found in (Codebuff, Perplexica, scira, LlamaIndexTS, chat-ui, drizzle schemas):
history rewritten in place, expired or cut to a token budget; the conversation flattened into a
side request; a prompt or tool list picked by a request's mode, group or message; and the
precision fixes (a local value bound after its use, one finding per value, an options bag, the
latest message read with `slice(-1)`)."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(ts: str, path: str = "agent.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(ts, path)]


def test_history_rewritten_expired_and_cut_to_a_token_budget() -> None:
    # Codebuff's run-agent-step: read_files results simplified in place, system instructions
    # filtered out, the step prompt expired after the step, the history cut to a budget.
    ts = (
        "export async function step(messageHistory: Message[], system: string) {\n"
        "  for (const message of messageHistory) {\n"
        "    const m = message as ToolMessage\n"
        "    m.content.output = simplify(m.content.output)\n"
        "  }\n"
        "  messageHistory = messageHistory.filter((x) => !isInstruction(x))\n"
        "  const kept = expireMessages(messageHistory, 'agentStep')\n"
        "  const systemTokens = countTokensJson(system)\n"
        "  const sent = getMessagesSubset(messageHistory, systemTokens)\n"
        "  return messagesWithSystem(sent, system)\n"
        "}\n"
    )
    assert _codes(ts) == [(4, "PL303"), (6, "PL303"), (7, "PL303"), (9, "PL303")]


def test_a_login_session_and_a_token_count_are_not_a_history_budget() -> None:
    # twinny: `createSymmetryMessage(keys.verifySession, data.sessionToken)`; a history only
    # measured (`countTokens(messages, maxTokens)`) is not cut.
    ts = (
        "peer.write(createSymmetryMessage(keys.verifySession, data.sessionToken))\n"
        "const n = countTokens(messages, maxTokens)\n"
    )
    assert _codes(ts) == []


def test_conversation_flattened_into_a_side_request() -> None:
    # Perplexica's stock widget: an extractor with its own system prompt, the chat history
    # written into its user message.
    ts = (
        "const systemPrompt = `You are a stock ticker extractor.`\n"
        "export async function execute(input: Input) {\n"
        "  return input.llm.generateObject({\n"
        "    messages: [\n"
        "      { role: 'system', content: systemPrompt },\n"
        "      { role: 'user', content: `<history>${formatHistory(input.chatHistory)}</history>"
        "${input.followUp}` },\n"
        "    ],\n"
        "  })\n"
        "}\n"
    )
    assert _codes(ts) == [(4, "PL305")]
    (finding,) = lint_source(ts, "agent.ts")
    assert "as text in one message under a system prompt of its own" in finding.message


def test_a_side_request_with_the_history_spread_as_messages_says_so() -> None:
    # real10's coordinator shape: a summary request under its own system prompt, the history
    # spread as messages and the results written into the last user message.
    ts = (
        "export async function summarise(chatHistory: Msg[], results: Result[]) {\n"
        "  return llm.chat([\n"
        "    { role: 'system', content: prompts.SUMMARY },\n"
        "    ...chatHistory,\n"
        "    { role: 'user', content: `Done: ${formatHistory(chatHistory)}` },\n"
        "  ])\n"
        "}\n"
    )
    (finding,) = lint_source(ts, "agent.ts")
    assert (finding.line, finding.code) == (2, "PL305")
    assert "as messages after a system prompt of its own" in finding.message


def test_the_main_request_with_its_history_as_messages_is_not_a_side_request() -> None:
    ts = (
        "const res = await llm.streamText({\n"
        "  messages: [\n"
        "    { role: 'system', content: WRITER },\n"
        "    ...input.chatHistory,\n"
        "    { role: 'user', content: input.followUp },\n"
        "  ],\n"
        "})\n"
    )
    assert _codes(ts) == []


def test_prompt_and_tools_picked_by_a_group_or_the_current_message() -> None:
    # scira's Raycast route: the system prompt indexed by the request's group and the active
    # tools chosen by it; LlamaIndexTS: tools retrieved with the latest message.
    ts = (
        "export async function POST(req: Request) {\n"
        "  const { messages, group } = await req.json()\n"
        "  const systemPrompt = groupSystemPrompts[group]\n"
        "  const activeTools = group === 'x' ? ['x_search'] : ['web_search']\n"
        "  return generateText({ system: systemPrompt, messages, activeTools })\n"
        "}\n"
        "export async function handler(step: Step) {\n"
        "  const lastMessage = step.messages.at(-1)!.content\n"
        "  const tools = await getTools(lastMessage)\n"
        "  return llm.chat({ tools, messages: step.messages })\n"
        "}\n"
    )
    assert _codes(ts) == [(3, "PL302"), (4, "PL302"), (9, "PL302")]


def test_a_prompt_builder_handed_the_mode() -> None:
    # Perplexica's search agent: the writer prompt built for this request's mode.
    ts = "const writerPrompt = getWriterPrompt(\n  context,\n  input.config.mode,\n)\n"
    assert _codes(ts) == [(3, "PL302")]


def test_repository_state_sections_from_another_file_read_by_their_names() -> None:
    # Codebuff's search system prompt: the git changes and the file tree, made in ./prompts.
    ts = (
        "import { getGitChangesPrompt, getProjectFileTreePrompt } from './prompts'\n"
        "export function getSearchSystemPrompt(ctx: FileContext): string {\n"
        "  const gitChanges = getGitChangesPrompt(ctx)\n"
        "  const tree = getProjectFileTreePrompt(ctx, 20000)\n"
        "  return [tree, gitChanges].join('\\n\\n')\n"
        "}\n"
    )
    codes = _codes(ts)
    assert (5, "PL104") in codes and (5, "PL105") in codes


def test_a_value_bound_after_its_use_does_not_reach_it() -> None:
    # Codebuff: `agentState` is reassigned from a stream's state after the system prompt is
    # built; the step id read from crypto.randomUUID() flows only into the later binding.
    ts = (
        "export async function step(options: Options) {\n"
        "  let agentState = options.agentState\n"
        "  const stepId = crypto.randomUUID()\n"
        "  const system = await getAgentPrompt(template, agentState)\n"
        "  const { state } = await processStream({ stepId, system })\n"
        "  agentState = state.agentState\n"
        "  return system\n"
        "}\n"
    )
    assert _codes(ts) == []


def test_a_loop_carries_a_later_binding_back() -> None:
    ts = (
        "let note = ''\n"
        "for (const t of turns) {\n"
        "  const systemPrompt = `Base. ${note}`\n"
        "  note = `at ${Date.now()}`\n"
        "}\n"
    )
    # Where the clock enters the text that the loop carries into the next prompt.
    assert _codes(ts) == [(4, "PL101")]


def test_a_later_value_of_a_local_name_is_not_followed_back() -> None:
    ts = (
        "export function build() {\n"
        "  let note = ''\n"
        "  const systemPrompt = `Base. ${note}`\n"
        "  note = `at ${Date.now()}`\n"
        "  return systemPrompt\n"
        "}\n"
    )
    assert _codes(ts) == []


def test_one_finding_per_value_not_per_hop() -> None:
    # scira: the date enters `groupSystemPrompts`, which reaches `systemPrompt`, then `system:`.
    ts = (
        "const groupSystemPrompts = {\n"
        "  web: `Today's date: ${new Date().toLocaleDateString()}`,\n"
        "}\n"
        "export async function POST(req: Request) {\n"
        "  const { group } = await req.json()\n"
        "  const systemPrompt = groupSystemPrompts[group]\n"
        "  return generateText({ system: systemPrompt })\n"
        "}\n"
    )
    assert [c for c in _codes(ts) if c[1].startswith("PL1")] == [(1, "PL102")]


def test_a_table_definition_is_no_clock_reading() -> None:
    # scira's drizzle schema: `customInstructions` is a table whose columns default to now.
    ts = (
        "export const customInstructions = pgTable('custom_instructions', {\n"
        "  id: text('id').primaryKey(),\n"
        "  createdAt: timestamp('created_at').defaultNow().notNull(),\n"
        "})\n"
    )
    assert _codes(ts) == []


def test_the_latest_message_read_with_slice_minus_one_is_no_window() -> None:
    # LangGraph.js supervisor: a sub-agent's output reduced to its last message.
    ts = (
        "let { messages } = output\n"
        "if (outputMode === 'last_message') { messages = messages.slice(-1) }\n"
        "const recent = history.slice(-MAX_MESSAGES)\n"
    )
    assert _codes(ts) == [(3, "PL303")]


def test_a_class_named_with_group_is_no_mode() -> None:
    # Cody: tools fetched per agent id from `AgentToolGroup`, the same list every request.
    ts = "this.tools = await AgentToolGroup.getToolsByAgentId(this.contextRetriever, span)\n"
    assert _codes(ts) == []


def test_compaction_a_research_budget_and_a_cleaned_request_are_not_windows() -> None:
    # continue's auto-compaction (the remedy), node-DeepResearch's research loop under a token
    # budget and its cleanup of the messages a client sent.
    ts = (
        "const result = await compactChatHistory(chatHistory, model, llmApi, { maxTokens })\n"
        "const answer = await getResponse(undefined, tokenBudget, context, body.messages)\n"
        "body.messages = body.messages?.filter((m) => m && m.content)\n"
    )
    assert _codes(ts) == []


def test_prompt_and_tools_set_per_case_of_a_mode() -> None:
    # morphic's researcher: the prompt and the active tools set in a switch on searchMode.
    ts = (
        "export function createResearcher(searchMode: SearchMode) {\n"
        "  let systemPrompt: string\n"
        "  let activeToolsList: string[] = []\n"
        "  switch (searchMode) {\n"
        "    case 'quick':\n"
        "      systemPrompt = QUICK_MODE_PROMPT\n"
        "      activeToolsList = ['search', 'fetch']\n"
        "      break\n"
        "    default:\n"
        "      systemPrompt = getAdaptiveModePrompt()\n"
        "      activeToolsList = ['search', 'fetch', 'todoWrite']\n"
        "  }\n"
        "  return new ToolLoopAgent({ instructions: systemPrompt, activeTools: activeToolsList })\n"
        "}\n"
    )
    assert _codes(ts) == [(6, "PL302"), (7, "PL302")]
