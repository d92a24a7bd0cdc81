"""Per-request content in any message a request's list puts before its history, not only in
the head system message: a second system message of notes, or a user message of context,
ahead of `*history`. Each positive has twins that differ in the one thing the rule reads:
where the message stands, what it is made from, and whether a history follows."""

from __future__ import annotations

import pytest

from tests.helpers.lintfind import lines_of

_LIST = (
    "def reply(client, history, user_message, persona):\n"
    "    notes = crunch(user_message)\n"
    '    msgs = [{"role": "system", "content": PROMPT},\n'
    "            MESSAGE,\n"
    "            *PAST,\n"
    '            {"role": "user", "content": user_message}]\n'
    '    return client.chat.completions.create(model="m", messages=msgs)\n'
)


def _src(message: str, past: str = "history") -> str:
    return _LIST.replace("MESSAGE", message).replace("PAST", past)


def test_a_second_system_message_of_per_request_notes_is_found() -> None:
    src = _src('{"role": "system", "content": f"Notes: {notes}"}')
    assert lines_of(src, "PL304") == [4]


def test_a_user_message_of_per_request_context_ahead_of_the_history_is_found() -> None:
    src = _src('{"role": "user", "content": "Context: " + notes}')
    assert lines_of(src, "PL304") == [4]


def test_the_same_list_written_in_the_call_is_found() -> None:
    """Written in the call, its content a local: found where the local is made (line 2)."""
    src = (
        "def reply(client, history, user_message):\n"
        "    notes = crunch(user_message)\n"
        '    return client.chat.completions.create(model="m", messages=[\n'
        '        {"role": "system", "content": PROMPT},\n'
        '        {"role": "system", "content": notes},\n'
        "        *history,\n"
        '        {"role": "user", "content": user_message}])\n'
    )
    assert lines_of(src, "PL304") == [2]


def test_fixed_examples_ahead_of_the_history_are_silent() -> None:
    src = _src('{"role": "assistant", "content": EXAMPLE_ANSWER}')
    assert lines_of(src, "PL304") == []


def test_a_setting_of_the_conversation_ahead_of_the_history_is_silent() -> None:
    """`persona` is handed in, not what this request brings."""
    src = _src('{"role": "system", "content": f"Persona: {persona}"}')
    assert lines_of(src, "PL304") == []


def test_the_historys_own_first_message_put_ahead_is_silent() -> None:
    src = _src("history[0]", past="history[1:]")
    assert lines_of(src, "PL304") == []


def test_notes_after_the_history_are_silent() -> None:
    """The same notes placed after the history, beside the newest message: where they belong."""
    src = (
        "def reply(client, history, user_message):\n"
        "    notes = crunch(user_message)\n"
        '    msgs = [{"role": "system", "content": PROMPT}, *history,\n'
        '            {"role": "system", "content": notes},\n'
        '            {"role": "user", "content": user_message}]\n'
        '    return client.chat.completions.create(model="m", messages=msgs)\n'
    )
    assert lines_of(src, "PL304") == []


def test_a_one_off_request_with_notes_is_silent() -> None:
    """No history follows: nothing sent before is cached after the notes."""
    src = (
        "def reply(client, user_message):\n"
        "    notes = crunch(user_message)\n"
        '    msgs = [{"role": "system", "content": PROMPT},\n'
        '            {"role": "system", "content": notes},\n'
        '            {"role": "user", "content": user_message}]\n'
        '    return client.chat.completions.create(model="m", messages=msgs)\n'
    )
    assert lines_of(src, "PL304") == []


_SUM = (
    "def reply(client, history, tool_results, user_message):\n"
    "    notes = crunch(user_message)\n"
    '    msgs = [{"role": "system", "content": PROMPT},\n'
    '            {"role": "system", "content": f"Notes: {notes}"}] + PART + [\n'
    '            {"role": "user", "content": user_message}]\n'
    '    return client.chat.completions.create(model="m", messages=msgs)\n'
)


def test_notes_ahead_of_the_history_in_a_sum_of_lists_are_found() -> None:
    assert lines_of(_SUM.replace("PART", "history[-10:]"), "PL304") == [4]


def test_a_sum_without_the_history_is_a_one_off_request() -> None:
    """`+ EXAMPLES`: a module's fixed list, not a conversation sent before."""
    assert lines_of(_SUM.replace("PART", "EXAMPLES"), "PL304") == []


def test_a_spread_of_another_list_first_is_not_read_as_the_history() -> None:
    """`[system, notes, *examples, *history, user]`: read up to the first spread only, and
    that spread is not the history."""
    src = _src('{"role": "system", "content": f"Notes: {notes}"}', past="EXAMPLES, *history")
    assert lines_of(src, "PL304") == []


