"""Python shapes that real17's test half showed (development data since it was scored): a
history window cut from a list with an empty fallback (`(history or [])[-6:]`) and a store's
loader capped by the instance's own setting (`get_history(sid, self.memory_size)`). Each a
synthetic positive with a negative twin that differs in the one thing the rule reads. Later
passes add shapes of the same windows: a summary ahead of a window bound to a local of any name,
and a window of a list made from the history (filtered, or read from its store)."""

from __future__ import annotations

import pytest

from tests.helpers.lintfind import lines_of

_FALLBACK = (
    "def answer(client, question, history=None):\n"
    '    messages = [{"role": "system", "content": "You are a tutor."}]\n'
    "    for m in (history or [])CUT:\n"
    '        messages.append({"role": m["role"], "content": m["content"]})\n'
    '    messages.append({"role": "user", "content": question})\n'
    '    return client.chat.completions.create(model="m", messages=messages)\n'
)


def test_window_of_a_history_with_an_empty_fallback_is_a_window() -> None:
    """`(history or [])[-6:]` is the history's last six messages, as `history[-6:]` is."""
    assert lines_of(_FALLBACK.replace("CUT", "[-6:]"), "PL303") == [3]


def test_whole_history_with_an_empty_fallback_is_no_window() -> None:
    """`(history or [])` sent whole: the same prefix grows, nothing is cut."""
    assert lines_of(_FALLBACK.replace("CUT", ""), "PL303") == []


def test_empty_fallback_of_a_non_history_is_no_window() -> None:
    """`(examples or [])[-6:]` cuts a list that is not the conversation."""
    src = _FALLBACK.replace("(history or [])CUT", "(examples or [])[-6:]")
    src = src.replace("history=None", "examples=None")
    assert lines_of(src, "PL303") == []


_STORE = (
    "class ContextManager:\n"
    "    def __init__(self, store, memory_size: int = SIZE):\n"
    "        self.store = store\n"
    "        self.memory_size = memory_size\n"
    "\n"
    "    def get_context(self, session_id, query):\n"
    '        context = [{"role": "system", "content": "S"}]\n'
    "        recent = self.store.get_history(session_id, self.memory_size)\n"
    "        context.extend(recent)\n"
    '        context.append({"role": "user", "content": query})\n'
    "        return context\n"
)


def test_loader_capped_by_the_instances_setting_is_a_window() -> None:
    """`get_history(sid, self.memory_size)` with `memory_size` defaulting to 10 in `__init__`:
    the last ten messages, a window as `get_history(sid, 10)` is."""
    assert lines_of(_STORE.replace("SIZE", "10"), "PL303") == [8]


def test_loader_capped_at_one_message_by_the_instance_is_no_window() -> None:
    """The same loader whose setting defaults to 1 reads only the latest message."""
    assert lines_of(_STORE.replace("SIZE", "1"), "PL303") == []


def test_loader_given_an_unknown_instance_value_is_no_window() -> None:
    """`self.memory_size` bound to something other than an integer default (a parameter with
    no default): not known to cap anything."""
    src = _STORE.replace("memory_size: int = SIZE", "memory_size")
    assert lines_of(src, "PL303") == []


_SUMMARY_MSG = (
    "def get_context(store, session_id, query):\n"
    '    context = [{"role": "system", "content": "S"}]\n'
    "    summary = store.get_summary(session_id)\n"
    "    recent_messages = store.get_all(session_id)\n"
    '    info = f"--- Summary ---\\n{summary}\\n"\n'
    '    info += "\\n".join(store.search(query))\n'
    "    ORDER\n"
    "    return context\n"
)
_INFO = 'context.append({"role": "user", "content": f"Use this: {info}"})'
_RECENT = "context.extend(recent_messages)"


def test_message_built_from_a_summary_ahead_of_the_history_is_found() -> None:
    """A user message whose text was built from the summary (through a local), then the recent
    history: the summary sits ahead of the replayed messages; found where they follow."""
    src = _SUMMARY_MSG.replace("ORDER", f"{_INFO}\n    {_RECENT}")
    assert lines_of(src, "PL303") == [8]


