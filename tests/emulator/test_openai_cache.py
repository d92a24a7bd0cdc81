"""OpenAI-style and DeepSeek-style caching through the official `openai` SDK, exact usage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from prefixlock.cache.units import openai_tokens, openai_units
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from tests.helpers.chat_fixture import TOOLS
from tests.helpers.sdk import openai

if TYPE_CHECKING:  # SDK types only: the SDKs load on first use (tests.helpers.sdk)
    from openai.types.chat import ChatCompletionMessageParam


SYSTEM = "You are a meticulous assistant for the invoice service repository. " * 110


def chat_body(user: str = "The test suite is failing.", **extra: Any) -> dict[str, Any]:
    return {
        "model": "gpt-5.4",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "tools": TOOLS,
        **extra,
    }


def blocks_of(n: int) -> int:
    return n // 128 * 128


@pytest.fixture
def oai(emulator: Emulator) -> openai.OpenAI:
    return openai.OpenAI(api_key="test-key", base_url=emulator.base_url + "/v1", max_retries=0)


def test_chat_second_request_reads_whole_128_token_blocks(oai: openai.OpenAI) -> None:
    b = chat_body(prompt_cache_key="session-1")
    n = len(openai_tokens(b))
    first = oai.chat.completions.create(**b).usage
    assert first is not None and first.prompt_tokens == n
    assert first.prompt_tokens_details is not None
    assert first.prompt_tokens_details.cached_tokens == 0
    second = oai.chat.completions.create(**b).usage
    assert second is not None and second.prompt_tokens == n  # includes the cached tokens
    assert second.prompt_tokens_details is not None
    assert second.prompt_tokens_details.cached_tokens == blocks_of(n)


def test_chat_below_1024_tokens_caches_nothing(oai: openai.OpenAI) -> None:
    b: dict[str, Any] = {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": "short " * 100}],
    }
    assert len(openai_tokens(b)) < 1024
    for _ in range(2):
        usage = oai.chat.completions.create(**b).usage
        assert usage is not None and usage.prompt_tokens_details is not None
        assert usage.prompt_tokens_details.cached_tokens == 0


def test_chat_model_switch_reads_nothing(oai: openai.OpenAI) -> None:
    oai.chat.completions.create(**chat_body(prompt_cache_key="k"))
    warm = oai.chat.completions.create(**chat_body(prompt_cache_key="k")).usage
    assert warm is not None and warm.prompt_tokens_details is not None
    assert warm.prompt_tokens_details.cached_tokens == blocks_of(warm.prompt_tokens)
    usage = oai.chat.completions.create(**chat_body(prompt_cache_key="k", model="gpt-5")).usage
    assert usage is not None and usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 0


def test_chat_stream_reports_usage_in_final_chunk(oai: openai.OpenAI) -> None:
    b = chat_body(prompt_cache_key="s")
    oai.chat.completions.create(**b)
    chunks = list(
        oai.chat.completions.create(**b, stream=True, stream_options={"include_usage": True})
    )
    assert all(c.usage is None for c in chunks[:-1])
    usage = chunks[-1].usage
    assert usage is not None and usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == blocks_of(len(openai_tokens(b)))
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert calls[0].function is not None and calls[0].function.name is not None


def test_chat_stream_without_include_usage_has_no_usage(oai: openai.OpenAI) -> None:
    chunks = list(oai.chat.completions.create(**chat_body(), stream=True))
    assert all(c.usage is None for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_responses_usage_and_stream(oai: openai.OpenAI) -> None:
    b: dict[str, Any] = {
        "model": "gpt-5.4",
        "instructions": SYSTEM,
        "input": "The test suite is failing.",
        "tools": [{"type": "function", "name": "list_files", "parameters": {"type": "object"}}],
        "prompt_cache_key": "r1",
    }
    n = len(openai_tokens(b))
    first = oai.responses.create(**b)
    assert first.usage is not None and first.usage.input_tokens == n
    assert first.usage.input_tokens_details.cached_tokens == 0
    assert [o.type for o in first.output] == ["message", "function_call"]
    with oai.responses.stream(**b) as stream:
        final = stream.get_final_response()
    assert final.usage is not None and final.usage.input_tokens == n
    assert final.usage.input_tokens_details.cached_tokens == blocks_of(n)


def test_deepseek_reports_hit_and_miss(oai: openai.OpenAI) -> None:
    b = chat_body(model="deepseek-v4-flash")
    n = openai_units(b)[-1].end
    first = oai.chat.completions.create(**b).usage
    assert first is not None and first.model_extra is not None
    assert (
        first.model_extra["prompt_cache_hit_tokens"],
        first.model_extra["prompt_cache_miss_tokens"],
    ) == (0, n)
    turn2 = dict(b)
    turn2["messages"] = [
        *b["messages"],
        {"role": "assistant", "content": "Let me look."},
        {"role": "user", "content": "Go on."},
    ]
    second = oai.chat.completions.create(**turn2).usage
    assert second is not None and second.model_extra is not None
    assert second.prompt_tokens == openai_units(turn2)[-1].end
    assert second.model_extra["prompt_cache_hit_tokens"] == n  # the stored end of turn 1's input
    assert second.model_extra["prompt_cache_miss_tokens"] == second.prompt_tokens - n


def _run_sessions(with_key: bool) -> tuple[int, int, set[int]]:
    """8 sessions sharing a system prompt, 4 turns each within one minute."""
    clock = ManualClock()
    cached = prompt = 0
    with Emulator.start(config=EmulatorConfig(), clock=clock) as emu:
        client = openai.OpenAI(api_key="k", base_url=emu.base_url + "/v1", max_retries=0)
        history: dict[int, list[ChatCompletionMessageParam]] = {
            s: [{"role": "system", "content": SYSTEM}] for s in range(8)
        }
        for turn in range(4):
            for s in range(8):
                question = f"Session {s}, question {turn}."
                if turn == 0:  # each session starts with its own pasted file
                    question += "\n" + f"line {s} of this session's own file, " * 300
                history[s].append({"role": "user", "content": question})
                key = f"session-{s}" if with_key else openai.omit  # omit: no field at all
                r = client.chat.completions.create(
                    model="gpt-5.4", messages=history[s], prompt_cache_key=key
                )
                assert r.usage is not None and r.usage.prompt_tokens_details is not None
                cached += r.usage.prompt_tokens_details.cached_tokens or 0
                prompt += r.usage.prompt_tokens
                history[s].append({"role": "assistant", "content": r.choices[0].message.content})
                clock.advance(1)
        machines = {r.machine for r in emu.served() if r.machine is not None}
    return cached, prompt, machines


def test_without_cache_key_requests_scatter_and_hit_less() -> None:
    cached_key, prompt_key, _ = _run_sessions(with_key=True)
    cached_none, prompt_none, machines_none = _run_sessions(with_key=False)
    assert prompt_key == prompt_none
    # 32 requests with one shared prefix and no key: past 15 a minute they spill to other
    # machines and miss; per-session keys stay under the limit on their own machines.
    assert len(machines_none) > 1
    assert cached_none < 0.75 * cached_key
    assert cached_key / prompt_key > 0.7


def test_write_priced_model_reports_cache_write_tokens(oai: openai.OpenAI) -> None:
    b = chat_body(prompt_cache_key="w", model="gpt-5.6-terra")
    n = len(openai_tokens(b))
    first = oai.chat.completions.create(**b).usage
    assert first is not None and first.prompt_tokens_details is not None
    assert first.prompt_tokens_details.cached_tokens == 0
    # gpt-5.6 writes at its implicit breakpoint (the end of the user message), exactly: no
    # 128-token rounding (tests/emulator/test_openai_explicit_cache.py has the rest).
    assert first.prompt_tokens_details.cache_write_tokens == n
    second = oai.chat.completions.create(**b).usage
    assert second is not None and second.prompt_tokens_details is not None
    assert second.prompt_tokens_details.cached_tokens == n
    assert second.prompt_tokens_details.cache_write_tokens == 0
    # Models without a write price do not report the field at all.
    plain = oai.chat.completions.create(**chat_body()).usage
    assert plain is not None and plain.prompt_tokens_details is not None
    assert plain.prompt_tokens_details.cache_write_tokens is None


def test_in_memory_retention_expires_and_24h_survives() -> None:
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock) as emu:
        client = openai.OpenAI(api_key="k", base_url=emu.openai_base_url, max_retries=0)

        def cached(**extra: Any) -> int:
            usage = client.chat.completions.create(**chat_body(prompt_cache_key="r", **extra)).usage
            assert usage is not None and usage.prompt_tokens_details is not None
            return usage.prompt_tokens_details.cached_tokens or 0

        cached()
        clock.advance(601)  # gpt-5.4's in-memory retention is 10 minutes in the price table
        assert cached() == 0
        emu.flush()
        cached(prompt_cache_retention="24h")
        clock.advance(3 * 3600)
        assert cached(prompt_cache_retention="24h") > 0
