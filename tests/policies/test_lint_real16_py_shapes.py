"""Python shapes found missing on real16's development half (and general beyond it): each test
a synthetic positive with a negative twin that differs in the one thing the rule reads."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(src: str) -> list[str]:
    return [f.code for f in lint_source(src, "agent.py")]


_SPLAT = (
    "from datetime import datetime\n\n\n"
    "def apply_prompt_template(env, name, state):\n"
    "    state_vars = {\n"
    '        "KEY": datetime.now().strftime("%H:%M:%S"),\n'
    "        **state,\n"
    "    }\n"
    "    system_prompt = env.get_template(name).render(**state_vars)\n"
    '    return [{"role": "system", "content": system_prompt}] + state["messages"]\n'
)


def test_a_moment_field_splatted_into_a_render_reaches_the_prompt() -> None:
    """`{"CURRENT_TIME": now, **state}` then `render(**vars)`: the key names the slot the
    template shows the time in."""
    assert _codes(_SPLAT.replace("KEY", "CURRENT_TIME")) == ["PL101"]


def test_a_splatted_field_not_named_for_the_moment_is_not_assumed_used() -> None:
    """The same clock reading under `elapsed_seconds`: a derived figure the template may not
    use (the rule for splats stands)."""
    assert _codes(_SPLAT.replace("KEY", "elapsed_seconds")) == []


_SPREAD = (
    "def chat(client, text, history):\n"
    "    messages = []\n"
    "    messages.extend(history[-10:])\n"
    '    messages.append({"role": "user", "content": text})\n'
    "    return client.chat.completions.create(\n"
    '        model="m", messages=[{"role": "system", "content": "S"}, *messages]\n'
    "    )\n"
)


def test_a_window_extended_into_a_list_spread_into_the_request() -> None:
    assert _codes(_SPREAD) == ["PL303"]


def test_a_window_extended_into_a_list_not_sent() -> None:
    """The same list spread into what is stored, not into the request's messages."""
    src = _SPREAD.replace('model="m", messages=[', 'model="m", messages=[], saved=[')
    src = src.replace("client.chat.completions.create", "archive.save")
    assert _codes(src) == []


_HELPER = (
    "class ContextAssembler:\n"
    "    def assemble(self, user_input, conversation_history):\n"
    "        kept = self.NAME(conversation_history, 10)\n"
    '        return {"conversation_history": kept, "current_input": user_input}\n\n'
    "    def NAME(self, history, max_turns):\n"
    "        if len(history) <= max_turns:\n"
    "            return history\n"
    "        return history[-max_turns:]\n"
)


def test_a_helper_named_for_cutting_the_history_returns_a_window() -> None:
    """A context assembler's `_trim_conversation_history` in a file that names no prompt
    part: the window it returns is what the callers send."""
    codes = _codes(_HELPER.replace("NAME", "_trim_conversation_history"))
    assert "PL303" in codes


def test_a_helper_not_named_for_cutting_returns_no_window_in_such_a_file() -> None:
    assert _codes(_HELPER.replace("NAME", "_recent_history")) == []


_SECTION = (
    "import ace.agent_prompts as OWNER\n\n\n"
    "def system_message(client, history):\n"
    '    text = f"You are Stacey.\\n{OWNER.alarm_clock}\\n{OWNER.actions}"\n'
    "    return client.chat.completions.create(\n"
    '        model="m", messages=[{"role": "system", "content": text}, *history]\n'
    "    )\n"
)


def test_a_section_of_a_prompt_module_is_text_not_a_reading() -> None:
    """`prompts.alarm_clock` is the prompt's section about alarms: its name titles it."""
    assert _codes(_SECTION.replace("OWNER", "prompts")) == []


def test_an_attribute_named_for_a_clock_of_another_owner_is_still_read_by_name() -> None:
    assert _codes(_SECTION.replace("OWNER", "state")) == ["PL101"]


_TOOLS = (
    "def build(client, history):\n"
    "    tools = [MAKE, Search()]\n"
    '    names = ", ".join(t.name for t in tools)\n'
    '    text = f"You are helpful. Tools: {names}"\n'
    "    return client.chat.completions.create(\n"
    '        model="m", messages=[{"role": "system", "content": text}, *history]\n'
    "    )\n"
)


def test_an_object_made_from_a_class_is_no_value_its_name_means() -> None:
    """`GitHubKnowledgebase()`: a tool object; the class's name says what it is."""
    assert _codes(_TOOLS.replace("MAKE", "GitHubKnowledgebase()")) == []


