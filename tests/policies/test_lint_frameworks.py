"""Python agent frameworks as real code writes them: where each framework's prompt is (LangChain,
LangGraph, pydantic-ai, OpenAI Agents, Google ADK, AutoGen, CrewAI, LlamaIndex), history windows
(PL303) and side requests (PL305)."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source


def _codes(src: str, path: str = "agent.py") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(src, path)]


def test_langchain_system_message_and_prompt_template() -> None:
    src = (
        "from datetime import datetime\n"
        "from langchain_core.messages import HumanMessage, SystemMessage\n"
        "from langchain_core.prompts import ChatPromptTemplate, SystemMessagePromptTemplate\n"
        "def build(question):\n"
        "    today = datetime.now().strftime('%Y-%m-%d')\n"
        "    return [SystemMessage(content=f'Today is {today}.'), HumanMessage(question)]\n"
        "def templates():\n"
        "    prompt = ChatPromptTemplate.from_messages(\n"
        "        [('system', f'Started {datetime.now()}'), ('human', '{input}')]\n"
        "    )\n"
        "    sys_t = SystemMessagePromptTemplate.from_template(f'Run {datetime.now()}')\n"
        "    ok = [SystemMessage(content='You are terse.'), HumanMessage(f'{datetime.now()}')]\n"
        "    return prompt, sys_t, ok\n"
    )
    # The dated system message, the template's system pair, the system template; the human
    # message is the newest turn. (Built per call: the clock read at import into a template
    # made at import is the process's one prompt.)
    assert _codes(src) == [(5, "PL102"), (9, "PL101"), (11, "PL101")]


def test_langchain_create_agent_and_langgraph_prompt() -> None:
    src = (
        "import datetime\n"
        "from langchain.agents import create_agent\n"
        "from langgraph.prebuilt import create_react_agent\n"
        "def agents():\n"
        "    a = create_agent('gpt-4o', tools=[], system_prompt=f'{datetime.date.today()}')\n"
        "    b = create_react_agent('gpt-4o', tools=[], prompt='You are a helpful assistant')\n"
        "    return a, b\n"
    )
    # Built per call, so a warning (a date read at import would be a note).
    assert _codes(src) == [(5, "PL102")]


def test_pydantic_ai_decorated_prompt_functions() -> None:
    src = (
        "from datetime import date\n"
        "from pydantic_ai import Agent, RunContext\n"
        "agent = Agent('openai:gpt-4o', deps_type=str)\n"
        "@agent.system_prompt(dynamic=True)\n"
        "def add_the_date() -> str:\n"
        "    return f'The date is {date.today()}.'\n"
        "@agent.instructions\n"
        "def add_user_name(ctx: RunContext[str]) -> str:\n"
        '    return f"The user\'s name is {ctx.deps}."\n'
        "@agent.tool_plain\n"
        "def roll() -> str:\n"
        "    return f'{date.today()}'\n"
        "@agent.instructions\n"
        "def add_the_time() -> str:\n"
        "    return f'It is {date.today()}.'\n"
    )
    # The tool's return value is a tool result, not the prompt.
    assert _codes(src) == [(6, "PL102"), (15, "PL102")]


def test_pydantic_ai_system_prompt_without_dynamic_runs_once() -> None:
    # pydantic-ai runs an `@agent.system_prompt` function only while the message history is
    # empty and keeps its text in the first message (Agent.system_prompt's docstring: with
    # `dynamic=True` it is "reevaluated even when `messages_history` is provided"). Its docs'
    # example and pydantic-ai's own CLI: the time is read once per chat, not per request.
    src = (
        "from datetime import date, datetime\n"
        "from pydantic_ai import Agent\n"
        "agent = Agent('openai:gpt-4o')\n"
        "@agent.system_prompt\n"
        "def cli_system_prompt() -> str:\n"
        "    return f'The current date and time is {datetime.now()}.'\n"
        "@agent.system_prompt(dynamic=False)\n"
        "def add_the_day() -> str:\n"
        "    return f'Today is {date.today():%A}.'\n"
    )
    assert _codes(src) == []


def test_openai_agents_instructions_callable() -> None:
    src = (
        "from datetime import datetime\n"
        "from agents import Agent, RunContextWrapper\n"
        "def dynamic_instructions(context: RunContextWrapper, agent: Agent) -> str:\n"
        "    return f'You are {agent.name}. Current time: {datetime.utcnow().isoformat()}'\n"
        "agent = Agent(name='Triage', instructions=dynamic_instructions)\n"
    )
    assert _codes(src) == [(4, "PL101")]


def test_adk_instruction_state_slots() -> None:
    src = (
        "from datetime import datetime\n"
        "from google.adk.agents import LlmAgent\n"
        "def before_agent(callback_context):\n"
        "    callback_context.state['_time'] = datetime.now().isoformat()\n"
        "    callback_context.state['user_name'] = 'Ada'\n"
        "root_agent = LlmAgent(\n"
        "    name='helper',\n"
        "    model='gemini-2.0-flash',\n"
        "    instruction='Help {user_name}. The time now is {_time}. {{literal}}',\n"
        "    before_agent_callback=before_agent,\n"
        ")\n"
        "other = LlmAgent(name='o', model='m', instruction='Today is {current_date?}.')\n"
    )
    # The state value set for {_time} is the clock reading; {current_date?} is read by name.
    assert _codes(src) == [(4, "PL101"), (12, "PL102")]


def test_autogen_crewai_llamaindex() -> None:
    src = (
        "import datetime\n"
        "import autogen\n"
        "from crewai import Agent\n"
        "from llama_index.core.agent import ReActAgent\n"
        "def team():\n"
        "    a = autogen.AssistantAgent('a', system_message=f'Today {datetime.date.today()}')\n"
        "    c = Agent(role='Analyst', goal='Report', backstory=f'{datetime.datetime.now()}')\n"
        "    r = ReActAgent.from_tools([], system_prompt=f'{datetime.datetime.now()}')\n"
        "    u = autogen.UserProxyAgent('u', system_message='Reply TERMINATE when done.')\n"
        "    return a, c, r, u\n"
    )
    assert _codes(src) == [(6, "PL102"), (7, "PL101"), (8, "PL101")]


def test_python_history_windows() -> None:
    src = (
        "def ask(client, system, messages, n=10):\n"
        "    return client.messages.create(model='m', system=system, messages=messages[-n:])\n"
        "def last_three(history):\n"
        "    recent = [{'role': 'user', 'content': 'hi'}]\n"
        "    return history[-3:]\n"
        "def fit(messages, max_tokens):\n"
        "    kept, used = [], 0\n"
        "    for m in reversed(messages):\n"
        "        used += len(m['content'])\n"
        "        if used > max_tokens:\n"
        "            break\n"
        "        kept.insert(0, m)\n"
        "    return kept\n"
        "def drop(messages, limit):\n"
        "    while len(messages) > limit:\n"
        "        messages.pop(0)\n"
        "def shrink(messages):\n"
        "    out = []\n"
        "    for i, m in enumerate(messages):\n"
        "        if i < len(messages) - 3:\n"
        "            out.append({'role': m['role'], 'content': m['content'][:200]})\n"
        "        else:\n"
        "            out.append(m)\n"
        "    return out\n"
        "def newest(messages):\n"
        "    return messages[-1]\n"
    )
    assert _codes(src) == [(2, "PL303"), (5, "PL303"), (8, "PL303"), (15, "PL303"), (19, "PL303")]


def test_a_log_kept_to_its_last_entries_is_not_a_conversation() -> None:
    src = (
        "def save(state, entry):\n"
        "    state['history'].append(entry)\n"
        "    state['history'] = state['history'][-30:]\n"
    )
    assert _codes(src) == []


def test_adk_state_set_from_a_local_of_the_callback() -> None:
    # ADK's oauth_calendar_agent sample: the time formatted in the callback, then stored.
    src = (
        "from datetime import datetime\n"
        "from google.adk.agents import Agent\n"
        "def update_time(callback_context):\n"
        "    now = datetime.now()\n"
        "    formatted_time = now.strftime('%Y-%m-%d %H:%M:%S')\n"
        "    callback_context.state['_time'] = formatted_time\n"
        "root_agent = Agent(\n"
        "    model='gemini-2.0-flash',\n"
        "    instruction='Current time: {_time}',\n"
        "    before_agent_callback=update_time,\n"
        ")\n"
    )
    assert _codes(src) == [(6, "PL101")]


def test_conversation_flattened_into_a_lone_system_message() -> None:
    # AutoGen's distributed group chat: the speaker selector sends the whole conversation in
    # one system message of its own every round; a system message that only mentions a chat
    # (CrewAI's crew_chat_inputs) is not the conversation.
    src = (
        "from autogen_core.models import SystemMessage\n"
        "class Manager:\n"
        "    async def handle_message(self, message):\n"
        "        self._chat_history.append(message)\n"
        "        lines = []\n"
        "        for msg in self._chat_history:\n"
        "            lines.append(f'{msg.source}: {msg.content}')\n"
        "        history = '\\n'.join(lines)\n"
        "        selector_prompt = f'Pick the next speaker.\\n{history}'\n"
        "        system_message = SystemMessage(content=selector_prompt)\n"
        "        return await self._model_client.create([system_message])\n"
        "def intro(chat_llm, crew_chat_inputs):\n"
        "    system_message = build_system_message(crew_chat_inputs)\n"
        "    return chat_llm.call(messages=[{'role': 'system', 'content': system_message}])\n"
    )
    assert _codes(src) == [(11, "PL305")]


def test_a_message_part_timestamp_is_metadata() -> None:
    # Upsonic's ChatPromptTemplate: the part's `timestamp=` travels beside its content.
    src = (
        "from datetime import datetime\n"
        "def render(text):\n"
        "    system_prompt = SystemPromptPart(content=text, timestamp=datetime.now())\n"
        "    return system_prompt\n"
        "def render_now():\n"
        "    system_prompt = SystemPromptPart(content=f'Now {datetime.now()}')\n"
        "    return system_prompt\n"
    )
    assert _codes(src) == [(6, "PL101")]


def test_side_request_with_a_system_prompt_of_its_own() -> None:
    src = (
        "def compress(client, messages):\n"
        "    return client.messages.create(\n"
        "        model='m', system='Compress the conversation below.', messages=messages\n"
        "    )\n"
        "def turn(client, system_prompt, messages):\n"
        "    return client.messages.create(model='m', system=system_prompt, messages=messages)\n"
    )
    assert _codes(src) == [(2, "PL305")]


def test_clock_and_git_output_made_in_a_helper_module(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "helpers.py").write_text(
        "import subprocess\n"
        "from datetime import datetime\n"
        "def stamp() -> str:\n"
        "    return datetime.now().strftime('%Y-%m-%d %H:%M')\n"
        "def describe_changes() -> str:\n"
        "    return subprocess.run(['git', 'diff', '--stat'], capture_output=True).stdout\n"
        "def rules() -> str:\n"
        "    return 'Be brief.'\n"
    )
    (app / "agent.py").write_text(
        "from .helpers import describe_changes, rules, stamp\n"
        "def build_system_prompt() -> str:\n"
        "    return f'{rules()} As of {stamp()}.\\n{describe_changes()}'\n"
    )
    result = lint_paths([str(app)], LintConfig(), jobs=1)
    # Neither name says what it returns: the values are followed into the helper module.
    assert [(Path(f.path).name, f.line, f.code) for f in result.findings] == [
        ("agent.py", 3, "PL101"),
        ("agent.py", 3, "PL104"),
    ]
    assert "made in helpers, line 4" in result.findings[0].message
