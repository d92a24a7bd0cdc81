"""Python shapes the rules missed or misfired on in real10 to real15 once both halves of each
became development data: each test is a synthetic twin pair of the real shape, the positive
first."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source
from tests.helpers.lintfind import line_codes as _codes


def test_a_clock_read_at_import_into_a_module_prompt_is_no_finding() -> None:
    # Chat CLIs and a Streamlit app: the prompt constant is made once per process, and the
    # conversation lives in that process (a server's is reported: the next test). The twin
    # reads the clock in the function that builds each request's prompt.
    src = (
        "from datetime import datetime\n"
        "SYSTEM_PROMPT = f\"Current date: {datetime.now().strftime('%Y-%m-%d')}\"\n"
        "messages = [{'role': 'system', 'content': SYSTEM_PROMPT}]\n"
        "while True:\n"
        "    messages.append({'role': 'user', 'content': input('> ')})\n"
        "    client.chat.completions.create(model='m', messages=messages)\n"
    )
    assert _codes(src, "main.py") == []
    per_call = (
        "from datetime import datetime\n"
        "def system_prompt():\n"
        "    return f\"Current date: {datetime.now().strftime('%Y-%m-%d')}\"\n"
        "def turn(client, history):\n"
        "    msgs = [{'role': 'system', 'content': system_prompt()}, *history]\n"
        "    return client.chat.completions.create(model='m', messages=msgs)\n"
    )
    assert [c for _, c in _codes(per_call, "main.py")] == ["PL102"]


def test_recent_turns_excerpted_for_a_side_verdict_are_no_window() -> None:
    # An intent analyzer and an answer analyzer each send the last few turns, under a prompt of
    # their own, for a one-off JSON verdict; the session replays its whole history elsewhere.
    # The twin cuts the conversation the chat turn itself sends.
    side = (
        "def analyze_intent(client, conversation, text):\n"
        "    messages = [{'role': 'system', 'content': INTENT_PROMPT}]\n"
        "    for msg in conversation[-3:]:\n"
        "        messages.append({'role': msg['role'], 'content': msg['content']})\n"
        "    messages.append({'role': 'user', 'content': text})\n"
        "    return client.chat.completions.create(model='m', messages=messages)\n"
    )
    assert _codes(side, "intent.py") == []
    turn = side.replace("def analyze_intent(", "def reply(")
    assert _codes(turn, "intent.py") == [(3, "PL303")]


def test_a_clock_at_the_head_of_a_prompt_text_that_carries_the_conversation() -> None:
    # A booking assistant's prompt is one text rebuilt every turn: the persona, today's date,
    # then the conversation so far. The twin's text holds no conversation: a one-shot prompt.
    src = (
        "from datetime import datetime\n"
        "def build_booking_prompt(state):\n"
        "    today = datetime.now().strftime('%Y-%m-%d')\n"
        "    conversation_text = ''.join(f\"{m['role']}: {m['content']}\" for m in state)\n"
        '    return f"""You are a travel assistant. Today is {today}.\n'
        "    CONVERSATION SO FAR:\n"
        '    {conversation_text}"""\n'
    )
    assert _codes(src, "prompts.py") == [(3, "PL102")]
    one_shot = src.replace("{conversation_text}", "{state[-1]}")
    assert _codes(one_shot, "prompts.py") == []


def test_a_history_cut_by_a_context_managers_truncation_helper() -> None:
    # An agent loop hands its messages to the context manager's truncation and sends (and
    # keeps) what comes back. The twin's helper belongs to a renderer, which holds no budget.
    src = (
        "async def step(self):\n"
        "    current_messages = self.history.get_messages_for_llm()\n"
        "    truncated = self.context_manager.apply_truncation_if_needed(current_messages)\n"
        "    self.history.set_message_list(truncated)\n"
        "    return await self.llm.generate(messages=truncated)\n"
    )
    assert _codes(src, "reviewer.py") == [(3, "PL303")]
    other = src.replace("self.context_manager.", "self.renderer.")
    assert _codes(other, "reviewer.py") == []


def test_a_window_extended_into_a_list_handed_to_the_model_call_by_position() -> None:
    # A browser assistant extends its request list with the last 25 session messages and hands
    # the list to its provider call positionally. The twin hands it to a logger.
    src = (
        "async def respond(self, message, session_history):\n"
        "    messages = [{'role': 'system', 'content': SYSTEM}]\n"
        "    if session_history:\n"
        "        messages.extend(session_history[-25:])\n"
        "    messages.append({'role': 'user', 'content': message})\n"
        "    return await self.get_ai_response_groq(messages, 'chat')\n"
    )
    assert _codes(src, "ai_manager.py") == [(4, "PL303")]
    logged = src.replace("self.get_ai_response_groq(", "self.log_debug(")
    assert _codes(logged, "ai_manager.py") == []


