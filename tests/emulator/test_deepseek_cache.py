"""DeepSeek-style caching stores a unit at the end of each request's output, not just its input.

DeepSeek stores units at the end of each request's input and output, and for common prefixes
(docs/providers.md#deepseek-cache-units). The next turn carries the previous reply back as an
assistant message, so it reads through that reply and misses only what is new. Exact counters
through the official `openai` SDK.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from prefixlock.cache.units import openai_units
from prefixlock.emulator import Emulator
from tests.helpers.chat_fixture import SYSTEM, TOOLS, chat_client

if TYPE_CHECKING:  # SDK types only: the SDKs load on first use (tests.helpers.sdk)
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam


MODEL = "deepseek-v4-flash"


def _counters(reply: ChatCompletion) -> tuple[int, int, int]:
    usage = reply.usage
    assert usage is not None and usage.model_extra is not None
    hit = usage.model_extra["prompt_cache_hit_tokens"]
    miss = usage.model_extra["prompt_cache_miss_tokens"]
    return usage.prompt_tokens, hit, miss


def _end(messages: list[ChatCompletionMessageParam], **extra: Any) -> list[int]:
    """Unit ends of a body with these messages (the emulator's token counts)."""
    return [u.end for u in openai_units({"model": MODEL, "messages": messages, **extra})]


def test_next_turn_reads_through_the_previous_reply(emulator: Emulator) -> None:
    client = chat_client(emulator)
    chat: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Why did the payroll export stop at midnight?"},
    ]
    seen: list[tuple[int, int, int]] = []
    for question in ("Which runs are affected?", "How do we re-run them?", None):
        reply = client.chat.completions.create(model=MODEL, messages=chat)
        seen.append(_counters(reply))
        chat.append({"role": "assistant", "content": reply.choices[0].message.content})
        if question is not None:
            chat.append({"role": "user", "content": question})
    first = _end(chat[:2])[-1]
    assert seen[0] == (first, 0, first)
    for turn in (1, 2):
        ends = _end(chat[: 2 + 2 * turn])  # the body of that turn
        prompt = ends[-1]
        # Before: hit stopped at the end of the previous request's input (ends[-3]); the
        # previous reply (ends[-2] - ends[-3] tokens) missed again.
        assert ends[-2] > ends[-3]
        assert seen[turn] == (prompt, ends[-2], prompt - ends[-2])


def test_tool_call_reply_echoed_as_received_is_read(emulator: Emulator) -> None:
    client = chat_client(emulator)
    chat: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Read config.yaml and tell me the export hour."},
    ]
    reply = client.chat.completions.create(model=MODEL, messages=chat, tools=TOOLS)
    message = reply.choices[0].message
    assert message.tool_calls, "the scripted model calls a tool first"
    # Sent back as the SDK parsed it, null fields dropped (as most clients do).
    chat.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        chat.append({"role": "tool", "tool_call_id": call.id, "content": "export_hour: 0"})
    second = client.chat.completions.create(model=MODEL, messages=chat, tools=TOOLS)
    ends = _end(chat, tools=TOOLS)
    n_results = len(message.tool_calls)
    through_reply = ends[-1 - n_results]
    assert _counters(second) == (ends[-1], through_reply, ends[-1] - through_reply)


def test_a_reply_sent_back_in_other_bytes_is_not_read(emulator: Emulator) -> None:
    """A client that re-serializes the tool arguments differently sends other tokens: the hit
    falls back to the end of the previous input, as on DeepSeek (a unit matches whole)."""
    client = chat_client(emulator)
    chat: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Read config.yaml and tell me the export hour."},
    ]
    reply = client.chat.completions.create(model=MODEL, messages=chat, tools=TOOLS)
    message = reply.choices[0].message.model_dump(exclude_none=True)
    for call in message["tool_calls"]:
        args = json.loads(call["function"]["arguments"])
        call["function"]["arguments"] = json.dumps(args, indent=2)
    first_input = _end(chat, tools=TOOLS)[-1]
    chat.append(message)
    for call in message["tool_calls"]:
        chat.append({"role": "tool", "tool_call_id": call["id"], "content": "export_hour: 0"})
    second = client.chat.completions.create(model=MODEL, messages=chat, tools=TOOLS)
    prompt, hit, _ = _counters(second)
    assert (prompt, hit) == (_end(chat, tools=TOOLS)[-1], first_input)
