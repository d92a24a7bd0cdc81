"""Responses' `prompt_cache_options.prewarm` and `cache_write_tokens_details` on the emulator,
through the official `openai` SDK (whose types document both; Chat Completions has neither).

prewarm: "Prepares the prompt cache without generating output" - the request reads and writes
the cache as any other, returns no output and bills none. The write split: the tokens written
into 30-minute and into 12-hour entries (`ttl_30m_tokens`, `ttl_12h_tokens`), each written span
with the TTL of the breakpoint that ends it.
"""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.billing.usage import from_openai_chat, from_openai_responses
from prefixlock.cache.units import openai_units
from prefixlock.emulator import Emulator
from tests.helpers.sdk import openai

MODEL = "gpt-5.6-terra"
SYSTEM = "You are a meticulous assistant for the invoice service repository. " * 110
MARK = {"mode": "explicit"}


def sdk(emu: Emulator) -> openai.OpenAI:
    return openai.OpenAI(api_key="test-key", base_url=emu.openai_base_url, max_retries=0)


def body(question: str, **options: Any) -> dict[str, Any]:
    return {
        "model": MODEL,
        "input": [
            {
                "role": "developer",
                "content": [
                    {"type": "input_text", "text": SYSTEM, "prompt_cache_breakpoint": dict(MARK)}
                ],
            },
            {"role": "user", "content": [{"type": "input_text", "text": question}]},
        ],
        "prompt_cache_key": "session-1",
        "prompt_cache_options": options,
    }


def end_of(b: dict[str, Any], item: int) -> int:
    units = openai_units(b)
    return units[len(units) - len(b["input"]) + item].end


def test_prewarm_writes_the_cache_and_generates_nothing(emulator: Emulator) -> None:
    client = sdk(emulator)
    warm = body("Why does test_parse fail?", prewarm=True)
    resp = client.responses.create(**warm)
    assert resp.output == [] and resp.status == "completed"
    assert resp.usage is not None
    assert resp.usage.output_tokens == 0
    details = resp.usage.input_tokens_details
    assert (details.cached_tokens, details.cache_write_tokens) == (0, end_of(warm, 1))
    u = from_openai_responses(resp.usage.model_dump())
    assert (u.output, u.cache_write_5m, u.uncached_input) == (0, end_of(warm, 1), 0)
    # The real request that follows reads everything the prewarm wrote, and gets a reply.
    real = body("Why does test_parse fail?")
    again = client.responses.create(**real)
    assert again.usage is not None and again.output_text != ""
    assert again.usage.input_tokens_details.cached_tokens == end_of(real, 1)


def test_prewarm_streams_an_empty_response(emulator: Emulator) -> None:
    events = list(sdk(emulator).responses.create(**body("hello", prewarm=True), stream=True))
    done = events[-1]
    assert done.type == "response.completed"
    assert done.response.output == []
    assert done.response.usage is not None and done.response.usage.output_tokens == 0


def test_prewarm_false_is_an_ordinary_request(emulator: Emulator) -> None:
    resp = sdk(emulator).responses.create(**body("hello", prewarm=False))
    assert resp.output_text and resp.usage is not None and resp.usage.output_tokens > 0


def test_prewarm_is_responses_only_and_a_boolean(emulator: Emulator) -> None:
    client = sdk(emulator)
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "hello"}],
            extra_body={"prompt_cache_options": {"prewarm": True}},
        )
    assert err.value.param == "prompt_cache_options.prewarm"
    with pytest.raises(openai.BadRequestError) as err:
        client.responses.create(
            **body("hello"), extra_body={"prompt_cache_options": {"prewarm": "yes"}}
        )
    assert err.value.param == "prompt_cache_options.prewarm"


def test_write_split_by_ttl(emulator: Emulator) -> None:
    # The developer message's mark asks for 30 minutes; the request's TTL (12 hours) applies
    # to OpenAI's own breakpoint at the end of the user message.
    b = body("Why does test_parse fail?", ttl="12h")
    b["input"][0]["content"][0]["prompt_cache_breakpoint"]["ttl"] = "30m"
    usage = sdk(emulator).responses.create(**b).usage
    assert usage is not None
    split = usage.input_tokens_details.cache_write_tokens_details
    assert split is not None
    assert split.ttl_30m_tokens == end_of(b, 0)
    assert split.ttl_12h_tokens == end_of(b, 1) - end_of(b, 0)
    assert usage.input_tokens_details.cache_write_tokens == end_of(b, 1)
    # Nothing written: both zero.
    again = sdk(emulator).responses.create(**b).usage
    assert again is not None and again.input_tokens_details.cache_write_tokens_details is not None
    assert again.input_tokens_details.cache_write_tokens_details.ttl_12h_tokens == 0
    assert again.input_tokens_details.cache_write_tokens_details.ttl_30m_tokens == 0


def test_default_ttl_writes_are_all_thirty_minute(emulator: Emulator) -> None:
    usage = sdk(emulator).responses.create(**body("hello")).usage
    assert usage is not None
    split = usage.input_tokens_details.cache_write_tokens_details
    assert split is not None
    assert (split.ttl_30m_tokens, split.ttl_12h_tokens) == (
        usage.input_tokens_details.cache_write_tokens,
        0,
    )


def test_chat_and_older_models_report_no_split(emulator: Emulator) -> None:
    client = sdk(emulator)
    chat = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hello"}],
    )
    assert chat.usage is not None and chat.usage.prompt_tokens_details is not None
    assert "cache_write_tokens_details" not in chat.usage.prompt_tokens_details.model_dump()
    assert from_openai_chat(chat.usage.model_dump()).cache_write_5m > 0
    older = client.responses.create(model="gpt-5.4", input=SYSTEM)
    assert older.usage is not None
    assert older.usage.input_tokens_details.cache_write_tokens_details is None


def test_usage_parser_takes_the_split() -> None:
    def raw(details: dict[str, Any]) -> dict[str, Any]:
        return {
            "input_tokens": 3000,
            "output_tokens": 5,
            "input_tokens_details": {"cached_tokens": 1000, **details},
        }

    split = {"cache_write_tokens_details": {"ttl_30m_tokens": 1200, "ttl_12h_tokens": 300}}
    u = from_openai_responses(raw(split))  # no total: the split's sum
    assert (u.cache_read, u.cache_write_5m, u.uncached_input) == (1000, 1500, 500)
    u = from_openai_responses(raw({"cache_write_tokens": 1400, **split}))  # the total wins
    assert (u.cache_write_5m, u.uncached_input) == (1400, 600)
    assert u.raw["input_tokens_details"]["cache_write_tokens_details"]["ttl_12h_tokens"] == 300
