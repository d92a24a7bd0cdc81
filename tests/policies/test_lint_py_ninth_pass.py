"""The Python rules' ninth pass: breakers of real19's development half found by following the
data, each with twins that differ in the one step the rule follows.

A history window rendered by a call (`text = format_chat_history(kept)`) and handed to a
request as its history (`history=text`) is still the window sent."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source
from tests.helpers.lintfind import lines_of

_RENDERED = (
    "class Flow:\n"
    "    async def node(self, state):\n"
    '        chat_history = await self.store.get_chat_history(state["sid"])\n'
    "        recent = chat_history[-6:] if len(chat_history) > 6 else chat_history\n"
    "        text = RENDER\n"
    '        return await self.agent.run(user_query=state["q"], SENT=text)  # prompt\n'
)


def _rendered(render: str = "format_chat_history(recent)", sent: str = "chat_history") -> str:
    return _RENDERED.replace("RENDER", render).replace("SENT", sent)


def test_a_window_rendered_by_a_call_and_handed_on_as_the_history_is_found() -> None:
    assert lines_of(_rendered(), "PL303") == [4]


def test_an_awaited_rendering_handed_on_as_the_history_is_found() -> None:
    src = _rendered(render="await self.render(recent)", sent="history")
    assert lines_of(src, "PL303") == [4]


def test_a_window_cut_in_place_and_rendered_for_the_request_is_found() -> None:
    src = (
        "class Flow:\n"
        "    async def chat(self, state):\n"
        '        chat_history = await self.store.get_chat_history(state["sid"])\n'
        '        if len(chat_history) > 10 and state["summary"]:\n'
        "            chat_history = chat_history[-5:]\n"
        "        formatted = format_chat_history(chat_history)\n"
        '        return await self.bot.run(history=formatted, summary=state["summary"])  # prompt\n'
    )
    assert lines_of(src, "PL303") == [5]


def test_the_window_measured_and_handed_on_is_no_window() -> None:
    """`len(recent)` is a count, not the messages."""
    assert lines_of(_rendered(render="len(recent)"), "PL303") == []


def test_a_rendered_window_handed_on_as_a_query_is_no_history() -> None:
    """Handed to the call as something other than its history (a search query)."""
    assert lines_of(_rendered(sent="query"), "PL303") == []


def test_a_rendering_of_another_list_is_not_followed() -> None:
    """The call is handed the whole history, not the window: nothing of the cut is sent."""
    assert lines_of(_rendered(render="format_chat_history(chat_history)"), "PL303") == []


# A chat template of another module rendered with the history in one slot and a clock in
# another: the clock sits in the template's text around the history, its prefix.
_FILLED = (
    "from app.prompts import CHATBOT_PROMPT\n"
    "\n"
    "class Chatbot:\n"
    "    def __init__(self, llm):\n"
    "        self.llm = llm\n"
    "        self.prompt = CHATBOT_PROMPT\n"
    "\n"
    "    async def run(self, history, user_query, current_date):\n"
    "        messages = self.prompt.format_messages(\n"
    "            HISTORY\n"
    "            user_query=user_query,\n"
    "            current_date=DATE,\n"
    "        )\n"
    "        return (await self.llm.ainvoke(messages)).content\n"
)


def _filled(history: str = "history=history,", date: str = "current_date") -> str:
    return _FILLED.replace("HISTORY", history).replace("DATE", date)


def test_a_clock_in_a_chat_template_rendered_with_the_history_is_found() -> None:
    assert lines_of(_filled(), "PL102") == [12]


def test_the_template_rendered_by_its_imported_name_is_found_too() -> None:
    src = _filled().replace("self.prompt.format_messages", "CHATBOT_PROMPT.format_messages")
    assert lines_of(src, "PL102") == [12]


def test_a_template_rendered_without_the_history_is_one_request() -> None:
    """No conversation slot: the rendered messages are one request's own text."""
    assert lines_of(_filled(history=""), "PL102") == []


def test_a_date_written_out_as_a_literal_is_no_clock() -> None:
    assert lines_of(_filled(date='"unknown"'), "PL102") == []


def test_a_slot_not_named_for_a_volatile_value_is_not_reported() -> None:
    src = _filled(date="self.user_name").replace("current_date=", "user_name=")
    assert [f.code for f in lint_source(src, "agent.py") if f.code.startswith("PL10")] == []


def test_a_template_written_in_this_module_is_left_to_the_rules_that_read_it() -> None:
    """Its text is here: where the date sits is read from it, not assumed."""
    src = _filled().replace(
        "from app.prompts import CHATBOT_PROMPT\n",
        'CHATBOT_PROMPT = Template([("human", "{user_query} (today: {current_date})"),'
        ' ("placeholder", "{history}")])\n',
    )
    assert lines_of(src, "PL102") == []


