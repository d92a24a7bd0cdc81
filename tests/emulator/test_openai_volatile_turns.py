"""The scripted model finds its place in the script the same way on every API when a client
sends volatile text (the time) beside the question and after every tool result.

On the Anthropic API that text rides in the user message with the question or the tool results;
OpenAI clients send it as a user message of its own. It used to count as a new user turn there:
the script restarted at every request after a tool result, and one turn called the same tool
until max_turns (25 requests). Checked through prefixlock's Agent (which talks to the emulator
with the official SDKs) and with raw bodies through the openai SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from prefixlock import Agent, FrozenPrefix
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import TextDelta, ToolCall
from prefixlock.tools import tool
from tests.helpers.sdk import openai


@tool
async def run_tests(target: str) -> str:
    """Run the tests under `target`."""
    return f"3 passed in {target}"


SCRIPT = Script(
    rules=[
        Rule(
            match="flaky",
            steps=[
                Step(text="Looking.", tool="run_tests", input={"target": "a"}),
                Step(text="Not flaky."),
            ],
        ),
        Rule(
            turn=1,
            steps=[
                Step(text="Running them.", tool="run_tests", input={"target": "t"}),
                Step(text="Again, to be sure.", tool="run_tests", input={"target": "t"}),
                Step(text="All green."),
            ],
        ),
    ],
    default="Nothing to do.",
)
MODELS = [
    "claude-sonnet-4-6",
    "gpt-5.4",
    "openai-responses:gpt-5.4",
    "gpt-5.6-terra",
    "openai-responses:gpt-5.6-terra",
]


async def session(model: str) -> list[tuple[int, list[str], str]]:
    """(requests, tool calls, final text) of each of three turns, volatile text on each."""
    clock = ManualClock()
    out: list[tuple[int, list[str], str]] = []
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system="You run tests. " * 40, tools=[run_tests]),
            model=model,
            api_key="test-key",
            base_url=emu.base_url,
            clock=clock,
        )
        async with agent.session() as s:
            for turn, text in enumerate(["Run the tests.", "Is test_eur flaky?", "Thanks."]):
                before = len(s.requests)
                calls: list[str] = []
                final = ""
                async for ev in s.send(text, volatile=[f"Now: 12:0{turn}:00"]):
                    if isinstance(ev, ToolCall):
                        calls.append(ev.name)
                    elif isinstance(ev, TextDelta):
                        final += ev.text
                out.append((len(s.requests) - before, calls, final))
    return out


@pytest.mark.parametrize("model", MODELS)
async def test_volatile_text_does_not_restart_the_script(model: str) -> None:
    turns = await session(model)
    assert [(n, calls) for n, calls, _ in turns] == [
        (3, ["run_tests", "run_tests"]),  # turn 1 by number, all three steps
        (2, ["run_tests"]),  # matched by the question, not by the volatile text
        (1, []),  # the default
    ]
    assert turns[0][2].endswith("All green.")
    assert turns[1][2].endswith("Not flaky.")
    assert turns[2][2] == "Nothing to do."


def _tool_call(call_id: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "run_tests", "arguments": '{"target": "t"}'},
    }


@pytest.fixture
def scripted() -> Iterator[Emulator]:
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=SCRIPT) as emu:
        yield emu


def test_chat_text_after_a_tool_result_continues_the_step(scripted: Emulator) -> None:
    sdk = openai.OpenAI(api_key="test-key", base_url=scripted.openai_base_url, max_retries=0)
    tools: list[Any] = [
        {"type": "function", "function": {"name": "run_tests", "parameters": {"type": "object"}}}
    ]
    messages: list[Any] = [
        {"role": "user", "content": "Run the tests."},
        {"role": "user", "content": "Now: 12:00:00"},
    ]
    first = sdk.chat.completions.create(model="gpt-5.4", messages=messages, tools=tools)
    assert first.choices[0].message.content == "Running them."
    messages[1:] = [
        {"role": "assistant", "content": "Running them.", "tool_calls": [_tool_call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": "3 passed"},
        {"role": "user", "content": "Now: 12:00:05"},
    ]
    second = sdk.chat.completions.create(model="gpt-5.4", messages=messages, tools=tools)
    assert second.choices[0].message.content == "Again, to be sure."


def test_responses_text_after_a_tool_output_continues_the_step(scripted: Emulator) -> None:
    sdk = openai.OpenAI(api_key="test-key", base_url=scripted.openai_base_url, max_retries=0)
    items: list[Any] = [
        {"role": "user", "content": "Is test_eur flaky?"},
        {"role": "user", "content": "Now: 12:00:00"},
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "run_tests",
            "arguments": '{"target": "a"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "3 passed"},
        {"role": "user", "content": "Now: 12:00:05"},
    ]
    resp = sdk.responses.create(
        model="gpt-5.4",
        input=items,
        tools=[
            {
                "type": "function",
                "name": "run_tests",
                "parameters": {"type": "object"},
                "strict": False,
            }
        ],
    )
    assert resp.output_text == "Not flaky."