_APPENDED = (
    "def reply(client, history, tool_results, user_message):\n"
    "    notes = crunch(user_message)\n"
    '    msgs = [{"role": "system", "content": PROMPT}]\n'
    '    msgs.append({"role": "user", "content": f"Context: {notes}"})\n'
    "    msgs.extend(ADDED)\n"
    '    msgs.append({"role": "user", "content": user_message})\n'
    '    return client.chat.completions.create(model="m", messages=msgs)\n'
)


def test_a_context_message_appended_before_the_history_is_found() -> None:
    assert lines_of(_APPENDED.replace("ADDED", "history"), "PL304") == [4]


def test_a_message_appended_before_other_messages_is_not_ahead_of_a_history() -> None:
    """`msgs.extend(EXAMPLES)`: fixed examples, no history, follow the context message."""
    assert lines_of(_APPENDED.replace("ADDED", "EXAMPLES"), "PL304") == []


def test_a_context_message_appended_after_the_history_is_silent() -> None:
    src = _APPENDED.replace("ADDED", "history")
    lines = src.splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    assert lines_of("".join(lines), "PL304") == []


# The stored conversation replayed one message a row, then the newest user message, then a
# tool loop that sends the list and adds each round's tool results to it.
_REPLAYED = (
    "async def reply(client, user_input, conversation_history, customer):\n"
    '    messages = [{"role": "system", "content": PROMPT}]\n'
    "    BEFORE\n"
    "    for msg in LOOPED:\n"
    '        if msg["is_bot"]:\n'
    '            messages.append({"role": "assistant", "content": msg["text"]})\n'
    "        else:\n"
    '            name = msg.get("customer_name") or "User"\n'
    '            messages.append({"role": "user", "content": f"{name} said: {msg[\'text\']}"})\n'
    '    messages.append({"role": "user", "content": [{"type": "text", "text": user_input}]})\n'
    "    for _ in range(5):\n"
    '        answer = await client.chat.completions.create(model="m", messages=messages)\n'
    "        tool_outputs = await run_tools(answer)\n"
    "        messages.extend(tool_outputs)\n"
)


def _replayed(before: str = "pass", looped: str = "conversation_history") -> str:
    return _REPLAYED.replace("BEFORE", before).replace("LOOPED", looped)


def test_the_replayed_history_and_the_newest_message_after_it_are_silent() -> None:
    """The messages the loop writes are the stored rows themselves (the customer's name is
    that row's), and the newest message comes after them: nothing is ahead of the history."""
    assert lines_of(_replayed(), "PL304") == []


def test_a_context_message_appended_before_the_replay_loop_is_found() -> None:
    src = _replayed(before='messages.append({"role": "user", "content": f"Re: {user_input}"})')
    assert lines_of(src, "PL304") == [3]


def test_a_per_request_system_message_before_the_replay_loop_is_found() -> None:
    src = _replayed(before='messages.append({"role": "system", "content": f"Re: {user_input}"})')
    assert lines_of(src, "PL304") == [3]


def test_a_loop_over_what_is_no_history_is_no_replay() -> None:
    """A loop over retrieved documents writes what this request fetched, not the stored
    conversation: its messages stay ahead of the tool results added later."""
    src = _replayed(looped="search(user_input)")
    assert 6 in lines_of(src, "PL304")


# Twentieth pass (`pycheck.toolstate`): ADK renders the session state into each `{key}` of an
# agent's instruction on every model call; a tool of the module that rewrites the key changes
# the instruction ahead of the history (real26's course-order agents, in two projects).
_ADK = (
    "from google.adk.agents import Agent\n"
    "from google.adk.tools.tool_context import ToolContext\n"
    "def refund(tool_context: ToolContext) -> dict:\n"
    '    tool_context.state["purchased"] = []\n'
    '    return {"ok": True}\n'
    "agent = Agent(\n"
    '    name="orders",\n'
    '    instruction="""\n'
    "    Name: {user_name}\n"
    "    Purchased: {purchased}\n"
    '    """,\n'
    "    tools=[refund],\n"
    ")\n"
)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (_ADK, [10]),
        # ADK's optional slot, the same state
        (_ADK.replace("{purchased}", "{purchased?}"), [10]),
        # near misses: a key no function writes (set once when the session is made); the
        # written key not in the instruction; a literal brace; another framework's template
        (_ADK.replace('state["purchased"]', 'state["audit"]'), []),
        (_ADK.replace("Purchased: {purchased}", "Purchased: see the tool"), []),
        (_ADK.replace("{purchased}", "{{purchased}}"), []),
        (_ADK.replace("google.adk", "myagents"), []),
        # a callback's context, not a tool's; a constant written
        (
            _ADK.replace("tool_context: ToolContext", "callback_context").replace(
                "tool_context.state", "callback_context.state"
            ),
            [],
        ),
        (_ADK.replace('state["purchased"] = []', 'state["purchased"] = "none"'), []),
    ],
)
def test_tool_written_state_in_an_adk_instruction(src: str, expected: list[int]) -> None:
    assert lines_of(src, "PL304") == expected