def test_a_summary_request_rendered_with_the_history_is_a_side_task() -> None:
    src = _filled().replace("async def run(", "async def summarize(")
    assert lines_of(src, "PL102") == []


def test_a_receiver_not_named_for_a_prompt_is_not_a_template() -> None:
    src = _filled().replace("self.prompt = CHATBOT_PROMPT", "self.store = MESSAGE_STORE")
    src = src.replace("self.prompt.format_messages", "self.store.format_messages")
    assert lines_of(src, "PL102") == []


# A system message added to the conversation itself lands after its messages.
_ADDED = (
    "import time\n"
    "\n"
    "class Runner:\n"
    "    def step(self, RECEIVER, llm):\n"
    '        note = f"Step finished at {time.time()}"\n'
    "        RECEIVER.SETTER(note)\n"
    "        return llm.chat(messages=RECEIVER.messages)\n"
)


def _added(receiver: str = "conversation", setter: str = "add_system_message") -> str:
    return _ADDED.replace("RECEIVER", receiver).replace("SETTER", setter)


def test_a_system_message_added_to_the_conversation_is_no_prefix() -> None:
    assert lines_of(_added(), "PL101") == []


def test_a_system_message_appended_to_the_history_is_no_prefix() -> None:
    assert lines_of(_added(receiver="history", setter="append_system_message"), "PL101") == []


def test_a_system_prompt_set_on_the_conversation_is_still_the_prefix() -> None:
    """`set_system_prompt` places the prompt ahead of the messages: the clock there is found."""
    assert lines_of(_added(setter="set_system_prompt"), "PL101") == [5]


def test_a_system_message_added_through_a_builder_is_still_the_prefix() -> None:
    """A builder (not the conversation) is given the system message it puts first."""
    assert lines_of(_added(receiver="builder"), "PL101") == [5]


# The moment handed to another object's method together with the conversation.
_HANDED = (
    "from app.tools import search  # a file naming no prompt part is not linted\n"
    "\n"
    "class Flow:\n"
    "    async def chatbot_node(self, state):\n"
    '        current_date = state.get("current_date", "")\n'
    '        history = await self.chats.get_history(state["sid"])\n'
    "        return await self.OWNER.CALL(\n"
    "            HISTORY\n"
    "            current_date=DATE,\n"
    "        )\n"
)


def _handed(
    owner: str = "chatbot", call: str = "run", history: str = "history=history,", date: str = ""
) -> str:
    return (
        _HANDED.replace("OWNER", owner)
        .replace("CALL", call)
        .replace("HISTORY", history)
        .replace("DATE", date or "current_date")
    )


def test_the_moment_handed_with_the_history_to_another_objects_method_is_found() -> None:
    assert lines_of(_handed(), "PL102") == [9]


def test_the_moment_handed_without_the_history_is_not_reported() -> None:
    assert lines_of(_handed(history=""), "PL102") == []


def test_the_moment_handed_with_the_history_to_a_store_is_not_reported() -> None:
    """`save(...)` keeps them: no request is built."""
    assert lines_of(_handed(owner="store", call="save"), "PL102") == []


def test_the_moment_handed_to_this_class_s_own_method_is_left_to_the_data_flow() -> None:
    """`self.run(...)` of a class that defines `run` nowhere near a prompt: its body is here."""
    src = _handed(owner="x", call="run").replace("self.x.run(", "self.run(")
    src += "\n    def run(self, history, current_date):\n        return len(history)\n"
    assert lines_of(src, "PL102") == []


def test_a_literal_moment_handed_with_the_history_is_not_reported() -> None:
    assert lines_of(_handed(date='"n/a"'), "PL102") == []


# The last items of a list a call read (named for nothing) joined as messages after a system
# message written out: a window of the conversation sent.
_SPREAD = (
    'SYSTEM_PROMPT = "You are helpful."\n'
    "\n"
    "class Bot:\n"
    "    def reply(self, client, text):\n"
    "        self.recent = self.store.load(self.chat_id)[-10:]\n"
    "        msgs = LIST\n"
    '        return client.chat.completions.create(model="m", messages=msgs)\n'
)
_SYS = '{"role": "system", "content": SYSTEM_PROMPT}'
_USER = '{"role": "user", "content": text}'


def _spread(lst: str) -> str:
    return _SPREAD.replace("LIST", lst)


def test_a_window_of_a_loaded_list_spread_after_the_system_message_is_found() -> None:
    assert lines_of(_spread(f"[{_SYS}, *self.recent, {_USER}]"), "PL303") == [5]