def test_a_countdown_formatted_into_the_system_prompt() -> None:
    # An interview's remaining time fills a slot of the system text on every turn; the twin
    # fills the difficulty, fixed for the interview.
    src = (
        "def prompt_messages(state):\n"
        "    system_text = ROLE_PROMPT.format(\n"
        "        remaining_time=state.get('remaining_time'),\n"
        "    )\n"
        "    return [SystemMessage(content=system_text)] + state.get('history', [])\n"
    )
    assert _codes(src, "nodes.py") == [(3, "PL106")]
    fixed = src.replace("remaining_time=state.get('remaining_time')", "level=state.get('level')")
    assert _codes(fixed, "nodes.py") == []


def test_a_template_filled_from_a_written_out_mapping_names_its_values() -> None:
    # A RAG agent fills its system template from a dict: the question asked this turn lands
    # ahead of the chat history. The twin fills the slot with the shop's name.
    src = (
        "def create_chain(self, query: str):\n"
        "    system_prompt = PromptTemplateParser(template=MAIN).format({\n"
        "        'question': query,\n"
        "    })\n"
        "    return ChatPromptTemplate.from_messages(\n"
        "        [('system', system_prompt), MessagesPlaceholder('chat_history'),\n"
        "         ('human', '{input}')]\n"
        "    )\n"
    )
    assert _codes(src, "agent.py") == [(3, "PL304")]
    fixed = src.replace("'question': query", "'shop': SHOP_NAME")
    assert _codes(fixed, "agent.py") == []


def test_a_tool_list_narrowed_between_the_requests_of_one_loop() -> None:
    # A search loop drops each tool once used and asks again with the same growing messages.
    # The twin narrows the list once, before the loop.
    src = (
        "def search_in_tools(content, tools):\n"
        "    filtered_tools = tools\n"
        "    messages = [{'role': 'user', 'content': content}]\n"
        "    while True:\n"
        "        response = client.chat.completions.create(\n"
        "            model='m', messages=messages, tools=filtered_tools\n"
        "        )\n"
        "        used = response.choices[0].message.tool_calls[0].function.name\n"
        "        messages.append(response.choices[0].message.model_dump())\n"
        "        filtered_tools = [t for t in tools if t['function']['name'] != used]\n"
    )
    assert _codes(src, "tools.py") == [(10, "PL302")]
    before = (
        "def search_in_tools(content, tools, used):\n"
        "    filtered_tools = [t for t in tools if t['function']['name'] != used]\n"
        "    messages = [{'role': 'user', 'content': content}]\n"
        "    while True:\n"
        "        response = client.chat.completions.create(\n"
        "            model='m', messages=messages, tools=filtered_tools\n"
        "        )\n"
        "        messages.append(response.choices[0].message.model_dump())\n"
    )
    assert _codes(before, "tools.py") == []


def test_a_date_filled_in_when_the_assistant_object_is_made() -> None:
    # A CLI's Assistant dates its system message in its constructor and keeps it with the
    # client for the run's one conversation. The twin dates it again on every turn.
    src = (
        "from datetime import datetime\n"
        "class Assistant:\n"
        "    def __init__(self):\n"
        "        system_message = PROMPT.format(date=datetime.today().strftime('%Y-%m-%d'))\n"
        "        self._client = LLMClient(system_message=system_message)\n"
        "    def handle(self, text):\n"
        "        return self._client.request(text)\n"
    )
    assert _codes(src, "assistant.py") == []
    per_turn = (
        "from datetime import datetime\n"
        "class Assistant:\n"
        "    def handle(self, text):\n"
        "        system_message = PROMPT.format(date=datetime.today().strftime('%Y-%m-%d'))\n"
        "        return LLMClient(system_message=system_message).request(text)\n"
    )
    assert [c for _, c in _codes(per_turn, "assistant.py")] == ["PL102"]


def test_an_eviction_handed_a_conversations_id_cuts_no_history() -> None:
    # A memory engine evicts old entries of its long-term store after a turn, handed the
    # conversation's id and a cap. The twin hands the helper the conversation's messages.
    src = (
        "def after_turn(messages, collection, memory_root, conversation_id, max_entries):\n"
        "    evict_if_needed(collection, memory_root, conversation_id, max_entries)\n"
        "    return messages\n"
    )
    assert _codes(src, "engine.py") == []
    cut = src.replace("conversation_id", "conversation_turns")
    assert _codes(cut, "engine.py") == [(2, "PL303")]


def test_a_prompt_filler_handed_its_template_reads_the_clock() -> None:
    # A chat UI passes every model's system prompt through prompt_template(), which fills the
    # date and time each time. The twin's filler is named for a report, not a prompt.
    src = (
        "from datetime import datetime\n"
        "def prompt_template(template: str, user=None) -> str:\n"
        "    now = datetime.now()\n"
        "    template = template.replace('{{CURRENT_DATE}}', now.strftime('%Y-%m-%d'))\n"
        "    return template\n"
    )
    assert [c for _, c in _codes(src, "task.py")] == ["PL102"]
    report = src.replace("def prompt_template(", "def report_template(")
    assert _codes(report, "task.py") == []


