"""Responses API output caps: `max_output_tokens` stops generation there, as the real API does:
the text is cut, the usage bills the cap, and the response is `incomplete` with the reason
`max_output_tokens` (the stream ends with `response.incomplete`). Before, the emulator ignored
the cap and billed the script's whole reply (a 16-token keep-alive ping was billed 32). The
API refuses a cap under 16. Exact counters through the official `openai` SDK."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.emulator import Emulator
from prefixlock.tokenizer import count_tokens
from tests.helpers.chat_fixture import SYSTEM, chat_client
from tests.helpers.sdk import openai

QUESTION = "Why did the payroll export stop at midnight?"
TOOLS: list[Any] = [
    {
        "type": "function",
        "name": name,
        "description": f"{name} in the workspace",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
    for name in ("list_files", "read_file")
]


@pytest.mark.parametrize("cap", [16, 20])
def test_the_cap_cuts_and_bills_the_reply(emulator: Emulator, cap: int) -> None:
    client = chat_client(emulator)
    full = client.responses.create(model="gpt-5.4", instructions=SYSTEM, input=QUESTION)
    assert full.usage is not None and full.usage.output_tokens > cap
    assert full.status == "completed" and full.incomplete_details is None
    cut = client.responses.create(
        model="gpt-5.4", instructions=SYSTEM, input=QUESTION, max_output_tokens=cap
    )
    assert cut.usage is not None and cut.usage.output_tokens == cap
    assert cut.status == "incomplete"
    assert cut.incomplete_details is not None
    assert cut.incomplete_details.reason == "max_output_tokens"
    assert cut.max_output_tokens == cap
    assert count_tokens(cut.output_text) == cap and full.output_text.startswith(cut.output_text)
    assert emulator.requests[-1].usage == cut.usage.model_dump(exclude_none=True)


def test_a_cap_that_fits_changes_nothing(emulator: Emulator) -> None:
    client = chat_client(emulator)
    full = client.responses.create(model="gpt-5.4", instructions=SYSTEM, input=QUESTION)
    assert full.usage is not None
    same = client.responses.create(
        model="gpt-5.4",
        instructions=SYSTEM,
        input=QUESTION,
        max_output_tokens=full.usage.output_tokens,
    )
    assert same.usage is not None and same.usage.output_tokens == full.usage.output_tokens
    assert same.status == "completed" and same.incomplete_details is None
    assert same.output_text == full.output_text


def test_a_tool_call_past_the_cap_is_not_returned(emulator: Emulator) -> None:
    client = chat_client(emulator)
    question = "Read config.yaml and tell me the export hour."
    full = client.responses.create(
        model="gpt-5.4", instructions=SYSTEM, input=question, tools=TOOLS
    )
    assert any(item.type == "function_call" for item in full.output), "the script calls a tool"
    cut = client.responses.create(
        model="gpt-5.4", instructions=SYSTEM, input=question, tools=TOOLS, max_output_tokens=16
    )
    assert cut.usage is not None and cut.usage.output_tokens <= 16
    assert cut.status == "incomplete"
    assert not any(item.type == "function_call" for item in cut.output)


def test_a_streamed_reply_ends_incomplete(emulator: Emulator) -> None:
    client = chat_client(emulator)
    stream = client.responses.create(
        model="gpt-5.4", instructions=SYSTEM, input=QUESTION, max_output_tokens=16, stream=True
    )
    text, kinds, final = "", [], None
    for event in stream:
        kinds.append(event.type)
        if event.type == "response.output_text.delta":
            text += event.delta
        if event.type in ("response.completed", "response.incomplete"):
            final = event.response
    assert kinds[-1] == "response.incomplete" and "response.completed" not in kinds
    assert final is not None and final.status == "incomplete"
    assert final.incomplete_details is not None
    assert final.incomplete_details.reason == "max_output_tokens"
    assert final.usage is not None and final.usage.output_tokens == 16
    assert count_tokens(text) == 16 and final.output_text == text


def test_a_prewarm_bills_no_output_whatever_the_cap(emulator: Emulator) -> None:
    client = chat_client(emulator)
    warm = client.responses.create(
        model="gpt-5.6-terra",
        instructions=SYSTEM,
        input=QUESTION,
        max_output_tokens=16,
        extra_body={"prompt_cache_options": {"prewarm": True}},
    )
    assert warm.usage is not None and warm.usage.output_tokens == 0
    assert warm.status == "completed"


@pytest.mark.parametrize("cap", [0, 15])
def test_a_cap_under_16_is_refused(emulator: Emulator, cap: int) -> None:
    client = chat_client(emulator)
    with pytest.raises(openai.BadRequestError) as err:
        client.responses.create(
            model="gpt-5.4", instructions=SYSTEM, input=QUESTION, max_output_tokens=cap
        )
    assert "max_output_tokens" in str(err.value)
