"""Chat Completions output caps: `max_completion_tokens` (and the older `max_tokens`, the only
name DeepSeek knows) stop generation there, as the real API does: the text is cut, the usage
bills the cap, and the finish reason is `length`. Before, a 1-token keep-alive ping was billed
the script's whole reply (16 tokens). Exact counters through the official `openai` SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from prefixlock.cache.units import openai_units
from prefixlock.emulator import Emulator
from prefixlock.tokenizer import count_tokens
from tests.helpers.chat_fixture import SYSTEM, TOOLS, chat_client

if TYPE_CHECKING:  # SDK types only: the SDKs load on first use (tests.helpers.sdk)
    from openai.types.chat import ChatCompletionMessageParam


def _chat(question: str) -> list[ChatCompletionMessageParam]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


@pytest.mark.parametrize("field", ["max_completion_tokens", "max_tokens"])
@pytest.mark.parametrize("cap", [1, 3])
def test_the_cap_cuts_and_bills_the_reply(emulator: Emulator, field: str, cap: int) -> None:
    client = chat_client(emulator)
    question = "Why did the payroll export stop at midnight?"
    full = client.chat.completions.create(model="gpt-5.4", messages=_chat(question))
    assert full.usage is not None and full.usage.completion_tokens > 3
    assert full.choices[0].finish_reason == "stop"
    if field == "max_tokens":  # refused by reasoning models (gpt-5 and later)
        cut = client.chat.completions.create(
            model="gpt-4.1", messages=_chat(question), max_tokens=cap
        )
    else:
        cut = client.chat.completions.create(
            model="gpt-5.4", messages=_chat(question), max_completion_tokens=cap
        )
    assert cut.usage is not None and cut.usage.completion_tokens == cap
    assert cut.choices[0].finish_reason == "length"
    text = cut.choices[0].message.content or ""
    assert count_tokens(text) == cap and (full.choices[0].message.content or "").startswith(text)


def test_a_cap_that_fits_changes_nothing(emulator: Emulator) -> None:
    client = chat_client(emulator)
    question = "Why did the payroll export stop at midnight?"
    full = client.chat.completions.create(model="gpt-5.4", messages=_chat(question))
    assert full.usage is not None
    same = client.chat.completions.create(
        model="gpt-5.4",
        messages=_chat(question),
        max_completion_tokens=full.usage.completion_tokens,
    )
    assert same.usage is not None and same.usage.completion_tokens == full.usage.completion_tokens
    assert same.choices[0].finish_reason == "stop"
    assert same.choices[0].message.content == full.choices[0].message.content


def test_a_tool_call_past_the_cap_is_not_returned(emulator: Emulator) -> None:
    client = chat_client(emulator)
    question = "Read config.yaml and tell me the export hour."
    full = client.chat.completions.create(model="gpt-5.4", messages=_chat(question), tools=TOOLS)
    assert full.choices[0].message.tool_calls, "the scripted model calls a tool first"
    cut = client.chat.completions.create(
        model="gpt-5.4", messages=_chat(question), tools=TOOLS, max_completion_tokens=1
    )
    assert cut.usage is not None and cut.usage.completion_tokens == 1
    assert cut.choices[0].finish_reason == "length" and not cut.choices[0].message.tool_calls


def test_streamed_deepseek_reply_is_cut_and_read_back_as_cut(emulator: Emulator) -> None:
    """DeepSeek stores a unit through the reply as returned: the cut one is what is read."""
    client = chat_client(emulator)
    chat = _chat("Why did the payroll export stop at midnight?")
    stream = client.chat.completions.create(
        model="deepseek-v4-flash",
        messages=chat,
        max_tokens=2,
        stream=True,
        stream_options={"include_usage": True},
    )
    text, finish, usage = "", None, None
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
        usage = chunk.usage or usage
    assert usage is not None and usage.completion_tokens == 2 and finish == "length"
    assert count_tokens(text) == 2
    chat = [*chat, {"role": "assistant", "content": text}, {"role": "user", "content": "Go on."}]
    again = client.chat.completions.create(model="deepseek-v4-flash", messages=chat)
    ends = [u.end for u in openai_units({"model": "deepseek-v4-flash", "messages": chat})]
    assert again.usage is not None and again.usage.model_extra is not None
    assert again.usage.model_extra["prompt_cache_hit_tokens"] == ends[-2]  # through the cut reply
