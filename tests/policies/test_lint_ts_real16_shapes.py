"""TypeScript shapes of real16's development half: tool lists changed between the requests of
one turn (policies/jscheck/steptools: a final request over the tool loop's messages sent
without tools, a chained follow-up with a shorter list, a tool list emptied by the loop's depth
or the request's classification), a list shifted while a total measured from it is over a
limit, a chat's messages loaded as the newest rows (storewindow), and a component named for a
system message that renders JSX. Each test is fresh code in the shape with a twin that must
stay silent."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _pl302(text: str) -> list[int]:
    return [f.line for f in lint_source(text, "agent.ts") if f.code == "PL302"]


_FINAL = """\
export async function answer(client: any, messages: any[]) {
  for (let i = 0; i < 3; i++) {
    const res = await client.chat({ model: "m", tools: [LOOKUP_TOOL], messages });
    if (!res.toolCalls) return res.text;
    messages.push(res.message);
  }
  const final = await client.chat({ model: "m", FINAL_OPTIONS, messages });
  return final.text;
}
"""


def test_a_final_request_over_the_same_messages_without_tools() -> None:
    assert _pl302(_FINAL) == [7]


def test_the_same_tools_in_every_request_of_the_turn_is_silent() -> None:
    same = _FINAL.replace("FINAL_OPTIONS, messages", "tools: [LOOKUP_TOOL], messages")
    assert _pl302(same) == []


def test_another_conversation_sent_without_tools_is_silent() -> None:
    # a side request over its own messages is no step of the same turn
    other = _FINAL.replace("FINAL_OPTIONS, messages", 'messages: [{ role: "user", content: "x" }]')
    assert _pl302(other) == []


_CHAINED = """\
export async function reply(api: any, input: any[], lastId: string) {
  const first = await api.responses.create({
    input,
    previous_response_id: lastId,
    tools: [searchTool, imageTool],
  });
  const next = await api.responses.create({
    input: [{ type: "function_call_output", output: "done" }],
    previous_response_id: first.id,
    tools: [imageTool],
  });
  return next;
}
"""


def test_a_chained_follow_up_with_a_shorter_tool_list() -> None:
    assert _pl302(_CHAINED) == [10]


def test_a_chained_follow_up_with_the_same_tool_list_is_silent() -> None:
    assert _pl302(_CHAINED.replace("tools: [imageTool]", "tools: [searchTool, imageTool]")) == []


_DEPTH = """\
export async function think(model: any, input: { iterations: number }, history: any[]) {
  const tools = [ACTION_TOOL];
  const _tools = input.iterations < MAX_TOOL_DEPTH ? tools : [];
  return model.invoke([{ role: "system", content: PROMPT }, ...history], _tools);
}
"""


def test_a_tool_list_emptied_at_the_loops_depth() -> None:
    assert _pl302(_DEPTH) == [3]


def test_a_tool_list_emptied_by_a_setting_is_silent() -> None:
    # a deployment's setting is the same for every request of a conversation
    assert _pl302(_DEPTH.replace("input.iterations < MAX_TOOL_DEPTH", "config.enableTools")) == []


def test_a_tool_list_left_out_by_the_requests_classification() -> None:
    text = """\
export async function complete(id: string, input: any, model: any, history: any[]) {
  const { classification } = input;
  const tools = classification.useTools ? availableTools(id) : undefined;
  return model.completion(history, tools ? tools.map((t: any) => t.definition()) : []);
}
"""
    assert _pl302(text) == [3]
    assert _pl302(text.replace("classification.useTools ?", "input.useTools ?")) == []


_SIZED = """\
export async function sized(system: any[], prompt: any[], limit: number) {
  let totalTokens = chatTokenCount(prompt) + chatTokenCount(system);
  while (totalTokens > limit) {
    prompt.shift();
    totalTokens = chatTokenCount(prompt) + chatTokenCount(system);
  }
  return prompt;
}
"""


def test_a_list_shifted_while_its_measured_total_is_over_a_limit() -> None:
    # the loop's total is measured again from the list it cuts: a budget window
    assert [f.code for f in lint_source(_SIZED, "context.ts")] == ["PL303"]


def test_a_list_shifted_while_another_total_is_over_a_limit_is_silent() -> None:
    # the total measures something else: the shift is no cut of what was measured
    other = _SIZED.replace(
        "totalTokens = chatTokenCount(prompt) + chatTokenCount(system);\n  }",
        "totalTokens = chatTokenCount(system);\n  }",
    )
    assert [f.code for f in lint_source(other, "context.ts")] == []


_NEWEST = """\
export async function loadContext(chatId: number, limit: number) {
  const rows = await store.chatMessages.findMany({
    where: { chatId },
    orderBy: { createdAt: "desc" },
    take: limit,
  });
  return rows.reverse();
}
"""


def test_a_chats_messages_loaded_as_the_newest_rows() -> None:
    assert [(f.line, f.code) for f in lint_source(_NEWEST, "context.ts")] == [(5, "PL303")]


def test_the_messages_loaded_oldest_first_or_uncapped_are_silent() -> None:
    assert lint_source(_NEWEST.replace('"desc"', '"asc"'), "context.ts") == []
    assert lint_source(_NEWEST.replace("    take: limit,\n", ""), "context.ts") == []
    # rows of another table, newest first, are no conversation
    assert lint_source(_NEWEST.replace("chatMessages", "invoices"), "context.ts") == []


_RENDER = """\
const renderSystemMessage = (text: string) => {
  return <div className="bubble">[{format(new Date(), "shortTime")}] {text}</div>;
};
export default renderSystemMessage;
"""


def test_a_component_named_for_a_system_message_that_renders_jsx_is_silent() -> None:
    assert lint_source(_RENDER, "renderSystemMessage.tsx") == []


def test_a_system_message_builder_returning_text_with_the_time() -> None:
    text = _RENDER.replace(
        '<div className="bubble">[{format(new Date(), "shortTime")}] {text}</div>',
        '`[${format(new Date(), "shortTime")}] ${text}`',
    )
    assert [f.code for f in lint_source(text, "renderSystemMessage.tsx")] == ["PL101"]


_MEMOISED = """\
import { execSync } from "child_process";