def test_message_built_from_a_summary_after_the_history_is_no_finding() -> None:
    """The same message appended after the history: the replayed prefix stays."""
    src = _SUMMARY_MSG.replace("ORDER", f"{_RECENT}\n    {_INFO}")
    assert lines_of(src, "PL303") == []


def test_message_built_without_a_summary_ahead_of_the_history_is_no_summary() -> None:
    """The message's text is built from something else (a fixed note): no summary rule."""
    src = _SUMMARY_MSG.replace("{summary}", "fixed").replace("ORDER", f"{_INFO}\n    {_RECENT}")
    src = src.replace('    info += "\\n".join(store.search(query))\n', "")
    assert lines_of(src, "PL303") == []


_FIRST = (
    "from datetime import datetime\n"
    "\n"
    "\n"
    "class Chat:\n"
    "    def refresh(self):\n"
    "        text = VALUE + self.SYSTEM_MESSAGE\n"
    "        self.messages[0]['content'] = text\n"
    "\n"
    "    def reply(self):\n"
    "        self.refresh()\n"
    '        return self.client.chat.completions.create(messages=self.messages, model="m")\n'
)


def test_clock_written_into_the_historys_first_message_is_volatile() -> None:
    """`self.messages[0]["content"] = "now: " + str(datetime.now()) + ...`: the clock is
    written at the head of every later request; found where it is read."""
    src = _FIRST.replace("VALUE", '"Now: " + str(datetime.now()) + "\\n"')
    assert lines_of(src, "PL101") == [6]


def test_fixed_text_written_into_the_historys_first_message_is_not_volatile() -> None:
    """The same rewrite with fixed text ahead of the constant: nothing volatile reaches it."""
    src = _FIRST.replace("VALUE", '"Hello\\n"')
    assert lines_of(src, "PL101") == []


def test_clock_written_into_another_messages_content_is_not_the_system_message() -> None:
    """`self.messages[-1]["content"] = ...`: the newest message, after the cached prefix."""
    src = _FIRST.replace("VALUE", '"Now: " + str(datetime.now()) + "\\n"')
    src = src.replace("messages[0]", "messages[-1]")
    assert lines_of(src, "PL101") == []


_REWRITE = (
    "class Service:\n"
    "    def call_with_audio(self, **kwargs):\n"
    '        if kwargs["messages"][0]["role"] == "system":\n'
    '            kwargs["messages"][0]["content"] = VALUE\n'
    '        return self.client.chat.completions.create(model="m", messages=kwargs["messages"])\n'
)


def test_constant_written_again_into_the_system_message_is_no_rewrite() -> None:
    """`messages[0]["content"] = Config.SYSTEM_MESSAGE`: the same bytes each time; the prefix
    stays."""
    assert lines_of(_REWRITE.replace("VALUE", "Config.SYSTEM_MESSAGE"), "PL302") == []


def test_computed_text_written_into_the_system_message_is_a_rewrite() -> None:
    """The same rewrite with a value computed at run time (`self.system_text()`) is one."""
    assert lines_of(_REWRITE.replace("VALUE", "self.system_text()"), "PL302") == [4]


_LECTURE = (
    "def reply(client, db, session, history, text):\n"
    '    system = "You are a tutor."\n'
    "    OWNER = db.get(session.lecture_id)\n"
    '    system += f"\\n\\nContext:\\n{OWNER.summary}"\n'
    '    messages = [{"role": "system", "content": system}] + history\n'
    '    messages.append({"role": "user", "content": text})\n'
    '    return client.chat.completions.create(model="m", messages=messages)\n'
)


def test_summary_of_a_document_record_is_not_the_conversations() -> None:
    """`lecture.summary` is the fixed summary of a document the session is about."""
    assert lines_of(_LECTURE.replace("OWNER", "lecture"), "PL303") == []


def test_summary_held_by_the_conversation_is_found() -> None:
    """`conversation.summary` in the same place is the running summary of the chat."""
    assert lines_of(_LECTURE.replace("OWNER", "conversation"), "PL303") == [4]