def test_a_call_named_for_repository_state_is_still_read_by_name() -> None:
    assert _codes(_TOOLS.replace("MAKE", "git_status()")) == ["PL104"]


_DEBUG = (
    "class Bot:\n"
    "    def get_rag_debug_info(self, user_input):\n"
    "        history = []\n"
    "        for msg in self.chat_history[-5:]:\n"
    '            history.append({"role": msg["role"], "content": msg["content"]})\n'
    '        messages = [{"role": "system", "content": "S"}, *history]\n'
    "        SEND\n"
    '        return {"messages": messages, "tokens": self.count(messages)}\n'
)


def test_a_debug_helper_that_sends_nothing_cuts_no_request() -> None:
    """The prompt a debug helper builds is shown, never sent: its window is no breaker."""
    assert _codes(_DEBUG.replace("SEND", "pass")) == []


def test_a_debug_helper_that_asks_the_model_keeps_its_window() -> None:
    sent = _DEBUG.replace("SEND", "self.client.chat.completions.create(messages=messages)")
    assert _codes(sent) == ["PL303"]


_SECOND = (
    "def chat(self, client, user_input, conversation_history):\n"
    '    messages = [{"role": "system", "content": "You are a diary assistant."}]\n'
    "    HINT\n"
    '    messages.append({"role": "system", "content": TEXT})\n'
    "    for turn in conversation_history[:]:\n"
    '        messages.append({"role": turn["role"], "content": turn["content"]})\n'
    '    messages.append({"role": "user", "content": user_input})\n'
    '    return client.chat.completions.create(model="m", messages=messages)\n'
)


def test_a_second_system_message_made_per_request_ahead_of_the_history() -> None:
    """What is read for this request (a user's stored background) becomes a second system
    message, and the history follows it."""
    src = _SECOND.replace("HINT", "hints = self.memory.background(self.user_id)")
    assert _codes(src.replace("TEXT", '"Background:\\n" + "\\n".join(hints)')) == ["PL304"]


def test_a_second_system_message_of_fixed_text_ahead_of_the_history() -> None:
    src = _SECOND.replace("HINT", "pass").replace("TEXT", "self.rules")
    assert _codes(src) == []


_OVERFLOW = (
    "class Bot:\n"
    "    def chat(self, user_input):\n"
    "        system_prompt = self.engine.construct_prompt(chat_history=self.history)\n"
    '        messages = [{"role": "system", "content": system_prompt}]\n'
    "        try:\n"
    "            reply = self.llm.complete(messages)\n"
    "        except Exception as e:\n"
    '            if "context_length_exceeded" in str(e):\n'
    "                RESET\n"
    "                system_prompt = self.engine.construct_prompt(chat_history=HISTORY)\n"
    '                messages = [{"role": "system", "content": system_prompt}]\n'
    "                reply = self.llm.complete(messages)\n"
    "        return reply\n"
)


def test_a_conversation_started_over_on_overflow_is_no_window() -> None:
    """Reset and retried with no history: one miss, then the conversation grows anew."""
    src = _OVERFLOW.replace("RESET", "self.reset_context()").replace("HISTORY", "[]")
    assert "PL303" not in _codes(src)


def test_a_request_rebuilt_shorter_on_overflow_is_still_a_cut() -> None:
    src = _OVERFLOW.replace("RESET", "pass").replace("HISTORY", "self.shorter()")
    assert "PL303" in _codes(src)


_LOADER = (
    "from datetime import datetime\n"
    "from pathlib import Path\n\n"
    "PROMPTS_DIR = Path(__file__).parent\n\n\n"
    "def NAME(name):\n"
    '    with open(PROMPTS_DIR / f"{name}.md", encoding="utf-8") as f:\n'
    "        text = f.read().strip()\n"
    '    now = datetime.now().strftime("%H:%M:%S")\n'
    '    return text.replace("CURRENT_TIME", now)\n'
)


def test_a_prompt_loader_that_stamps_the_clock_into_every_prompt() -> None:
    """Whichever prompt file its callers ask for, it comes back with the time in it."""
    assert _codes(_LOADER.replace("NAME", "get_prompt")) == ["PL101"]


def test_a_loader_not_named_for_a_prompt_is_no_prompt() -> None:
    assert _codes(_LOADER.replace("NAME", "load_note")) == []
