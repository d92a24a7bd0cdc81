"""Findings decided by the request a value reaches (`policies/reach.py`): a value that reaches
only one-shot requests, a test function's assertion or a serialiser's record is no breaker; a
value handed to a conversation's prompt builder as a parameter is. Each test is fresh code in
the shape real code has, with a twin that goes the other way."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths
from tests.helpers.lintfind import line_codes as _codes

# A builder of a one-shot request (system and one user message, built fresh per call), called
# by the method that sends it; the twin keeps the history and appends to it.
_ONE_SHOT_PY = (
    "class MemoryChat:\n"
    "    def _build_messages(self, transcript, memory):\n"
    "        time_text = current_time_text()\n"
    "        system_prompt = TEMPLATE.replace('${NOW}', time_text)\n"
    "        return [\n"
    "            {'role': 'system', 'content': system_prompt},\n"
    "            {'role': 'user', 'content': f'{memory}\\n{transcript}'},\n"
    "        ]\n"
    "\n"
    "    async def run(self, transcript):\n"
    "        memory = self.lookup(transcript)\n"
    "        messages = self._build_messages(transcript, memory)\n"
    "        response = await self.client.chat.completions.create(\n"
    "            model=self.model, messages=messages\n"
    "        )\n"
    "        return response.choices[0].message.content\n"
)


def test_python_clock_reaching_only_a_one_shot_request_is_no_finding() -> None:
    assert _codes(_ONE_SHOT_PY, "memory_chat.py") == []
    # The twin: the list the builder returns is the start of a kept history, grown each turn.
    kept = _ONE_SHOT_PY.replace(
        "        messages = self._build_messages(transcript, memory)\n",
        "        messages = self._build_messages(transcript, memory)\n"
        "        messages.extend(self.history)\n",
    )
    assert (3, "PL101") in _codes(kept, "memory_chat.py")


def test_python_clock_reaching_an_unknown_sender_is_kept() -> None:
    # The builder's result goes to a call the analysis does not read: today's finding stays.
    unknown = _ONE_SHOT_PY.replace(
        "        response = await self.client.chat.completions.create(\n"
        "            model=self.model, messages=messages\n"
        "        )\n"
        "        return response.choices[0].message.content\n",
        "        return await self.agent.run(messages)\n",
    )
    assert (3, "PL101") in _codes(unknown, "memory_chat.py")


_BUILDER_PY = (
    "def prompt(time, bot_name, messages):\n"
    "    system_prompt = f'Current UTC time is {time.isoformat()}. You are {bot_name}.'\n"
    "    out = [{'role': 'system', 'content': system_prompt}]\n"
    "    for date, name, text in messages:\n"
    "        out.append({'role': 'assistant' if name == bot_name else 'user', 'content': text})\n"
    "    return out\n"
)


def test_python_time_handed_to_a_conversation_builder_as_a_parameter() -> None:
    assert _codes(_BUILDER_PY, "prompt.py") == [(2, "PL101")]
    # Twin: a record's creation time read the same way is no clock.
    record = _BUILDER_PY.replace("(time,", "(created_at,").replace(
        "{time.isoformat()}", "{created_at.isoformat()}"
    )
    assert _codes(record, "prompt.py") == []


def test_python_a_test_functions_fixed_date_is_no_finding() -> None:
    # The builder's own clock parameter is reported once, where it enters the prompt; the
    # fixed date a test hands it reaches an assertion.
    src = (
        "from datetime import datetime\n" + _BUILDER_PY + "\n"
        "def test_prompt():\n"
        "    p = prompt(datetime(2020, 1, 1), 'bot', [])\n"
        "    assert p[0]['role'] == 'system'\n"
    )
    assert _codes(src, "prompt.py") == [(3, "PL101")]
    # Twin: the same call in a function that is no test hands the builder the live clock.
    live = src.replace("def test_prompt():", "def make():").replace(
        "datetime(2020, 1, 1)", "datetime.now()"
    )
    assert (10, "PL101") in _codes(live, "prompt.py")


def test_python_a_serialised_copy_of_the_system_prompt_is_no_finding() -> None:
    # An audit form of the system prompt, written to a journal once per session.
    src = (
        "import json\n"
        "\n"
        "def serialize_system_prompt(system_message):\n"
        "    return _dump({'blocks': [b.text for b in system_message.content]})\n"
        "\n"
        "def _dump(value):\n"
        "    return json.dumps(value, ensure_ascii=False)\n"
    )
    assert _codes(src, "model.py") == []
    # Twin: a builder of the system prompt that dumps blocks keyed in a set's order.
    built = src.replace("def serialize_system_prompt", "def build_system_prompt").replace(
        "json.dumps(value, ensure_ascii=False)",
        "json.dumps({k: 1 for k in set(value)}, ensure_ascii=False)",
    )
    assert (7, "PL202") in _codes(built, "model.py")


# TypeScript: a voice command parser that sends the request's date in a one-shot request; the
# twin sends the same system prompt ahead of the kept history.
_PARSE_TS = (
    "export default async function handler(req: Request) {\n"
    "  const { transcript, clientDate, history } = await req.json();\n"
    "  const today = clientDate || 'unknown';\n"
    "  const systemPrompt = `You parse voice commands. Today is ${today}.`;\n"
    "  const response = await anthropic.messages.create({\n"
    "    model: 'claude-sonnet-4-6',\n"
    "    system: systemPrompt,\n"
    "    messages: [{ role: 'user', content: transcript }],\n"
    "  });\n"
    "  return response;\n"
    "}\n"
)


def test_typescript_request_content_reaching_only_a_one_shot_request_is_no_finding() -> None:
    assert _codes(_PARSE_TS, "parse.ts") == []
    chat = _PARSE_TS.replace(
        "messages: [{ role: 'user', content: transcript }]",
        "messages: [...history, { role: 'user', content: transcript }]",
    )
    assert (3, "PL304") in _codes(chat, "parse.ts")


def test_typescript_a_route_handler_that_only_queues_a_job_is_no_finding() -> None:
    # The task's instructions go into a job-queue payload; nothing here asks a model.
    src = (
        "export async function POST(request: NextRequest) {\n"
        "  const body = await request.json();\n"
        "  await prisma.$transaction(async (tx) => {\n"
        "    for (const taskItem of body.tasks) {\n"
        "      const jobData = {\n"
        "        taskId: taskItem.id,\n"
        "        additionalInstructions: taskItem.additionalInstructions,\n"
        "      };\n"
        "      await getQueue().add('task-process', jobData);\n"
        "    }\n"
        "  });\n"
        "  return NextResponse.json({ ok: true });\n"
        "}\n"
    )
    assert _codes(src, "route.ts") == []
    # Twin: a helper of the file is handed the instructions and asks a model with a history.
    asks = src.replace(
        "      await getQueue().add('task-process', jobData);\n",
        "      await streamChat(jobData.additionalInstructions, body.messages);\n",
    )
    assert _codes(asks, "route.ts") == [(7, "PL304")]


def test_typescript_a_helper_given_a_fresh_system_and_user_text_is_one_shot() -> None:
    # A commit message generator hands a helper its own system and user texts.
    src = (
        "async function generateCommitMessage(input) {\n"
        "  const branchHint = input.includeBranch ? ' Also name a branch.' : '';\n"
        "  return runGenerationSeams({\n"
        "    kind: 'commit',\n"
        "    input,\n"
        "    system: `You write git commit messages.${branchHint}`,\n"
        "    user: `Staged patch:\\n${input.stagedPatch}`,\n"
        "  });\n"
        "}\n"
    )
    assert _codes(src, "git-generate.js") == []
    chat = src.replace(
        "    user: `Staged patch:\\n${input.stagedPatch}`,\n", "    messages: input.history,\n"
    )
    assert _codes(chat, "git-generate.js") == [(6, "PL104")]


def test_typescript_a_side_request_over_a_transcript_handed_in_as_text_is_no_finding() -> None:
    # A finished call's transcript, handed in as one string and reviewed once: no message list
    # of a conversation is resent. The twin flattens the kept messages into the same request.
    src = (
        "export async function reviewCall(transcript: string, agent: string) {\n"
        "  const sample = transcript.length > 2000 ? transcript.substring(0, 2000) : transcript;\n"
        "  return openai.chat.completions.create({\n"
        "    model: 'gpt-4o',\n"
        "    messages: [\n"
        "      { role: 'system', content: 'You review call transcripts.' },\n"
        "      { role: 'user', content: `Review this call:\\n${sample}` },\n"
        "    ],\n"
        "  });\n"
        "}\n"
    )
    assert _codes(src, "callReview.ts") == []
    kept = src.replace("(transcript: string,", "(transcript: Message[],").replace(
        "transcript.length > 2000 ? transcript.substring(0, 2000) : transcript",
        "formatHistory(transcript)",
    )
    assert _codes(kept, "callReview.ts") == [(5, "PL305")]


def test_typescript_a_window_of_any_list_sent_after_the_system_message() -> None:
    # A React chat component: the recent entries of a list named for nothing in particular are
    # spread after the system message of the request it sends.
    src = (
        "export function Chat() {\n"
        "  const send = async (text: string) => {\n"
        "    const base = [...visible, { role: 'user', content: text }]\n"
        "    const apiMessages = [{ role: 'system', content: buildSystemPrompt() }]\n"
        "    const recent = base.slice(-20).map((m) => ({ role: m.role, content: m.content }))\n"
        "    apiMessages.push(...recent)\n"
        "    streamChat(settings, apiMessages)\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "Chat.tsx") == [(5, "PL303")]
    # Twin: the same cut shown as a preview, sent nowhere.
    preview = src.replace("    apiMessages.push(...recent)\n", "    setPreview([...recent])\n")
    assert _codes(preview, "Chat.tsx") == []


def test_python_a_tool_description_carrying_the_month() -> None:
    # A tool's own prompt module: its description is sent in the tool list of every request.
    src = (
        "from datetime import datetime\n"
        "\n"
        "def get_web_search_prompt() -> str:\n"
        "    month = datetime.now().strftime('%B %Y')\n"
        "    return f'Searches the web. The current month is {month}.'\n"
    )
    assert _codes(src, "tools/WebSearchTool/prompt.py") == [(4, "PL102")]
    # Twin: the same function outside a tools folder is a helper's text, not a tool's.
    assert _codes(src, "search/prompt.py") == []


_OVERFLOW_PY = (
    "async def run(self, messages):\n"
    "    prepared = await self._context.prepare(messages)\n"
    "    request = prepared.request\n"
    "    while True:\n"
    "        try:\n"
    "            return await self._provider.generate(request)\n"
    "        except ModelContextOverflowSignal:\n"
    "            recovered = await self._context.force_prepare()\n"
    "            request = recovered.request\n"
)


def test_python_a_request_rebuilt_on_a_context_overflow_and_resent() -> None:
    # The handler does not show the cut: a call makes the request anew, and the loop sends it.
    assert _codes(_OVERFLOW_PY, "_agent_loop.py") == [(9, "PL303")]
    # Twin: the handler rebuilds a report of the failure, which the request does not send.
    report = _OVERFLOW_PY.replace(
        "            request = recovered.request\n", "            note = recovered.summary\n"
    )
    assert _codes(report, "_agent_loop.py") == []


_LAST_ONLY_PY = (
    "def to_anthropic(chat, image_urls):\n"
    "    out = []\n"
    "    for message in chat.messages:\n"
    "        role, content = message\n"
    "        if image_urls and chat.messages[-1] == message:\n"
    "            blocks = [{'type': 'text', 'text': content}]\n"
    "            blocks += [{'type': 'image', 'source': {'url': u}} for u in image_urls]\n"
    "            out.append({'role': 'user', 'content': blocks})\n"
    "        else:\n"
    "            out.append({'role': role, 'content': str(content)})\n"
    "    return client.messages.create(model=MODEL, messages=out)\n"
)


def test_python_the_newest_message_sent_in_another_form_than_when_older() -> None:
    assert _codes(_LAST_ONLY_PY, "provider.py") == [(5, "PL303")]
    # Twin: the branch is on the message's role, the same on every turn.
    by_role = _LAST_ONLY_PY.replace(
        "if image_urls and chat.messages[-1] == message:", "if role == 'user' and image_urls:"
    )
    assert _codes(by_role, "provider.py") == []


_EXCERPT_PY = (
    "def recent_context(messages, max_chars=1000):\n"
    "    parts = []\n"
    "    total = 0\n"
    "    for msg in reversed(messages):\n"
    "        text = str(msg.get('content', ''))\n"
    "        if total + len(text) > max_chars:\n"
    "            break\n"
    "        parts.insert(0, text)\n"
    "        total += len(text)\n"
    "    return '\\n\\n'.join(parts)\n"
)


def test_python_a_budget_fill_made_into_one_text_is_an_excerpt() -> None:
    # The recent turns, joined into a text a side request explains a command from.
    assert _codes(_EXCERPT_PY, "explainer.py") == []
    # Twin: the same fill returned as the message list a request sends.
    kept = _EXCERPT_PY.replace("parts.insert(0, text)", "parts.insert(0, msg)").replace(
        "    return '\\n\\n'.join(parts)\n",
        "    return [{'role': 'system', 'content': S}, *parts]\n",
    )
    assert _codes(kept, "explainer.py") == [(4, "PL303")]


_BUDGET_PY = (
    "def compose(self, request, recent):\n"
    "    messages = self._build_messages(request, recent)\n"
    "    while character_count(messages) > self.maximum:\n"
    "        self._drop_oldest_turn(recent)\n"
    "        messages = self._build_messages(request, recent)\n"
    "    return messages\n"
)


def test_python_oldest_turns_dropped_by_a_helper_while_over_a_budget() -> None:
    assert _codes(_BUDGET_PY, "composer.py") == [(4, "PL303")]
    # Twin: the loop drops duplicates, whatever their age.
    dupes = _BUDGET_PY.replace("_drop_oldest_turn", "_drop_duplicate_turn")
    assert _codes(dupes, "composer.py") == []


_AHEAD_PY = (
    "def build(self, request, recent, memories):\n"
    "    messages = [LLMMessage(ChatRole.SYSTEM, self.persona)]\n"
    "    dynamic = self._encoder.encode(memories=memories, emotion=request.emotion)\n"
    "    messages.append(LLMMessage(ChatRole.SYSTEM, dynamic))\n"
    "    messages.extend(LLMMessage(m.role, m.content) for m in recent)\n"
    "    messages.append(LLMMessage(ChatRole.USER, request.text))\n"
    "    return messages\n"
)


def test_python_recalled_memories_in_a_system_message_ahead_of_the_history() -> None:
    assert _codes(_AHEAD_PY, "composer.py") == [(4, "PL304")]
    # Twin: the same message after the history, beside the newest turn.
    after = _AHEAD_PY.replace(
        "    messages.append(LLMMessage(ChatRole.SYSTEM, dynamic))\n"
        "    messages.extend(LLMMessage(m.role, m.content) for m in recent)\n",
        "    messages.extend(LLMMessage(m.role, m.content) for m in recent)\n"
        "    messages.append(LLMMessage(ChatRole.SYSTEM, dynamic))\n",
    )
    assert _codes(after, "composer.py") == []


_AHEAD_TS = (
    "export function Chat() {\n"
    "  const send = async (text: string) => {\n"
    "    const apiMessages = [{ role: 'system', content: buildSystemPrompt() }]\n"
    "    const memory = recallRelevantMemories(loadMemory(), text)\n"
    "    apiMessages.push({ role: 'system', content: memory.map((m) => m.text).join('\\n') })\n"
    "    apiMessages.push(...history)\n"
    "    streamChat(settings, apiMessages)\n"
    "  }\n"
    "}\n"
)


def test_typescript_recalled_memories_in_a_system_message_ahead_of_the_history() -> None:
    assert _codes(_AHEAD_TS, "Chat.tsx") == [(5, "PL304")]
    # Twin: the memories pushed after the history, beside the newest turn.
    lines = _AHEAD_TS.splitlines(keepends=True)
    lines[4], lines[5] = lines[5], lines[4]
    assert _codes("".join(lines), "Chat.tsx") == []


_INSTRUCTIONS_PY = (
    "def add_branch_info(ctx):\n"
    "    info = BranchInfo.from_dir(directory=ctx.deps)\n"
    "    return f'The branch is {info.name} at commit {info.commit_sha}.'\n"
    "\n"
    "agent = Agent(model=MODEL, instructions=[WHO_YOU_ARE, add_branch_info])\n"
)


def test_python_a_function_in_an_agents_instructions_list() -> None:
    # pydantic-ai runs each function of `instructions=[...]` for every model request of a run.
    # The finding stands where the branch is read: `BranchInfo.from_dir(...)`, a class's
    # reading constructor, carries what the class is named for.
    assert _codes(_INSTRUCTIONS_PY, "agents.py") == [(2, "PL104")]
    # Twin: the function is only defined beside the agent, not handed to it.
    alone = _INSTRUCTIONS_PY.replace(", add_branch_info]", "]")
    assert _codes(alone, "agents.py") == []


_BLOCKS_PY = (
    "def render_datetime_block():\n"
    "    return f'The current date and time is {datetime.now().isoformat()}.'\n"
    "\n"
    "def runtime_prompt_blocks(workspace):\n"
    "    return [\n"
    "        PromptBlock('workspace', f'You work in {workspace.name}.'),\n"
    "        PromptBlock('current_datetime', render_datetime_block()),\n"
    "    ]\n"
)


def test_python_the_blocks_a_prompt_is_joined_from() -> None:
    # The blocks a system prompt builder of another module joins: each one is prompt text.
    src = "from datetime import datetime\n\n" + _BLOCKS_PY
    assert _codes(src, "prompt.py") == [(4, "PL101")]
    # Twin: blocks of a page layout, no prompt's.
    page = src.replace("runtime_prompt_blocks", "runtime_page_blocks")
    assert _codes(page, "prompt.py") == []


# A voice app's server starts a realtime session: its instructions (the time, a greeting built
# by a prompt helper) are set once when the session starts and kept for the connection.
_REALTIME_TS = (
    "export async function startVoiceSession(user: User, history: Msg[]) {\n"
    "  const now = new Date().toLocaleString();\n"
    "  const instructions = mergeSystemPrompt(BASE, `It is ${now}. You talk to ${user.name}.`);\n"
    "  const r = await fetch('https://api.openai.com/v1/realtime/sessions', {\n"
    "    method: 'POST',\n"
    "    body: JSON.stringify({ model: 'gpt-realtime', voice: 'alloy', instructions }),\n"
    "  });\n"
    "  return r.json();\n"
    "}\n"
)


def test_typescript_a_realtime_sessions_instructions_are_set_once() -> None:
    assert [c for _, c in _codes(_REALTIME_TS, "voice.ts") if c == "PL101"] == []
    # The twin: the same instructions sent as the system message of a chat over the history.
    chat = _REALTIME_TS.replace(
        "    body: JSON.stringify({ model: 'gpt-realtime', voice: 'alloy', instructions }),\n",
        "    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'system', content: "
        "instructions }, ...history] }),\n",
    )
    assert (3, "PL101") in _codes(chat, "voice.ts")


def test_typescript_a_database_query_or_a_prompt_builder_asks_no_model() -> None:
    # A one-shot request beside a database query and a prompt builder: the clock reaches only
    # the one-shot request (the SQL `query` and `buildSystemPrompt` are not a model's callers).
    src = (
        "export async function explain(userId: string, question: string) {\n"
        "  const rows = await pool.query('SELECT name FROM users WHERE id = $1', [userId]);\n"
        "  const system = buildSystemPrompt(`Today is ${new Date().toISOString()}`);\n"
        "  return openai.chat.completions.create({\n"
        "    model: 'gpt-4o',\n"
        "    messages: [\n"
        "      { role: 'system', content: system },\n"
        "      { role: 'user', content: question },\n"
        "    ],\n"
        "  });\n"
        "}\n"
    )
    assert [c for _, c in _codes(src, "explain.ts") if c == "PL101"] == []
    # The twin: a call that may ask a model (`agent.run`) keeps the finding.
    asked = src.replace(
        "  const rows = await pool.query('SELECT name FROM users WHERE id = $1', [userId]);\n",
        "  const rows = await agent.run(question);\n",
    )
    assert [c for _, c in _codes(asked, "explain.ts") if c == "PL101"] != []


# An exported prompt builder in one file of a project, its only caller in another.
_PROMPTS_TS = (
    "import dayjs from 'dayjs';\n"
    "export const AnswerSystemPrompt = (rows: string) => `\n"
    "  The current date is ${dayjs().format('DD/MM/YYYY')}.\n"
    "  Transactions: ${rows}`;\n"
)
_SERVICE_TS = (
    "import { AnswerSystemPrompt } from './prompts';\n"
    "export class ChatService {\n"
    "  async answer(question: string, rows: string) {\n"
    "    return this.invokeModel(this.model, [\n"
    "      { role: 'system', content: AnswerSystemPrompt(rows) },\n"
    "      { role: 'user', content: question },\n"
    "    ]);\n"
    "  }\n"
    "}\n"
)


def _lint_project(tmp_path: Path, service: str) -> list[tuple[str, int, str]]:
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "prompts.ts").write_text(_PROMPTS_TS)
    (tmp_path / "src" / "service.ts").write_text(service)
    found = lint_paths([str(tmp_path)], LintConfig(), jobs=1).findings
    return [(Path(f.path).name, f.line, f.code) for f in found]


def test_typescript_an_exported_builder_whose_callers_elsewhere_are_one_shot(
    tmp_path: Path,
) -> None:
    assert _lint_project(tmp_path, _SERVICE_TS) == []


def test_typescript_an_exported_builder_called_elsewhere_over_a_history(tmp_path: Path) -> None:
    # The twin: the caller in the other file sends the prompt ahead of the kept history.
    history = _SERVICE_TS.replace(
        "      { role: 'user', content: question },\n",
        "      ...this.history,\n      { role: 'user', content: question },\n",
    )
    assert ("prompts.ts", 3, "PL101") in _lint_project(tmp_path, history)


def test_typescript_a_builder_imported_by_a_base_url_path(tmp_path: Path) -> None:
    # `import ... from "lib/prompts"` under a tsconfig baseUrl of `src`: found as project file.
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "lib" / "prompts.ts").write_text(_PROMPTS_TS)
    (tmp_path / "src" / "service.ts").write_text(
        _SERVICE_TS.replace("from './prompts'", "from 'lib/prompts'")
    )
    assert lint_paths([str(tmp_path)], LintConfig(), jobs=1).findings == []
    # The twin: a path that names no project file (a package's) is not followed.
    (tmp_path / "src" / "service.ts").write_text(
        _SERVICE_TS.replace("from './prompts'", "from 'pkg/prompts'")
    )
    found = lint_paths([str(tmp_path)], LintConfig(), jobs=1).findings
    assert [(Path(f.path).name, f.line, f.code) for f in found] == [("prompts.ts", 3, "PL101")]


# An Express router's setup function registers several handlers; the token route starts a
# realtime session (instructions set once), and another route asks a model over a history.
_ROUTES_JS = (
    "export function sessionRoutes(router, pool) {\n"
    "  router.all('/token', asyncHandler(async (req, res) => {\n"
    "    const language = req.body?.language;\n"
    "    const now = new Date().toISOString();\n"
    "    const config = JSON.stringify({\n"
    "      session: { model: 'gpt-realtime', instructions: `Speak ${language}. It is ${now}.`,\n"
    "        audio: { output: { voice: 'cedar' } } },\n"
    "    });\n"
    "    res.json(await fetch(TOKEN_URL, { method: 'POST', body: config }));\n"
    "  }));\n"
    "  router.post('/chat', asyncHandler(async (req, res) => {\n"
    "    res.json(await streamChat(req.body.messages));\n"
    "  }));\n"
    "}\n"
)


def test_javascript_a_route_handler_is_decided_by_its_own_requests() -> None:
    assert [c for _, c in _codes(_ROUTES_JS, "sessions.routes.js") if c == "PL101"] == []
    # The twin: the token route's handler is not registered for a path (a plain helper
    # callback), so the function around it, which also streams a chat, decides.
    helper = _ROUTES_JS.replace("router.all('/token', ", "withRetry(")
    assert (6, "PL101") in _codes(helper, "sessions.routes.js")