let cachedBranch: string | null = null;

export function gitBranch(cwd: string): string {
  if (cachedBranch) {
    return cachedBranch;
  }
  const branch = execSync("git rev-parse --abbrev-ref HEAD", { cwd }).toString().trim();
  cachedBranch = branch;
  return branch;
}

export function buildSystemPrompt(cwd: string): string {
  return `You are a coding agent. Branch: ${gitBranch(cwd)}`;
}
"""


def test_a_value_read_in_a_memoised_function_is_silent() -> None:
    # read on the first call, the same bytes after it: no later request sees another value
    assert [f.code for f in lint_source(_MEMOISED, "context.ts")] == []


def test_a_value_read_beside_an_unfilled_cache_is_reported() -> None:
    # the function checks a cache it never fills: the branch is read on every call
    text = _MEMOISED.replace("  cachedBranch = branch;\n", "")
    assert [f.code for f in lint_source(text, "context.ts")] == ["PL104"]


_TWO_PROMPTS = """\
export class Concierge {
  async respond(input: { history: Turn[]; userMessage: string }) {
    const chatHistory = input.history;
    const messages = [
      { role: "system", content: CHAT_PROMPT },
      ...chatHistory.map((t) => ({ role: t.role, content: t.content })),
      { role: "user", content: input.userMessage },
    ];
    return this.client.chat.completions.create({ model: MODEL, messages });
  }

  async polish(input: { history: Turn[]; draft: string }) {
    const history = input.history;
    const messages = [
      { role: "system", content: REWRITE_PROMPT },
      ...history,
      { role: "user", content: input.draft },
    ];
    return this.client.chat.completions.create({ model: MODEL, messages });
  }
}
"""


def test_the_conversation_sent_under_another_system_prompt_by_one_class() -> None:
    assert [(f.line, f.code) for f in lint_source(_TWO_PROMPTS, "concierge.ts")] == [(15, "PL305")]


def test_the_conversation_sent_under_one_system_prompt_is_silent() -> None:
    same = _TWO_PROMPTS.replace("REWRITE_PROMPT", "CHAT_PROMPT")
    assert lint_source(same, "concierge.ts") == []
    # a request with a system prompt of its own and no history spread in is no such request
    alone = _TWO_PROMPTS.replace("      ...history,\n", "")
    assert lint_source(alone, "concierge.ts") == []


def test_two_lists_built_side_by_side_in_one_function_are_no_side_request() -> None:
    text = """\
export function build(history: Turn[], draft: string) {
  const a = [{ role: "system", content: CHAT_PROMPT }, ...history];
  const b = [{ role: "system", content: REWRITE_PROMPT }, ...history];
  return pick(a, b, draft);
}
"""
    assert [f.code for f in lint_source(text, "lists.ts") if f.code == "PL305"] == []


_MEMORY_LISTING = """\
export async function complete(history: any[]) {
  const memoryDirectory = await new MemoryStore(MEMORY_ROOT).directoryListing();
  const system = `You keep notes in your memory folder:\\n${memoryDirectory}`;
  return client.chat({ messages: [{ role: "system", content: system }, ...history] });
}
"""


def test_the_listing_of_the_agents_memory_store_is_state_ahead_of_the_history() -> None:
    # the memory tool writes files during the conversation: per-request state, not the tree
    codes = [f.code for f in lint_source(_MEMORY_LISTING, "complete.ts")]
    assert codes == ["PL304"]


def test_the_listing_of_a_project_folder_stays_a_file_tree() -> None:
    text = _MEMORY_LISTING.replace("memoryDirectory", "projectDirectory")
    assert [f.code for f in lint_source(text, "complete.ts")] == ["PL105"]
