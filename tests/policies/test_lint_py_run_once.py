"""Two Python shapes that were reported though nothing breaks, and their twins that still are:
a file with Python 3.12 f-strings, read under Python 3.11 (`pycheck.fstrings`), and a value
read once for a conversation the function starts itself (`pycheck.runonce`)."""

from __future__ import annotations

import ast
import sys

import pytest

from prefixlock.policies.pycheck import check_python
from prefixlock.policies.pycheck.fstrings import downlevel

# A Python 3.12 f-string reusing its quotes, on the line of a history rewrite.
_REWRITE = (
    "def act(state):\n"
    "    state['messages'].pop()\n"
    "    last = state['messages'][-1]\n"
    "    if isinstance(last, HumanMessage):\n"
    "        state['messages'][-1] = HumanMessage(f'<Obs>{state.get('prev')}</Obs>')\n"
    "    system = f'You are an agent. Today is {datetime.now():%Y-%m-%d}'\n"
    "    return client.messages.create(model='m', system=system, messages=state['messages'])\n"
)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 parses these itself")
def test_a_python_312_f_string_file_is_linted_not_a_syntax_error() -> None:
    codes = [f.code for f in check_python("agent.py", _REWRITE)]
    assert "PL901" not in codes
    assert "PL102" in codes  # the file is read: the date in its system prompt is found


_ENV = {"d": {"key": 1}, "xs": ["a", "b"], "a": 1, "w": 3, "c": 1, "y": {"a": 2}, "fmt": ">4"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x = f'{d['key']}'\n", "1"),
        ("x = f\"{'\\n'.join(xs)}\"\n", "a\nb"),
        ("x = f\"data: {dict(**{\n  'a': 1,\n})}\"\n", "data: {'a': 1}"),
        ("x = f'{a!r:>{w}} {c + 1 # note\n}'\n", "  1 2"),
        ('x = f"{y["a"]:{fmt}} {\'it\\\'s\'}"\n', "   2 it's"),
    ],
)
def test_each_312_f_string_is_rewritten_to_the_same_value_on_the_same_lines(
    text: str, value: str
) -> None:
    out = downlevel(text)
    assert out is not None and out.count("\n") == text.count("\n")
    env = dict(_ENV)
    exec(compile(ast.parse(out), "<rewritten>", "exec"), env)  # the older grammar reads it
    assert env["x"] == value


def test_a_real_syntax_error_is_still_reported() -> None:
    assert downlevel("x = 1\n") is None
    found = check_python("bad.py", "def f(:\n    return f'{x}'\n")
    assert [f.code for f in found] == ["PL901"]


# A run that starts its own conversation: the date read before its loop.
_RUN = (
    "from datetime import datetime\n\n\n"
    "def run(client, task):\n"
    "    system = f'You are an agent. Today is {datetime.now():%Y-%m-%d}'\n"
    "    messages = [{'role': 'system', 'content': system}, {'role': 'user', 'content': task}]\n"
    "    while True:\n"
    "        reply = client.chat.completions.create(model='m', messages=messages)\n"
    "        messages.append({'role': 'assistant', 'content': reply.text})\n"
    "        messages.append({'role': 'user', 'content': input()})\n"
)


def test_a_value_read_once_for_a_conversation_the_function_starts_is_not_reported() -> None:
    assert [f.code for f in check_python("run.py", _RUN)] == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # read inside the loop: a new value each turn
        (
            "    system = f'You",
            "    system = 'x'\n    while not task:\n        system = f'You",
        ),
        # an earlier conversation copied in, message by message
        (
            "    while True:\n",
            "    for m in history:\n        messages.append({'role': m.role, 'content': m.text})\n"
            "    while True:\n",
        ),
        # ... or spread into the list
        ("{'role': 'user', 'content': task}]", "*history]"),
    ],
)
def test_a_value_read_per_turn_or_ahead_of_an_earlier_conversation_is_reported(
    old: str, new: str
) -> None:
    text = _RUN.replace(old, new)
    assert text != _RUN
    assert "PL102" in [f.code for f in check_python("run.py", text)]


# The same run's own work on its list: a compaction of it, its reply turned into a message by a
# helper, one message for each tool call of that reply.
_OWN_WORK = {
    "a compaction of the list itself": (
        "        reply = client",
        "        messages = compact(client, messages, 8000)\n        reply = client",
    ),
    "the reply made a message by a helper": (
        "        messages.append({'role': 'assistant', 'content': reply.text})\n",
        "        messages.append(to_message(reply.choices[0].message))\n",
    ),
    "a message for each tool call of the reply": (
        "        messages.append({'role': 'user', 'content': input()})\n",
        "        for call in reply.tool_calls:\n"
        "            messages.append({'role': 'tool', 'content': run_tool(call)})\n",
    ),
}