_HA = (
    "PROMPT_TEMPLATE = '''You are a home assistant.\n"
    "Status: {{ \"Yes\" if is_state('ENTITY', 'on') else \"No\" }}\n"
    "'''\n"
)


def test_state_of_a_once_a_day_entity_is_not_per_message() -> None:
    """`is_state('binary_sensor.workday_sensor', 'on')` changes once a day at most: the same
    text all day, as a date is."""
    src = _HA.replace("ENTITY", "binary_sensor.workday_sensor")
    assert lines_of(src, "PL106") == []


def test_state_of_a_live_entity_is_per_message() -> None:
    """`is_state('binary_sensor.front_door', 'on')` changes at any moment."""
    src = _HA.replace("ENTITY", "binary_sensor.front_door")
    assert lines_of(src, "PL106") == [2]


_DROPPED = (
    "class Handler:\n"
    "    def respond(self, channel_id):\n"
    "        return self.api.CALLEE(messages=SENT)\n"
)


def test_conversation_sent_by_a_call_named_for_dropping_the_tools_is_found() -> None:
    """`call_api_without_tools(messages=self.message_histories[channel_id])`: the channel's
    conversation (one of a plural store, by its key) sent without the tool list."""
    src = _DROPPED.replace("CALLEE", "call_api_without_tools")
    src = src.replace("SENT", "self.message_histories[channel_id]")
    assert lines_of(src, "PL302") == [3]


def test_conversation_sent_by_the_tool_bearing_call_is_no_drop() -> None:
    """The same conversation sent by `call_api_with_tools`: the list is kept."""
    src = _DROPPED.replace("CALLEE", "call_api_with_tools")
    src = src.replace("SENT", "self.message_histories[channel_id]")
    assert lines_of(src, "PL302") == []


def test_one_off_text_sent_without_tools_is_no_drop() -> None:
    """`summarize_without_tools(messages=[...one message...])`: no conversation is sent."""
    src = _DROPPED.replace("CALLEE", "summarize_without_tools")
    src = src.replace("SENT", '[{"role": "user", "content": "Sum up."}]')
    assert lines_of(src, "PL302") == []


def test_window_of_one_conversation_in_a_plural_store_is_a_window() -> None:
    """`self.message_histories[channel_id][-10:]`: one channel's last ten messages."""
    src = (
        "def reply(self, client, channel_id):\n"
        "    sent = self.message_histories[channel_id][-10:]\n"
        '    return client.chat.completions.create(model="m", messages=sent)\n'
    )
    assert lines_of(src, "PL303") == [2]


_PICKED = (
    "class Manager:\n"
    "    def build_system_prompt(self, user_query):\n"
    '        extra = ""\n'
    "        for name in self.OWNER.CALL(user_query):\n"
    "            extra += self.prompts[name]\n"
    '        return "You are an assistant.\\n" + extra\n'
)


def test_prompts_a_selector_picks_for_the_query_are_per_request() -> None:
    """`self.prompt_selector.select_prompts(user_query)`: the system prompt's sections are
    picked for each query; found where they are picked."""
    src = _PICKED.replace("OWNER", "prompt_selector").replace("CALL", "select_prompts")
    assert lines_of(src, "PL304") == [4]


def test_prompts_any_call_picks_from_the_query_are_per_request() -> None:
    """`self.prompt_catalog.matching(user_query)`: no selector or search in its name, but it
    is handed the request as it came in, so what it returns is picked per request (data
    flow, not the callee's name)."""
    src = _PICKED.replace("OWNER", "prompt_catalog").replace("CALL", "matching")
    assert lines_of(src, "PL304") == [4]


def test_prompts_listed_without_the_query_are_not_per_request() -> None:
    """`self.prompt_catalog.all_prompts()`: the request is not handed over."""
    src = _PICKED.replace("OWNER", "prompt_catalog").replace("CALL(user_query)", "all_prompts()")
    assert lines_of(src, "PL304") == []


