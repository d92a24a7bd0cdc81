"""Rules made general after real7 became development data (its test half was scored once),
grouped by the shape of the data flow: template text that reads the clock or the home's state
when it is rendered, a value named for what the screen shows, an agent class's own prompt
keywords. Each test is written after the real code's shape, with a case that must stay silent."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source
from tests.helpers.lintfind import line_codes as _codes


def test_template_text_bound_to_a_prompt_that_renders_the_clock_or_device_states() -> None:
    # A Home Assistant conversation agent: the prompt constants are Jinja templates that the
    # integration renders for each request (elsewhere); `now()` and each device's `.state` are
    # read at render time. One finding a kind, at the expression's line; the other languages'
    # copies of the same template are the same breaker.
    src = (
        "CURRENT_DATE_PROMPT = {\n"
        '    "en": """The time is {{ (as_timestamp(now()) | timestamp_custom("%H:%M")) }}""",\n'
        '    "de": """Es ist {{ now().hour }} Uhr""",\n'
        "}\n"
        'DEFAULT_PROMPT = """You control the devices of a home.\n'
        "Devices:\n"
        "{% for device in devices %}\n"
        "{{ device.entity_id }} '{{ device.name }}' = {{ device.state }}\n"
        "{% endfor %}\n"
        '"""\n'
        # Fixed template text: slots the caller fills, no clock, no state.
        'PERSONA_PROMPT = """You are {{ name }}, a {{ role }}."""\n'
        # Not a prompt: a notification's text.
        'NOTIFY_TEXT = "Updated at {{ now() }}"\n'
    )
    assert _codes(src, "const.py") == [(2, "PL101"), (8, "PL106")]


def test_a_value_named_for_the_screen_reaches_the_system_prompt() -> None:
    # A computer-use agent: each step's parsed screen (box ids and labels) is passed to the
    # method that builds the system prompt; its parameter's name says what the value is.
    src = (
        "class VLMAgent:\n"
        "    def __call__(self, messages, parsed_screen):\n"
        "        boxes = parsed_screen['screen_info']\n"
        "        system = self._get_system_prompt(boxes)\n"
        "        return self.client.messages.create(\n"
        "            model='m', max_tokens=9, system=system, messages=messages\n"
        "        )\n"
        "    def _get_system_prompt(self, screen_info: str = '', screen_width: int = 0):\n"
        "        return f'''You operate a computer ({screen_width} px wide).\n"
        "Boxes on the screen: {screen_info}'''\n"
    )
    found = [(f.line, f.code) for f in lint_source(src, "vlm_agent.py")]
    # Where the caller hands the screen over, and the slot it lands in; not the width.
    assert found == [(4, "PL105"), (10, "PL105")]


def test_an_agent_class_takes_its_prompt_template_by_keyword() -> None:
    # A search agent built per request, its planner's template opening with today's date; the
    # class is chosen in the call. The user's input template is the newest turn, not the
    # prompt; an agent built at import with a date read at import keeps both for the process.
    src = (
        "from datetime import datetime\n"
        "TODAY = datetime.now().strftime('The current date is %Y-%m-%d.')\n"
        "cli_agent = SearchAgent(llm=None, template=TODAY)\n"
        "def init_agent(llm, use_async=False):\n"
        "    date = datetime.now().strftime('The current date is %Y-%m-%d.')\n"
        "    query = datetime.now().isoformat()\n"
        "    return (AsyncSearchAgent if use_async else SearchAgent)(\n"
        "        llm=llm,\n"
        "        template=date,\n"
        "        user_input_template=query,\n"
        "    )\n"
    )
    assert _codes(src, "agent/__init__.py") == [(5, "PL102")]


def test_a_helper_that_fills_the_prompt_it_is_given_with_the_clock() -> None:
    # A chat server's placeholder filler: whichever prompt a caller passes (the assistant's
    # system prompt among them) comes back with {{CURRENT_DATETIME}} replaced by the clock. A
    # helper that returns something else beside its prompt argument (a timing) is no filler.
    src = (
        "from datetime import datetime\n"
        "import time\n"
        "PAT = '{{CURRENT_DATETIME}}'\n"
        "def current_day_time():\n"
        "    return datetime.now().strftime('%A %B %d, %Y %H:%M')\n"
        "def replace_datetime_tag(prompt_str: str) -> str:\n"
        "    if PAT in prompt_str:\n"
        "        prompt_str = prompt_str.replace(PAT, current_day_time())\n"
        "    return prompt_str\n"
        "def check_completion(prompt, llm):\n"
        "    start = time.time()\n"
        "    answer = llm(prompt)\n"
        "    return answer, prompt, time.time() - start\n"
    )
    assert _codes(src, "prompt_utils.py") == [(5, "PL101")]


