"""Shapes real13's development half missed or reported falsely, made general: a window bound
to a local and handed on as `messages=`, a tool list chosen by the model the request picks, a
conversation cut out of its middle to a budget (a middle-out helper, OpenRouter's `middle-out`
transform, a head and a tail put back together), and a `{{date}}` in a prompt constant that
nothing fills. Each test is fresh code in the real shape with a case that must stay silent."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes


def test_python_a_window_bound_to_a_local_and_passed_as_the_messages() -> None:
    # The provider's own `chat` builds the payload; the window is handed to it by keyword. The
    # same slice handed on as rows of a table is no request.
    src = (
        "class Provider:\n"
        "    def respond(self, messages, context):\n"
        "        system = build_system(context)\n"
        "        trimmed = messages[-8:]\n"
        "        return self.chat(messages=trimmed, system=system)\n"
        "    def show(self, messages):\n"
        "        shown = messages[-8:]\n"
        "        return render(rows=shown)\n"
    )
    assert _codes(src, "provider.py") == [(4, "PL303")]


def test_typescript_tools_chosen_by_the_model_the_request_picks() -> None:
    # The chat template's `experimental_activeTools` keyed on the request's selected model:
    # picking the reasoning model mid-chat drops every tool. A fixed list stays silent.
    src = (
        "export async function POST(req: Request) {\n"
        "  const { messages, selectedChatModel } = await req.json();\n"
        "  const a = streamText({\n"
        "    model: provider.languageModel(selectedChatModel),\n"
        "    messages,\n"
        "    experimental_activeTools:\n"
        "      selectedChatModel === 'chat-model-reasoning' ? [] : ['getWeather'],\n"
        "    tools: { getWeather },\n"
        "  });\n"
        "  const b = streamText({\n"
        "    model: provider.languageModel(selectedChatModel),\n"
        "    messages,\n"
        "    experimental_activeTools: ['getWeather'],\n"
        "    tools: { getWeather },\n"
        "  });\n"
        "  return [a, b];\n"
        "}\n"
    )
    assert _codes(src, "route.ts") == [(7, "PL302")]


def test_python_tools_chosen_by_the_model_the_request_picks() -> None:
    # The deployment's configured model is no per-request pick.
    src = (
        "def respond(client, history, selected_model):\n"
        "    return client.chat.completions.create(\n"
        "        model=selected_model,\n"
        "        messages=[{'role': 'system', 'content': 'You help.'}, *history],\n"
        "        tools=[] if selected_model == 'reasoning' else TOOLS,\n"
        "    )\n"
        "def fixed(client, history, config):\n"
        "    return client.chat.completions.create(\n"
        "        model=config.model,\n"
        "        messages=[{'role': 'system', 'content': 'You help.'}, *history],\n"
        "        tools=[] if config.model == 'reasoning' else TOOLS,\n"
        "    )\n"
    )
    assert _codes(src, "chat.py") == [(5, "PL302")]


def test_typescript_a_middle_out_helper_and_transform() -> None:
    # A helper named for middle-out given the conversation, and OpenRouter's transform; a
    # middleware call, a checker named for the strategy and another transform stay silent.
    src = (
        "export async function step(items: Item[]) {\n"
        "  const r = await middleOutFiltering(items);\n"
        "  checkMiddleOut(items);\n"
        "  const m = middleware(items);\n"
        "  await openrouter.chat({ messages: r.messages, transforms: ['middle-out'] });\n"
        "  await openrouter.chat({ messages: m, transforms: ['compress'] });\n"
        "}\n"
    )
    assert _codes(src, "agent.ts") == [(2, "PL303"), (5, "PL303")]


def test_typescript_a_head_and_tail_put_back_together_under_a_budget() -> None:
    # Head and tail filled while a token budget lasts, then joined: the middle is dropped. The
    # same join where nothing is measured against a budget (a list split for display) is silent.
    src = (
        "export function fit(items: Item[], maxTokens: number) {\n"
        "  const frontMessages: Item[] = [];\n"
        "  const endMessages: Item[] = [];\n"
        "  let used = 0;\n"
        "  for (const item of items) {\n"
        "    used += item.tokenCount;\n"
        "    if (used > maxTokens / 2) break;\n"
        "    frontMessages.push(item);\n"
        "  }\n"
        "  return [...frontMessages, ...endMessages];\n"
        "}\n"
        "export function layout(head: Row[], tail: Row[]) {\n"
        "  return [...head, ...tail];\n"
        "}\n"
    )
    assert _codes(src, "filter.ts") == [(10, "PL303")]


def test_typescript_a_date_slot_nothing_fills_is_text() -> None:
    # The prompt documents `{{date}}` as a variable the user may write into a URL; nothing in
    # the module fills it, so no date reaches the request. Filled by `.replace`, it is a date.
    sent_as_is = (
        "const PARSE_PROMPT = `Parse the config. A url may use {{date}} and {{title}}.`;\n"
        "export async function parse(text: string) {\n"
        "  return llm.chat([{ role: 'system', content: PARSE_PROMPT },"
        " { role: 'user', content: text }]);\n"
        "}\n"
    )
    assert _codes(sent_as_is, "parse.ts") == []
    filled = (
        "const PARSE_PROMPT = `Parse the config. Today is {{date}}.`;\n"
        "export async function parse(text: string) {\n"
        "  const system = fill(PARSE_PROMPT, { date: today() });\n"
        "  return llm.chat([{ role: 'system', content: system },"
        " { role: 'user', content: text }]);\n"
        "}\n"
    )
    assert _codes(filled, "parse.ts") == [(1, "PL102")]


def test_python_a_middle_out_helper_and_transform() -> None:
    # The same two shapes in Python (OpenRouter's transform through `extra_body`); a helper
    # named for the middle of something else and another transform stay silent.
    src = (
        "def step(client, messages):\n"
        "    kept = middle_out_filter(messages, 190_000)\n"
        "    mid = middleware(messages)\n"
        "    client.chat.completions.create(\n"
        "        model='m', messages=kept, extra_body={'transforms': ['middle-out']})\n"
        "    client.chat.completions.create(\n"
        "        model='m', messages=mid, extra_body={'transforms': ['compress']})\n"
    )
    assert _codes(src, "agent.py") == [(2, "PL303"), (5, "PL303")]


def test_typescript_the_users_todo_list_regenerated_into_the_system_prompt() -> None:
    # Read afresh for each request and put ahead of the chat: each edit to a todo between turns
    # changes the prefix. The same builder given the user's name, and a todo prompt for a
    # list that is sent alone (no history after it), stay silent.
    src = (
        "const systemMessages = async (): Promise<Message[]> => {\n"
        "  const out: Message[] = [];\n"
        "  const todos = JSON.parse(localStorage.getItem('todos') || '[]');\n"
        "  const fresh = generateTodoSystemPrompt(todos);\n"
        "  out.push({ role: 'system', content: fresh });\n"
        "  out.push({ role: 'system', content: buildSystemPrompt(userName) });\n"
        "  return out;\n"
        "};\n"
        "const oneShot = (tasks: Task[]) => {\n"
        "  const alone: Message[] = [];\n"
        "  alone.push({ role: 'system', content: buildSystemPrompt(tasks) });\n"
        "  return alone;\n"
        "};\n"
        "export async function send(messages: Message[]) {\n"
        "  const out = await systemMessages();\n"
        "  return client.chat({ messages: [...out, ...messages] });\n"
        "}\n"
    )
    assert _codes(src, "chat.ts") == [(4, "PL304")]


def test_python_the_users_todo_list_regenerated_into_the_system_prompt() -> None:
    # The same shape in Python; the builder given the user's name, and a todo prompt sent with
    # no history after it, stay silent.
    src = (
        "def reply(client, store, history, user_name):\n"
        "    todos = store.load_todos()\n"
        "    system = build_todo_system_prompt(todos)\n"
        "    fixed = build_system_prompt(user_name)\n"
        "    msgs = [{'role': 'system', 'content': system + fixed}, *history]\n"
        "    return client.chat.completions.create(model='m', messages=msgs)\n"
        "def summary(client, tasks):\n"
        "    system = build_system_prompt(tasks)\n"
        "    msgs = [{'role': 'system', 'content': system}]\n"
        "    return client.chat.completions.create(model='m', messages=msgs)\n"
    )
    assert _codes(src, "todo.py") == [(3, "PL304")]


def test_typescript_a_stored_prompt_record_is_no_request() -> None:
    # A settings store's `createSystemPrompt` returns the saved record (an id and stamps); the
    # same name returning text built from the current request is a builder and stays reported.
    record = (
        "export const createSystemPrompt = (input: Input, newName: string) => {\n"
        "  const now = new Date().toISOString();\n"
        "  const newPrompt = { id: uuid(), name: newName, content: input.content,\n"
        "    createdAt: now, updatedAt: now };\n"
        "  prompts.push(newPrompt);\n"
        "  return newPrompt;\n"
        "};\n"
    )
    assert _codes(record, "prompts.ts") == []
    text = (
        "export const createSystemPrompt = (newMessage: string) => {\n"
        "  const newPrompt = `You help. The user asks: ${newMessage}`;\n"
        "  return newPrompt;\n"
        "};\n"
    )
    # Both written into `createSystemPrompt()` through its return, which the record check
    # quiets above: the request where it is read (line 2) and the local returned (line 3).
    assert _codes(text, "prompts.ts") == [(2, "PL304"), (3, "PL304")]


def test_python_a_stored_prompt_record_is_no_request() -> None:
    # The Python form of the settings store: the record's stamps and id are no prompt. A
    # function of the same name that returns text with the clock in it stays reported.
    record = (
        "import datetime, uuid\n"
        "def create_system_prompt(new_name, new_content):\n"
        "    now = datetime.datetime.now().isoformat()\n"
        "    new_prompt = {'id': str(uuid.uuid4()), 'name': new_name,\n"
        "                  'content': new_content, 'created_at': now, 'updated_at': now}\n"
        "    PROMPTS.append(new_prompt)\n"
        "    return new_prompt\n"
    )
    assert _codes(record, "prompts.py") == []
    text = (
        "import datetime\n"
        "def create_system_prompt(new_name):\n"
        "    now = datetime.datetime.now().isoformat()\n"
        "    return f'You help {new_name}. It is {now}.'\n"
    )
    assert [c for _, c in _codes(text, "prompts.py")] == ["PL101"]