def test_prompts_picked_by_a_setting_are_not_per_request() -> None:
    """`self.prompt_catalog.for_mode(self.mode)`: the function's query parameter is not what
    the call is handed."""
    src = _PICKED.replace("OWNER", "prompt_catalog").replace(
        "CALL(user_query)", "for_mode(self.mode)"
    )
    assert lines_of(src, "PL304") == []


def test_the_query_only_logged_or_cleaned_picks_nothing() -> None:
    """`self.logger.info(user_query)` and `user_query.strip()` beside a constant prompt: a log
    line and the text itself are no pick; the prompt holds neither."""
    src = (
        "class Manager:\n"
        "    def build_system_prompt(self, user_query):\n"
        "        self.logger.info(user_query)\n"
        "        cleaned = user_query.strip()\n"
        "        extra = str(user_query) and ''\n"
        '        return "You are an assistant." + extra\n'
    )
    assert lines_of(src, "PL304") == []


def test_a_method_of_the_class_is_followed_not_assumed() -> None:
    """`self._sections(user_query)` whose body ignores the query: its summary is read, and
    it returns constants only."""
    src = (
        "class Manager:\n"
        "    def _sections(self, user_query):\n"
        '        return "Be brief."\n'
        "    def build_system_prompt(self, user_query):\n"
        '        return "You are an assistant.\\n" + self._sections(user_query)\n'
    )
    assert lines_of(src, "PL304") == []


def test_a_value_not_named_for_the_request_picks_nothing() -> None:
    """`self.catalog.pick(user_id)`: the user's id is the same on every request of theirs."""
    src = _PICKED.replace("OWNER", "catalog").replace("CALL(user_query)", "pick(user_id)")
    src = src.replace("(self, user_query)", "(self, user_id)")
    assert lines_of(src, "PL304") == []


def test_prompts_picked_from_a_local_made_from_the_query_are_per_request() -> None:
    """`q = user_query.strip()`, then `self.prompt_catalog.matching(q)`: the same request."""
    src = _PICKED.replace("OWNER", "prompt_catalog").replace("CALL(user_query)", "matching(q)")
    src = src.replace(
        '        extra = ""\n', '        extra = ""\n        q = user_query.strip()\n'
    )
    assert lines_of(src, "PL304") == [5]


def test_prompts_picked_by_a_local_from_a_setting_are_not_per_request() -> None:
    """`lang = self.language`, then `matching(lang)`: the local carries no request."""
    src = _PICKED.replace("OWNER", "prompt_catalog").replace("CALL(user_query)", "matching(lang)")
    src = src.replace('        extra = ""\n', '        extra = ""\n        lang = self.language\n')
    assert lines_of(src, "PL304") == []


def test_a_pick_followed_by_a_lookup_of_each_picked_name_is_one_finding() -> None:
    """`for name in self.selector.pick(user_query): extra += self.store.get_prompt(name)`: the
    lookup is made from what was picked, found once, where it is picked."""
    src = _PICKED.replace("OWNER", "selector").replace("CALL", "pick")
    src = src.replace("self.prompts[name]", "self.store.get_prompt(name)")
    assert lines_of(src, "PL304") == [4]


_REPACK = (
    "async def repack(messages, keep_last, summarizer):\n"
    "    head = messages[:1]\n"
    "    tail = TAIL\n"
    "    middle = messages[1 : len(messages) - len(tail)]\n"
    "    summary_message = await summarizer.run(middle)\n"
    "    ret = JOINED\n"
    "    return ret\n"
)


@pytest.mark.parametrize(
    ("tail", "joined", "found"),
    [
        # The summary replaces the span between the head and a window of the history bound to
        # a local of any name: found where the list is joined.
        ("messages[-keep_last:] if keep_last > 0 else []", "head + [summary_message] + tail", [6]),
        ("messages[-keep_last:]", "[*head, summary_message, *tail]", [6]),
        # Near misses: the summary appended once after the history (append-only, the prefix
        # stays), and a local that holds the history's first items, not its last.
        ("messages[-keep_last:]", "head + tail + [summary_message]", []),
        ("messages[:keep_last]", "head + [summary_message] + tail", []),
    ],
)
def test_summary_ahead_of_a_window_bound_to_a_local(
    tail: str, joined: str, found: list[int]
) -> None:
    src = _REPACK.replace("TAIL", tail).replace("JOINED", joined)
    assert lines_of(src, "PL303") == found