def test_a_mode_read_where_an_agent_is_built_once_is_no_per_request_choice() -> None:
    # A browser agent's static factory builds the agent for one conversation: the tools and
    # the instructions chosen by its chat mode stay the same for every request it sends. The
    # same choice in a request handler changes between two requests of one chat.
    built = (
        "export class BrowserAgent {\n"
        "  private constructor(private agent: ToolLoopAgent) {}\n"
        "  static async create(config: AgentConfig): Promise<BrowserAgent> {\n"
        "    const tools = config.chatMode ? readOnlyTools : allTools\n"
        "    const instructions = config.chatMode ? CHAT_PROMPT : AGENT_PROMPT\n"
        "    return new BrowserAgent(new ToolLoopAgent({ model, tools, instructions }))\n"
        "  }\n"
        "}\n"
    )
    assert _codes(built, "agent.ts") == []
    per_request = (
        "export async function POST(req: Request) {\n"
        "  const { messages, chatMode } = await req.json()\n"
        "  const tools = chatMode ? readOnlyTools : allTools\n"
        "  return streamText({ model, system: SYSTEM_PROMPT, tools, messages })\n"
        "}\n"
    )
    assert _codes(per_request, "route.ts") == [(3, "PL302")]


def test_what_the_user_is_viewing_reaches_a_tagged_template_prompt() -> None:
    # A mail client's chat prompt is a `dedent`-tagged template that names the folder and
    # filter the user is viewing; they change as the user moves around during one chat. A
    # parameter of another meaning (the thread count) is fixed text.
    src = (
        "import dedent from 'dedent'\n"
        "export const AiChatPrompt = (currentFolder: string, maxThreads: number) =>\n"
        "  dedent`<system>\n"
        "    You are an email assistant. Show at most ${maxThreads} threads.\n"
        "    ${currentFolder ? `<note>Use the current folder: ${currentFolder}</note>` : ''}\n"
        "  </system>`\n"
    )
    assert _codes(src, "prompts.ts") == [(3, "PL105")]
    found = lint_source(src, "prompts.ts")[0]
    assert "currentFolder" in found.message and "line 5" in found.message


def test_context_retrieved_for_the_input_text_in_the_system_prompt_in_both_languages() -> None:
    # A framework's agent appends what its retriever found for the request's input text to the
    # system prompt of every request. The names of the request and the fetch words are shared
    # by the two front ends; a retriever handed a fixed key is no per-request fetch.
    ts = (
        "export class OpenAIAgent {\n"
        "  async processRequest(inputText: string, chatHistory: Message[]) {\n"
        "    let systemPrompt = this.systemPrompt\n"
        "    const response = await this.retriever.retrieveAndCombineResults(inputText)\n"
        "    systemPrompt = systemPrompt + '\\nContext:\\n' + response\n"
        "    const glossary = await this.retriever.retrieveAndCombineResults('glossary')\n"
        "    const system = systemPrompt + glossary\n"
        "    const messages = [{ role: 'system', content: system }, ...chatHistory]\n"
        "    return this.client.chat.completions.create({ model: this.model, messages })\n"
        "  }\n"
        "}\n"
    )
    assert [c for _, c in _codes(ts, "openAIAgent.ts")] == ["PL304"]
    py = (
        "class Agent:\n"
        "    def answer(self, input_text, history):\n"
        "        context = self.retriever.retrieve(input_text)\n"
        "        system = self.system_prompt + '\\nContext:\\n' + context\n"
        "        return self.client.messages.create(\n"
        "            model='m', max_tokens=9, system=system, messages=history\n"
        "        )\n"
    )
    assert _codes(py, "agent.py") == [(3, "PL304")]


def test_the_current_request_written_ahead_of_the_history_in_python_as_in_typescript() -> None:
    # A model bridge inserts what the user's input names as a system message after the system
    # prompt and before the history. A count of questions, a file read by a function named for
    # the user and a chain's bare `input` are not the request's text; a one-off request has no
    # history after it.
    src = (
        "class Bridge:\n"
        "    def payload(self, user_input, history, system_prompt, question_count):\n"
        "        messages = [{'role': 'system', 'content': system_prompt}]\n"
        "        messages.append({'role': 'system', 'content': f'Files: {user_input}'})\n"
        "        messages.append({'role': 'system', 'content': f'Ask {question_count}'})\n"
        "        messages.append({'role': 'system', 'content': read_user_text(self.path)})\n"
        "        messages.extend(history)\n"
        "        return messages\n"
        "    def classify(self, client, user_input):\n"
        "        return client.chat.completions.create(model='m', messages=[\n"
        "            {'role': 'system', 'content': f'Classify: {user_input}'},\n"
        "            {'role': 'user', 'content': user_input},\n"
        "        ])\n"
    )
    assert _codes(src, "bridge.py") == [(4, "PL304")]
