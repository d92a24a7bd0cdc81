"""Rules made general after real5 was scored (real2-real5, both halves, became development
data): cache breakers spread across helpers rather than written beside the model call, in the
shapes real code uses (a trimmer class, a memory manager, a template engine, a recall service),
each with the near miss that must stay quiet."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source


def _codes(text: str, path: str = "agent.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, path)]


def test_a_window_start_computed_from_the_history_length() -> None:
    # A memory class that splices off what is over its cap, a screenshot window, and a
    # trimmer that keeps messages from an index: each a sliding window, found at the line that
    # cuts the history with the start (the splice), else where the start is computed. The last
    # message (`- 1`) and a title request's recent turns are not.
    src = """export class Memory {
  messages: Message[] = [];
  manage(max: number) {
    if (this.messages.length > max) {
      const excess = this.messages.length - max;
      this.messages.splice(0, excess);
    }
  }
}
export function keepImages(images: string[], maxImages: number) {
  const overflow = images.length - maxImages;
  return images.slice(overflow);
}
export function keepRecent(messages: Message[], keep: number) {
  const out: Message[] = [];
  const keepFromIndex = messages.length - keep;
  for (let i = 0; i < messages.length; i++) {
    if (i >= keepFromIndex) out.push(messages[i]);
  }
  return out;
}
export function last(messages: Message[]) {
  const lastIndex = messages.length - 1;
  return messages[lastIndex];
}
export function title(messages: Message[], n: number) {
  const startIndex = messages.length - n;
  const topicMessages = messages.slice(startIndex);
  return topicMessages;
}
"""
    assert _codes(src) == [(6, "PL303"), (11, "PL303"), (16, "PL303")]


def test_screenshots_past_a_cap_omitted_once_there_are_more() -> None:
    # A history builder that omits every screenshot past the newest N once there are more:
    # the omitted set moves with each new screenshot. Showing the first N of a search's
    # results is no window of the conversation.
    src = """export class MessageHistory {
  getImagesToOmit(events: Event[]): Set<string> {
    const allImages = this.collectImages(events);
    const omit = new Set<string>();
    if (allImages.length > this.maxImagesCount) {
      for (const img of allImages.slice(this.maxImagesCount)) omit.add(img.id);
    }
    return omit;
  }
  preview(results: Result[]) {
    if (results.length > this.maxResults) {
      return results.slice(this.maxResults);
    }
    return results;
  }
}
"""
    assert _codes(src) == [(6, "PL303")]


def test_earlier_messages_cut_once_the_history_is_over_a_bound() -> None:
    # Compression of earlier messages in place once past a threshold, and a trimmer that
    # truncates every message while the total is over the budget. Formatting each message
    # the same way on every request (no bound) changes nothing between requests.
    src = """export class Memory {
  messages: Message[] = [];
  compress(threshold: number, maxLength: number) {
    if (this.messages.length > threshold) {
      for (let i = 0; i < this.messages.length; i++) {
        const message = this.messages[i];
        message.content = message.content.slice(0, maxLength);
      }
    }
  }
  trim(output: Message[], maxTokens: number, share: number) {
    for (let i = 0; i < output.length && countTokens(output) > maxTokens; i++) {
      output[i] = truncateMessage(output[i], share);
    }
  }
  normalise() {
    for (let i = 0; i < this.messages.length; i++) {
      const message = this.messages[i];
      message.content = message.content.trim();
    }
  }
}
"""
    assert _codes(src) == [(7, "PL303"), (13, "PL303")]


def test_tools_chosen_per_step_of_a_workflow_over_one_history() -> None:
    # A report workflow: the main step calls the model with every tool, the analysis step
    # with only the code interpreter, over the same conversation. Running the tools a step
    # called (`callTools`, no history handed to a model) and another agent class with its own
    # history and its own tools are not a change.
    src = """export class ReportWorkflow {
  async handleLLMInput(chatHistory: ChatMessage[]) {
    const tools = [this.codeInterpreterTool, this.documentGeneratorTool, this.queryEngineTool];
    return chatWithTools(this.llm, tools, chatHistory);
  }
  async handleAnalysis(newChatHistory: ChatMessage[]) {
    const response = await chatWithTools(this.llm, [this.codeInterpreterTool], newChatHistory);
    await callTools({ tools: [this.codeInterpreterTool], toolCalls: response.toolCalls });
    return response;
  }
  async handleReport(chatHistory: ChatMessage[]) {
    const tools = [this.queryEngineTool, this.documentGeneratorTool, this.codeInterpreterTool];
    return chatWithTools(this.llm, tools, chatHistory);
  }
}
export class Researcher {
  async step(messages: ChatMessage[]) {
    return chatWithTools(this.llm, [this.searchTool], messages);
  }
}
"""
    assert _codes(src) == [(7, "PL302")]


def test_where_the_request_comes_from_in_the_system_prompt() -> None:
    # A chat route puts the request's geolocation into the system prompt it builds for each
    # request; the request's session (a login) handed to the same builder is not where the
    # request comes from.
    src = """export async function POST(request: Request) {
  const { city, country } = geolocation(request);
  const requestHints = { city, country };
  const session = await auth(request);
  return streamText({
    model,
    system: systemPrompt({ requestHints }),
    messages,
  });
}
export async function GET(request: Request) {
  const session = await auth(request);
  return streamText({ model, system: systemPrompt({ session }), messages });
}
"""
    assert _codes(src) == [(7, "PL304")]


def test_a_template_engine_fill_and_a_helper_chain_carry_the_date(tmp_path: Path) -> None:
    # The system prompt rendered by a template engine from another package, with the date as
    # a slot value; the caller hands the date in, so it is reported where the caller makes
    # it, not at the parameter's name in the builder.
    (tmp_path / "prompt.ts").write_text(
        """import { PromptTemplate } from "./prompt-template";