_LISTED = (
    "async def recent(message, limit=10):\n"
    "    messages = [\n"
    "        m\n"
    "        async for m in SOURCE\n"
    "    ][-limit:]\n"
    "    return messages\n"
    "\n"
    "\n"
    "async def context(message):\n"
    '    out = [{"role": "system", "content": "S"}]\n'
    "    for m in await recent(message):\n"
    '        out.append({"role": "user", "content": m.content})\n'
    "    return out\n"
)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        # A list made from a read of the history (or the history filtered), cut to its last
        # items: a window of the conversation, reported at its cut.
        ("message.channel.history(after=since)", [5]),
        ("history if m.content", [5]),
        # Near misses: a list made from something that is no history (agent steps, a log).
        ("agent.steps(after=since)", []),
        ("metrics_log if m.ok", []),
    ],
)
def test_window_of_a_list_made_from_the_history(source: str, found: list[int]) -> None:
    src = _LISTED.replace("SOURCE", source)
    if " if " in source:
        src = src.replace("async for m in", "for m in")
    assert lines_of(src, "PL303") == found


def test_window_kept_after_a_summary_is_reported_once_as_the_summary() -> None:
    """`recent = [m for m in history if ...][-10:]` then `system + [summary_msg] + recent`: a
    compaction, reported at the summary's join, not again as a window."""
    src = (
        "def compact(memory, history):\n"
        "    system_msgs = [m for m in history if m.role == 'system']\n"
        "    recent_msgs = [m for m in history if m.role != 'system'][-10:]\n"
        '    summary_msg = {"role": "system", "content": "SUMMARY"}\n'
        "    memory.history = system_msgs + [summary_msg] + recent_msgs\n"
    )
    assert lines_of(src, "PL303") == [5]


_LOOP = (
    "def run(client, history, node, max_messages):\n"
    '    messages = [{"role": "system", "content": "S"}]\n'
    "    while node and len(messages) < max_messages:\n"
    "        BODY\n"
    "    return messages\n"
)


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # The conversation collected from the newest message back until it holds a count.
        ("messages.insert(1, node.msg); node = node.parent", [3]),
        # The whole list sent on each pass: the count only ends the conversation.
        ("reply = client.send(messages); messages.append(reply)", []),
        ("messages.append(client.send(messages=messages))", []),
    ],
)
def test_a_count_that_only_ends_the_loop_is_no_window(body: str, found: list[int]) -> None:
    src = _LOOP.replace("BODY", body.replace("; ", "\n        "))
    assert lines_of(src, "PL303") == found


_REMOVE = (
    "from langchain_core.messages import RemoveMessage\n"
    "\n"
    "\n"
    "def assistant(state):\n"
    "    update = {'messages': [llm.invoke([sys_msg] + state['messages'])]}\n"
    "    BODY\n"
    "    return update\n"
)


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # LangGraph: every stored message but the newest N removed from the thread's state.
        ("update['messages'] += [RemoveMessage(id=m.id) for m in state['messages'][:-10]]", [6]),
        (
            "cut = len(state['messages']) - 10\n"
            "    for m in reversed(state['messages'][:cut]):\n"
            "        update['messages'].append(RemoveMessage(id=m.id))",
            [7],
        ),
        # Near misses: messages removed by what they are (tool results), not by position, and
        # messages kept, not removed.
        (
            "update['messages'] += [RemoveMessage(id=m.id) for m in state['messages'] "
            "if m.type == 'tool']",
            [],
        ),
        ("update['kept'] = [m.id for m in state['messages'][:-10]]", []),
    ],
)
def test_graph_history_removed_but_its_last_messages(body: str, found: list[int]) -> None:
    assert lines_of(_REMOVE.replace("BODY", body), "PL303") == found
