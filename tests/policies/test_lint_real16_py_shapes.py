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