export function getChatSystemPrompt(datetime: string, tabs?: Tab[]): string {
  return PromptTemplate.render(TEMPLATE, {
    datetime: datetime,
    tabs: JSON.stringify(tabs ?? []),
  }).trim();
}
export function getAgentSystemPrompt(vars: Map<string, string>): string {
  return PromptTemplate.render(AGENT_TEMPLATE, {
    datetime: vars.get("datetime") || new Date().toLocaleString(),
  });
}
"""
    )
    (tmp_path / "agent.ts").write_text(
        """import { getChatSystemPrompt } from "./prompt";
export async function turn(memory: Memory) {
  const datetime = new Date().toLocaleString();
  const systemPrompt = getChatSystemPrompt(datetime, undefined);
  memory.setSystemPrompt(systemPrompt);
}
"""
    )
    found = lint_paths([str(tmp_path)], LintConfig()).findings
    got = {(Path(f.path).name, f.line, f.code) for f in found}
    assert ("prompt.ts", 9, "PL101") in got  # the render's fallback clock (line 10)
    assert ("prompt.ts", 3, "PL101") in got  # the date slot, by the parameter's name
    assert ("prompt.ts", 3, "PL105") in got  # open tabs, browser state
    agent = [f for f in found if f.path.endswith("agent.ts")]
    assert [(f.line, f.code) for f in agent] == [(4, "PL101")]
    assert "new Date(), line 3)" in agent[0].message and "prompt.ts" not in agent[0].message


def test_content_recalled_for_the_request_reaches_the_system_prompt() -> None:
    # Memories recalled with the user's message, handed to a prompt builder and set as the
    # system prompt; search results written into a system message by position; a system
    # template's slot filled with the results. A recall keyed by a fixed id, and a record
    # returned beside the prompt, are not.
    src = """export async function turn(chatId: string, userPrompt: string) {
  const memory = await service.memoryRecall(chatId, userPrompt);
  const settled = await service.memoryRecall(chatId, "profile");
  const systemPrompt = buildPrompt(memory, settled);
  return systemPrompt;
}
export function inject(messages: Message[], memories: string) {
  const systemIndex = messages.findIndex((m) => m.role === "system");
  const systemMessage = messages[systemIndex];
  const newContent = `${systemMessage.content}\\n\\n${memories}`;
  messages[systemIndex] = { ...systemMessage, content: newContent };
  return messages;
}
export async function web(query: string) {
  const search_results = await searchWeb(query);
  const system = await getWebSearchPrompt();
  const prompt = system.replace("{search_results}", search_results);
  return { prompt, sources: search_results };
}
"""
    assert _codes(src) == [(4, "PL304"), (11, "PL304"), (17, "PL304")]
    quiet = """export async function turn(chatId: string, context: RunContext) {
  const memory = await service.memoryRecall(chatId, "profile");
  const systemPrompt = buildPrompt(memory, context.task);
  return systemPrompt;
}
"""
    assert _codes(quiet) == []


def test_python_memories_searched_with_the_request_reach_the_system_prompt() -> None:
    # A system-prompt enhancer that appends memories searched with the user's message; a
    # one-off pipeline step (a system message and a fixed instruction, no history) that
    # writes search results into its system message is not a breaker; a search keyed by a
    # fixed topic fetches the same thing every time.
    src = (
        "async def enhance_system_prompt(system_prompt, user_message, memory):\n"
        "    memories = await memory.search_text_memories(query=user_message, limit=5)\n"
        "    section = '\\n## Relevant memories\\n'\n"
        "    for m in memories:\n"
        "        section += f'- {m.content}\\n'\n"
        "    return system_prompt + section\n"
        "async def plan(llm, topic, query):\n"
        "    found = await web_search(query)\n"
        "    planner_instructions = f'Plan a report on {topic}. Sources: {found}'\n"
        "    return await llm.ainvoke(\n"
        "        [SystemMessage(content=planner_instructions), HumanMessage(content='Plan.')]\n"
        "    )\n"
        "def build_system_prompt(store):\n"
        "    facts = store.search('company facts')\n"
        "    return f'You are the support agent. Facts: {facts}'\n"
    )
    assert _codes(src, "enhancer.py") == [(2, "PL304")]
    # The same step with the conversation after its system message is a breaker.
    chat = src.replace("HumanMessage(content='Plan.')", "*history").replace(
        "topic, query)", "topic, query, history)"
    )
    assert (8, "PL304") in _codes(chat, "enhancer.py")


def test_python_window_in_a_message_thread_api() -> None:
    # The last n attempts kept and replayed through a thread API (no role dicts in the file):
    # the kept attempts slide once past n. A test-run log cut the same way, in a file that
    # builds no chat, is no conversation.
    thread = (
        "class Reproducer:\n"
        "    def select(self, n):\n"
        "        return self._history[-n:]\n"
        "    def write(self, handles):\n"
        "        thread = MessageThread()\n"
        "        thread.add_system(self.system_prompt)\n"
        "        for h in handles:\n"
        "            thread.add_model(self.responses[h])\n"
        "            thread.add_user(self.feedback[h])\n"
        "        return thread\n"
    )
    assert _codes(thread, "reproducer.py") == [(3, "PL303")]
    log = (
        "class Runs:\n"
        "    system_prompt = 'Summarise the failing runs.'\n"
        "    def recent(self, n):\n"
        "        return self._history[-n:]\n"
    )
    assert _codes(log, "runs.py") == []


def test_python_the_newest_message_written_into_the_system_message() -> None:
    # A retrieval graph: the retriever tool's result, the newest message, is formatted into
    # the system message put before the chat history. Merging the newest user message with
    # the next one rewrites the list, it writes no text into the system prompt.
    src = (
        "def get_messages(messages, system_message):\n"
        "    chat_history = [m for m in messages if isinstance(m, HumanMessage)]\n"
        "    response = messages[-1].content\n"
        "    context = '\\n'.join(d['page_content'] for d in response)\n"
        "    return [\n"
        "        SystemMessage(content=TEMPLATE.format(instructions=system_message, ctx=context))\n"
        "    ] + chat_history\n"
        "def merge(messages, system_prompt, client):\n"
        "    merged = []\n"
        "    for m in messages:\n"
        "        if merged and merged[-1].role == 'user' and m.role == 'user':\n"
        "            merged[-1] = merged[-1].concat(m)\n"
        "        else:\n"
        "            merged.append(m)\n"
        "    return client.messages.create(model='m', max_tokens=9, system=system_prompt,\n"
        "                                  messages=merged)\n"
    )
    assert _codes(src, "retrieval.py") == [(3, "PL304")]


def test_python_tool_list_replaced_mid_conversation() -> None:
    # A voice agent's tool rebuilds a confirmation tool with the value the user just gave and
    # swaps the agent's tool list: the tool definitions, first in the prefix, change. Setting
    # the tools when the agent starts, and an adapter forwarding its own update_tools, do not.
    src = (
        "class BirthDateTask(AgentTask):\n"
        "    async def on_enter(self) -> None:\n"
        "        await self.update_tools([self._build_update_tool()])\n"
        "    async def update_dob(self, year, month, day):\n"
        "        dob = date(year, month, day)\n"
        "        tools = [t for t in self.tools if t.id != 'confirm_dob']\n"
        "        tools.append(self._build_confirm_tool(dob=dob))\n"
        "        await self.update_tools(tools)\n"
        "        return f'Date updated to {dob}'\n"
        "class FallbackAdapter:\n"
        "    async def update_tools(self, tools):\n"
        "        self._tools = tools\n"
        "        await self._active.update_tools(tools)\n"
    )
    assert _codes(src, "task.py") == [(8, "PL302")]


def test_the_users_instruction_is_their_turn_not_the_system_prompt() -> None:
    # A planner writes the user's task into `userInstruction`, sent as the user's turn; the
    # same text in a `systemInstruction` is per-request content ahead of the history.
    user = """export function plan(userInstructionText: string, history: Message[]) {
  const userInstruction = `<user_instruction>${userInstructionText}</user_instruction>`;
  return [...history, { role: "user", content: userInstruction }];
}
"""
    assert _codes(user) == []
    system = user.replace("const userInstruction", "const systemInstruction").replace(
        "content: userInstruction", "content: systemInstruction"
    )
    assert _codes(system) == [(2, "PL304")]


def test_python_window_start_bound_to_a_name_first() -> None:
    # The start of the kept window computed first, then used as the slice bound; the last
    # message's index is no window.
    src = (
        "class Memory:\n"
        "    def window(self, messages):\n"
        "        start = max(0, len(messages) - self.max_turns)\n"
        "        return [{'role': 'system', 'content': SYSTEM}, *messages[start:]]\n"
        "    def latest(self, messages):\n"
        "        last = len(messages) - 1\n"
        "        return messages[last:]\n"
    )
    assert _codes(src, "memory.py") == [(4, "PL303")]