def test_retrieved_text_in_a_one_shot_request_object() -> None:
    # A tutor explains a topic in one request object of its own (a system and one user
    # message, told their roles), then hands the object to its provider. The twin's request
    # carries the conversation, so the retrieved text sits ahead of it.
    src = (
        "class Tutor:\n"
        "    async def explain_topic(self, db, query):\n"
        "        chunks = search_persistent(db, query)\n"
        "        system = f'Explain the topic. Material: {chunks}'\n"
        "        req = AIRequest(\n"
        "            messages=[AIMessage(role='system', content=system),\n"
        "                      AIMessage(role='user', content='Explain the topic.')],\n"
        "        )\n"
        "        return await self.provider.complete(req)\n"
    )
    assert _codes(src, "service.py") == []
    chat = src.replace("AIMessage(role='user', content='Explain the topic.')]", "*self.history]")
    assert _codes(chat, "service.py") == [(3, "PL304")]


_AT_IMPORT = (
    "from datetime import datetime\n"
    "SYSTEM_PROMPT = f\"Current date: {datetime.now().strftime('%Y-%m-%d')}\"\n"
)


@pytest.mark.parametrize(
    ("head", "found"),
    [
        # long-running servers: each worker and restart reads the clock again
        ("from fastapi import FastAPI\n", True),
        ("import flask\n", True),
        ("from aiohttp import web\n", True),
        ("import discord\n", True),
        ("from telegram.ext import Application\n", True),
        ("from slack_bolt import App\n", True),
        ("from livekit import agents\n", True),
        # one user's session, a client, a script: one process, one prompt
        ("import streamlit as st\n", False),
        ("import gradio as gr\n", False),
        ("import aiohttp\n", False),
        ("import argparse\n", False),
        ("", False),
    ],
)
def test_a_clock_read_at_import_is_a_note_only_where_the_process_serves(
    head: str, found: bool
) -> None:
    got = [(f.line, f.code, f.severity) for f in lint_source(head + _AT_IMPORT, "prompts.py")]
    n = head.count("\n")
    assert got == ([(n + 2, "PL102", "note")] if found else [])
    if found:
        (msg,) = [f.message for f in lint_source(head + _AT_IMPORT, "prompts.py")]
        assert "each worker and each restart" in msg and "stale" in msg


# A computer-use loop's shape (real30, twice): the constant dated at import is sent by a
# request inside a function, not read as a prompt constant of its own.
_SENT_BY_A_LOOP = (
    "from datetime import datetime\n"
    "HEADER = f\"Today is {datetime.today().strftime('%A, %B %d')}.\"\n"
    "def sampling_loop(client, messages):\n"
    "    while True:\n"
    "        client.messages.create(model='m', system=HEADER, messages=messages)\n"
)


@pytest.mark.parametrize(
    ("head", "found"),
    [
        # a server: many conversations over the life of one import
        ("from fastapi import FastAPI\n", True),
        ("import discord\n", True),
        # a program one user runs per conversation: a window, a terminal prompt
        ("import tkinter\n", False),
        ("from prompt_toolkit import prompt\n", False),
        ("task = input('Task: ')\n", False),
        # a page's server or a screen driver (real21 labels such a Streamlit app's date read at
        # import a breaker), or nothing says which: a note, as before
        ("import streamlit as st\n", True),
        ("import pyautogui\n", True),
        ("import argparse\n", True),
        ("", True),
    ],
)
def test_a_clock_read_at_import_and_sent_by_a_function_is_fixed_in_one_users_program(
    head: str, found: bool
) -> None:
    got = [(f.line, f.code, f.severity) for f in lint_source(head + _SENT_BY_A_LOOP, "loop.py")]
    n = head.count("\n")
    assert got == ([(n + 2, "PL102", "note")] if found else [])
    # The twin reads the clock in the loop: per request, whatever the process.
    per_request = (head + _SENT_BY_A_LOOP).replace("system=HEADER", "system=f'{datetime.now()}'")
    assert "PL101" in [c for _, c in _codes(per_request, "loop.py")]


def test_a_server_elsewhere_in_the_project_reports_the_prompt_module(
    tmp_path: Path,
) -> None:
    # The prompt module names no framework; the project's app module does (or, in the twin,
    # a chat CLI's entry point).
    for app, found in [
        ("from fastapi import FastAPI\napp = FastAPI()\n", True),
        ("def main():\n    input('> ')\n", False),
    ]:
        root = tmp_path / ("srv" if found else "cli")
        root.mkdir()
        (root / "pyproject.toml").write_text("", encoding="utf-8")
        (root / "app.py").write_text(app, encoding="utf-8")
        (root / "prompts.py").write_text(_AT_IMPORT, encoding="utf-8")
        result = lint_paths([str(root / "prompts.py")], LintConfig())
        assert [(f.line, f.code) for f in result.findings] == ([(2, "PL102")] if found else [])