def test_a_window_of_a_loaded_list_added_after_the_system_message_is_found() -> None:
    assert lines_of(_spread(f"[{_SYS}] + self.recent + [{_USER}]"), "PL303") == [5]


def test_a_window_spread_into_a_list_without_a_system_message_is_not_this_rule() -> None:
    """No system message opens the list: nothing here says the items are messages after a
    prefix."""
    assert lines_of(_spread(f"[{_USER}, *self.recent]"), "PL303") == []


def test_a_window_put_in_the_list_as_one_item_is_not_spread() -> None:
    assert lines_of(_spread(f"[{_SYS}, self.recent]"), "PL303") == []


def test_another_attribute_spread_after_the_system_message_is_not_the_window() -> None:
    assert lines_of(_spread(f"[{_SYS}, *self.pinned, {_USER}]"), "PL303") == []


# A tail helper of another module of the project, imported by name and handed the history.
def _project(tmp_path: Path, helper: str, call: str) -> list[tuple[str, int]]:
    files = {
        "app/__init__.py": "",
        "app/utils.py": helper,
        "app/bot.py": (
            "from app.utils import last_n\n"
            'SYSTEM_PROMPT = "You are helpful."\n'
            "\n"
            "def reply(client, history, text):\n"
            '    msgs = [{"role": "system", "content": SYSTEM_PROMPT}, *CALL]\n'
            '    return client.chat.completions.create(model="m", messages=msgs)\n'
        ).replace("CALL", call),
    }
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    found = lint_paths([str(tmp_path / "app")], LintConfig(), jobs=1).findings
    return [(Path(f.path).name, f.line) for f in found if f.code == "PL303"]


_TAIL = "def last_n(items, n):\n    return items[-n:]\n"


def test_an_imported_tail_helper_handed_the_history_is_found(tmp_path: Path) -> None:
    assert _project(tmp_path, _TAIL, "last_n(history, 10)") == [("bot.py", 5)]


def test_an_imported_helper_that_keeps_the_first_items_is_no_window(tmp_path: Path) -> None:
    head = "def last_n(items, n):\n    return items[:n]\n"
    assert _project(tmp_path, head, "last_n(history, 10)") == []


def test_an_imported_tail_helper_handed_another_list_is_no_window(tmp_path: Path) -> None:
    assert _project(tmp_path, _TAIL, "last_n(documents, 10)") == []


# A search made with the newest messages as its query: what it finds differs per request.
_RECALLED = (
    "def build(memory, messages, text):\n"
    "    docs = memory.CALL(str(QUERY))\n"
    '    note = SystemMessage(content=f"You remember: {docs}")\n'
    '    return [SystemMessage(content="You are an agent."), note, *messages,'
    " HumanMessage(content=text)]\n"
)


def _recalled(call: str = "get_relevant_documents", query: str = "messages[-10:]") -> str:
    return _RECALLED.replace("CALL", call).replace("QUERY", query)


def test_a_search_of_the_last_messages_written_into_a_system_message_is_found() -> None:
    assert lines_of(_recalled(), "PL304") == [2]


def test_a_search_of_the_newest_message_written_into_a_system_message_is_found() -> None:
    assert lines_of(_recalled(query="messages[-1]"), "PL304") == [2]


def test_a_search_of_the_first_messages_is_the_same_every_turn() -> None:
    """`messages[:10]` is the conversation's fixed start: the query does not move."""
    assert lines_of(_recalled(query="messages[:10]"), "PL304") == []


def test_a_search_of_the_last_items_of_another_list_is_not_the_request() -> None:
    assert lines_of(_recalled(query="catalogue[-10:]"), "PL304") == []


def test_a_call_not_named_for_a_search_is_not_a_retrieval() -> None:
    assert lines_of(_recalled(call="render"), "PL304") == []


def test_a_loaded_window_after_the_system_message_only_printed_is_not_sent() -> None:
    src = _spread(f"[{_SYS}, *self.recent, {_USER}]").replace(
        '        return client.chat.completions.create(model="m", messages=msgs)\n',
        "        print(msgs)\n",
    )
    assert lines_of(src, "PL303") == []


def test_a_records_time_handed_with_the_messages_is_not_the_moment() -> None:
    """`time=` names when a record was made (a store's write), not the present moment."""
    src = _handed(call="new_epoch").replace("current_date=", "time=")
    assert lines_of(src, "PL101") + lines_of(src, "PL102") == []


def test_the_moment_handed_with_the_history_to_a_database_owner_is_not_reported() -> None:
    assert lines_of(_handed(owner="db", call="begin_turn"), "PL102") == []