@pytest.mark.parametrize("case", sorted(_OWN_WORK))
def test_the_run_s_own_work_on_its_list_keeps_the_value_read_once(case: str) -> None:
    old, new = _OWN_WORK[case]
    text = _RUN.replace(old, new)
    assert text != _RUN
    # The date stays read once; the compaction itself is a window of its own (PL303, the
    # summariser: tests/policies/test_lint_compacted_back.py), not a volatile value.
    codes = [f.code for f in check_python("run.py", text)]
    assert [c for c in codes if c.startswith("PL1")] == []
    assert set(codes) <= {"PL303"}


# Their twins: what is added comes from elsewhere.
_ELSEWHERE = {
    "a list merged with another conversation": (
        "        reply = client",
        "        messages = merge(messages, history)\n        reply = client",
    ),
    "a message handed in": (
        "        messages.append({'role': 'assistant', 'content': reply.text})\n",
        "        messages.append(to_message(task))\n",
    ),
    "a message for each of an earlier conversation's": (
        "        messages.append({'role': 'user', 'content': input()})\n",
        "        for m in saved.history:\n"
        "            messages.append({'role': m.role, 'content': m.text})\n",
    ),
    "a message for each of what a call loads": (
        "        messages.append({'role': 'user', 'content': input()})\n",
        "        for m in store.load():\n"
        "            messages.append({'role': m.role, 'content': m.text})\n",
    ),
    "a message a call loads, reading nothing of the run": (
        "        messages.append({'role': 'assistant', 'content': reply.text})\n",
        "        messages.append(load_previous())\n",
    ),
}


@pytest.mark.parametrize("case", sorted(_ELSEWHERE))
def test_a_list_joined_by_messages_from_elsewhere_keeps_the_finding(case: str) -> None:
    old, new = _ELSEWHERE[case]
    text = _RUN.replace(old, new)
    assert text != _RUN
    assert "PL102" in [f.code for f in check_python("run.py", text)]


# An agent that shortens its previous observation before adding the next.
_SHORTENED = (
    "def step(state, client):\n"
    "    state['messages'].pop()\n"
    "    state['messages'][-1] = HumanMessage(f'<Obs>{state.get(\"prev\")}</Obs>')\n"
    "    return client.invoke(state['messages'])\n"
)


@pytest.mark.parametrize(
    "text",
    [
        _SHORTENED,
        _SHORTENED.replace(
            "    state['messages'].pop()\n    state['messages'][-1]", "    state['messages'][-2]"
        ),
        "def f(self):\n    self.history[-3] = {'role': 'user', 'content': 'short'}\n",
    ],
)
def test_an_earlier_message_replaced_by_its_position_is_pl303(text: str) -> None:
    assert [f.code for f in check_python("agent.py", text)] == ["PL303"]


@pytest.mark.parametrize(
    "text",
    [
        # the newest message, not yet sent, filled in before the request
        _SHORTENED.replace("    state['messages'].pop()\n", ""),
        # the reply popped and a new message added in its place
        _SHORTENED.replace(
            "    state['messages'][-1] = HumanMessage(",
            "    state['messages'].append(HumanMessage(",
        ).replace("</Obs>')\n", "</Obs>'))\n"),
        # a row of a table, not a message
        "def f(rows):\n    rows.pop()\n    rows[-1] = {'role': 'x'}\n",
    ],
)
def test_the_newest_message_filled_in_or_a_new_one_added_is_not(text: str) -> None:
    assert [f.code for f in check_python("agent.py", text)] == []


_MADE = (
    "from pydantic_ai import Agent, RunContext\n"
    "from mylib.tree import {cls}\n\n\n"
    "def add_repo_structure(ctx: RunContext) -> str:\n"
    "    structure = {cls}.{method}(directory=ctx.deps)\n"
    "    return f'The basic structure of the codebase is: {{structure}}.'\n\n\n"
    "agent = Agent('m', instructions=['Be brief.', add_repo_structure])\n"
)


def test_a_class_named_for_a_folder_s_layout_read_by_its_constructor_is_a_tree() -> None:
    text = _MADE.format(cls="DirectoryStructure", method="from_dir")
    assert [(f.line, f.code) for f in check_python("agents.py", text)] == [(6, "PL105")]


