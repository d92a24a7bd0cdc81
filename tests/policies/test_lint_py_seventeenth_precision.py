"""Python, seventeenth pass (precision): a value read once in a script's one run
(`pycheck.scriptrun`), found by where the file's requests are sent from, not by names; near
misses (a served module, a module that sends nothing itself, a value read per pass) still
report."""

from __future__ import annotations

import pytest

from tests.helpers.lintfind import line_codes

# A tutorial script: the date read at import, its conversation sent from module-level code and
# a follow-up function, then the run ends.
_SCRIPT = (
    "import boto3\n"
    "from datetime import date\n\n\n"
    "def follow_up(client, messages):\n"
    "    messages.append({'role': 'user', 'content': [{'text': 'And tomorrow?'}]})\n"
    "    return client.converse(modelId='m', system=system, messages=messages)\n\n\n"
    "client = boto3.client('bedrock-runtime')\n"
    "today = date.today().strftime('%A %d %B %Y')\n"
    "system = [{'text': f'Today is {today}. You are a travel assistant.'}]\n"
    "messages = [{'role': 'user', 'content': [{'text': 'Is it warm in Berlin?'}]}]\n"
    "reply = client.converse(modelId='m', system=system, messages=messages)\n"
    "follow_up(client, messages)\n"
)


def test_a_date_read_once_in_a_script_s_one_run_is_not_reported() -> None:
    assert line_codes(_SCRIPT, "tour.py") == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a served module: its process outlives the day
        ("import boto3\n", "import boto3\nfrom fastapi import FastAPI\n"),
        # module-level code that sends nothing: a module others import and call
        (
            "reply = client.converse(modelId='m', system=system, messages=messages)\n"
            "follow_up(client, messages)\n",
            "",
        ),
        # the date read afresh on each pass of the script's own loop
        (
            "today = date.today().strftime('%A %d %B %Y')\n",
            "for _ in range(2):\n    today = date.today().strftime('%A %d %B %Y')\n",
        ),
    ],
)
def test_a_served_module_or_a_date_read_per_pass_is_reported(old: str, new: str) -> None:
    changed = _SCRIPT.replace(old, new)
    assert changed != _SCRIPT
    assert "PL102" in [c for _, c in line_codes(changed, "tour.py")]


# A planner's steps, each its own request: the step's number and the topic in a system text,
# one user text, both by keyword, no conversation carried from one step to the next.
_STEPS = (
    "def run_step(step_num, topic):\n"
    "    system = f'You write step {step_num} of a plan.'\n"
    "    return chat_completion(provider='p', system=system, user=f'Plan: {topic}')\n\n\n"
    "def plan(topic):\n"
    "    return [run_step(n, topic) for n in range(1, 4)]\n"
)


@pytest.mark.parametrize("user", ["user", "user_input", "user_text"])
def test_a_request_given_one_system_and_one_user_text_by_keyword_is_one_shot(user: str) -> None:
    text = _STEPS.replace("user=f", f"{user}=f")
    assert "PL106" not in [c for _, c in line_codes(text, "planner.py")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the conversation handed along by keyword
        ("user=f'Plan: {topic}')", "user=f'Plan: {topic}', history=earlier)"),
        # ... or a session that holds it on the server
        ("user=f'Plan: {topic}')", "user=f'Plan: {topic}', session_id=sid)"),
        # a message list, which may hold the history
        ("user=f'Plan: {topic}')", "messages=msgs)"),
        # a user text under a keyword that names no user's text
        ("user=f'Plan: {topic}')", "body=f'Plan: {topic}')"),
        # the user's text beside a history
        ("user=f'Plan: {topic}')", "user_input=f'Plan: {topic}', chat_history=earlier)"),
    ],
)
def test_a_keyword_request_that_carries_a_conversation_is_not(old: str, new: str) -> None:
    changed = _STEPS.replace(old, new)
    assert changed != _STEPS
    assert "PL106" in [c for _, c in line_codes(changed, "planner.py")]