@pytest.mark.parametrize(
    ("cls", "method"),
    [("ResponseStructure", "from_dir"), ("DirectoryStructure", "render"), ("DATA", "load")],
)
def test_another_class_or_a_method_that_reads_nothing_is_not(cls: str, method: str) -> None:
    assert check_python("agents.py", _MADE.format(cls=cls, method=method)) == []


_STACK = (
    "from langchain.agents import create_agent\n"
    "from langchain.agents.middleware import {cls}\n\n\n"
    "def build_agent(model, tools, prompt):\n"
    "    stack = [{cls}(model='gpt-4o-mini')]\n"
    "    return create_agent(model, tools=tools, system_prompt=prompt, middleware=stack)\n"
)


def test_a_tool_selector_middleware_is_a_tool_list_picked_per_request() -> None:
    found = check_python("agent.py", _STACK.format(cls="LLMToolSelectorMiddleware"))
    assert [(f.line, f.code) for f in found] == [(6, "PL302")]


def test_another_middleware_is_not() -> None:
    assert check_python("agent.py", _STACK.format(cls="ModelRetryMiddleware")) == []


_LOADED = (
    "history_length = {n}\n\n\n"
    "async def {fn}(channel, llm, text):\n"
    "    history = await channel.get_message_history({arg})\n"
    "    messages = [{{'role': 'system', 'content': 'You are a bot.'}}]\n"
    "    messages += [{{'role': m.role, 'content': m.text}} for m in history]\n"
    "    return await llm.create(messages=messages)\n"
)


@pytest.mark.parametrize("arg", ["history_length", "10", "limit=10"])
def test_a_conversation_loaded_as_its_last_messages_is_a_window(arg: str) -> None:
    text = _LOADED.format(n=10, fn="respond", arg=arg)
    assert [(f.line, f.code) for f in check_python("agent.py", text)] == [(5, "PL303")]


@pytest.mark.parametrize(
    ("n", "fn", "arg"),
    [
        (1, "respond", "history_length"),  # the latest message only
        (10, "respond", "channel_id"),  # the whole conversation of one channel
        (10, "should_respond", "history_length"),  # an excerpt for a yes/no side request
    ],
)
def test_the_latest_message_or_a_side_request_s_excerpt_is_not(n: int, fn: str, arg: str) -> None:
    assert check_python("agent.py", _LOADED.format(n=n, fn=fn, arg=arg)) == []


_FIRST = (
    "class Agent:\n"
    "    def {fn}(self):\n"
    "        prompt = f'You are a bot. Tools: {{self.tool_names()}}'\n"
    "        if self.history and self.history[0]['role'] == 'system':\n"
    "            self.history[0]['content'] = {value}\n"
    "        else:\n"
    "            self.history.insert(0, {{'role': 'system', 'content': prompt}})\n"
)


def test_the_first_message_s_text_rewritten_in_a_change_is_pl302() -> None:
    found = check_python("agent.py", _FIRST.format(fn="_update_system_prompt", value="prompt"))
    assert [(f.line, f.code) for f in found] == [(5, "PL302")]


@pytest.mark.parametrize(
    ("fn", "value"),
    [("_update_system_prompt", "'You are a bot.'"), ("setup", "prompt"), ("describe", "prompt")],
)
def test_fixed_text_or_a_setup_or_a_method_that_neither_changes_nor_sends_is_not(
    fn: str, value: str
) -> None:
    found = check_python("agent.py", _FIRST.format(fn=fn, value=value))
    assert "PL302" not in [f.code for f in found]


def test_the_first_message_s_text_changed_for_a_retry_after_an_error_is_not() -> None:
    text = (
        "def classify(client, messages, prompt):\n"
        "    try:\n"
        "        return client.create(model='m', messages=messages, response_format=JSON)\n"
        "    except TypeError:\n"
        "        messages[0]['content'] = prompt + ' Reply in JSON.'\n"
        "        return client.create(model='m', messages=messages)\n"
    )
    assert "PL302" not in [f.code for f in check_python("agent.py", text)]


def test_a_value_written_into_another_prompt_beside_a_fresh_list_is_reported() -> None:
    # The fresh conversation's system message is fixed text; the date goes to a template made
    # in the same function, which is not that conversation's.
    text = _RUN.replace(
        "    messages = [{'role': 'system', 'content': system}",
        "    TEMPLATES.append(ChatPromptTemplate.from_messages([('system', system)]))\n"
        "    messages = [{'role': 'system', 'content': 'You are an agent.'}",
    )
    assert "PL102" in [f.code for f in check_python("run.py", text)]
