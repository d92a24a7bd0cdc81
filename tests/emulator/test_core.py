"""The emulator's decisions without HTTP: the usage each API reports for the same cache state,
what an injected fault does to a request, and how a faulty response reaches the client.

EmulatorCore is driven with parsed bodies and explicit times; nothing here opens a socket.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.cache.units import anthropic_units, openai_tokens
from prefixlock.emulator.answers import response_answer
from prefixlock.emulator.config import EmulatorConfig, FaultSpec
from prefixlock.emulator.core import EmulatorCore
from prefixlock.emulator.faults import FaultQueue, plan_fault

NOW = 1_800_000_000.0
SYSTEM = "You are a careful coding assistant. Follow the repository conventions. " * 120


def core() -> EmulatorCore:
    return EmulatorCore(EmulatorConfig(), PriceTable.builtin())


def anthropic_body(**extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "What does this repo do?"}],
        **extra,
    }


def chat_body(model: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "What does this repo do?"},
        ],
        **extra,
    }


def twice(c: EmulatorCore, api: str, body: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The usage of the same request sent twice, the first committed before the second."""
    first = c.plan(api, body, "key", NOW)
    c.commit(first, NOW)
    second = c.plan(api, body, "key", NOW + 1)
    return first.usage, second.usage


def test_anthropic_reports_disjoint_counters() -> None:
    body = anthropic_body()
    total = anthropic_units(body)[-1].end
    cached = [u for u in anthropic_units(body) if u.breakpoint is not None][-1].end
    first, second = twice(core(), "anthropic", body)
    assert (first["input_tokens"], first["cache_creation_input_tokens"]) == (
        total - cached,
        cached,
    )
    assert first["cache_read_input_tokens"] == 0
    # Read, written and plain add up to the prompt: input_tokens is what was neither.
    assert (second["input_tokens"], second["cache_read_input_tokens"]) == (total - cached, cached)
    assert second["cache_creation_input_tokens"] == 0
    assert second["cache_creation"] == {
        "ephemeral_5m_input_tokens": 0,
        "ephemeral_1h_input_tokens": 0,
    }


def test_a_cache_write_is_readable_only_once_committed() -> None:
    c = core()
    body = anthropic_body()
    c.plan("anthropic", body, "key", NOW)  # planned, never answered: nothing stored
    assert c.plan("anthropic", body, "key", NOW).usage["cache_read_input_tokens"] == 0


@pytest.mark.parametrize(
    ("api", "prompt", "details"),
    [
        ("openai-chat", "prompt_tokens", "prompt_tokens_details"),
        ("openai-responses", "input_tokens", "input_tokens_details"),
    ],
)
def test_openai_prompt_tokens_include_the_cached_ones(api: str, prompt: str, details: str) -> None:
    if api == "openai-chat":
        body = chat_body("gpt-5.4")
    else:
        body = {"model": "gpt-5.4", "instructions": SYSTEM, "input": "What does this repo do?"}
    tokens = len(openai_tokens(body))
    first, second = twice(core(), api, body)
    assert (first[prompt], first[details]["cached_tokens"]) == (tokens, 0)
    assert second[prompt] == tokens  # the whole prompt, cached part included
    assert 0 < second[details]["cached_tokens"] <= tokens
    assert second[details]["cached_tokens"] % 128 == 0  # whole blocks
    assert "prompt_cache_hit_tokens" not in second


def test_deepseek_reports_hit_and_miss() -> None:
    body = chat_body("deepseek-v4-flash")
    first, second = twice(core(), "openai-chat", body)
    assert first["prompt_cache_hit_tokens"] == 0
    assert first["prompt_cache_miss_tokens"] == first["prompt_tokens"]
    assert second["prompt_cache_hit_tokens"] == second["prompt_tokens"] > 0
    assert second["prompt_cache_miss_tokens"] == 0
    assert "prompt_tokens_details" not in second


def test_a_planned_response_carries_its_usage_in_body_and_stream() -> None:
    plan = core().plan("openai-chat", chat_body("gpt-5.4", stream=True), "key", NOW)
    assert plan.done_marker and plan.events is not None
    assert plan.body["usage"] == plan.usage


# ---- faults -----------------------------------------------------------------------------------


def test_rate_limit_fault_answers_429_with_its_retry_after() -> None:
    plan = plan_fault(FaultSpec(kind="429", retry_after=2), stream=False)
    assert plan.kind == "429" and plan.error is not None
    assert plan.error.status == 429
    assert dict(plan.error.headers) == {"retry-after": "2", "retry-after-ms": "2000"}


def test_a_500_carries_no_retry_after_and_overloaded_defaults_to_10ms() -> None:
    five = plan_fault(FaultSpec(kind="500"), stream=False).error
    assert five is not None and (five.status, dict(five.headers)) == (500, {})
    over = plan_fault(FaultSpec(kind="529"), stream=True).error
    assert over is not None and over.status == 529
    assert dict(over.headers) == {"retry-after": "0.01", "retry-after-ms": "10"}


def test_an_sse_error_on_a_plain_request_is_a_529() -> None:
    plain = plan_fault(FaultSpec(kind="sse-error"), stream=False)
    assert plain.error is not None and plain.error.status == 529
    streamed = plan_fault(FaultSpec(kind="sse-error"), stream=True)
    assert (streamed.error, streamed.delivery) == (None, "sse-error")


def test_latency_and_cut_serve_the_request() -> None:
    slow = plan_fault(FaultSpec(kind="latency", seconds=3), stream=False)
    assert (slow.error, slow.delay, slow.delivery) == (None, 3, "full")
    cut = plan_fault(FaultSpec(kind="cut"), stream=False)
    assert (cut.error, cut.delivery) == (None, "cut")
    assert plan_fault(None, stream=True) == plan_fault(None, stream=False)
    assert plan_fault(None, stream=False).kind is None


def test_fault_queue_skips_then_fires_count_times_on_its_path() -> None:
    queue = FaultQueue([FaultSpec(kind="529", count=2, after=1, path="/v1/messages")])
    queue.add(FaultSpec(kind="429", count=0))  # never fires
    got = [
        queue.take(path)
        for path in ("/v1/chat/completions", "/v1/messages", "/v1/messages", "/v1/messages")
    ]
    kinds = [None if f is None else f.kind for f in got]
    assert kinds == [None, None, "529", "529"]
    assert queue.take("/v1/messages") is None


# ---- delivery ---------------------------------------------------------------------------------


def _sse_data(frame: bytes) -> str:
    return frame.decode().split("data: ", 1)[1].strip()


def test_a_cut_stream_is_half_its_events_and_no_end() -> None:
    plan = core().plan("anthropic", anthropic_body(stream=True), "key", NOW)
    assert plan.events is not None
    full = response_answer(plan.body, plan.events, api="anthropic", done_marker=False, rid="r")
    cut = response_answer(
        plan.body, plan.events, api="anthropic", done_marker=False, rid="r", delivery="cut"
    )
    assert full.frames is not None and cut.frames is not None
    assert len(full.frames) == len(plan.events) and not full.abort
    assert cut.frames == full.frames[: len(plan.events) // 2] and cut.abort


def test_a_cut_json_body_is_half_the_bytes_under_the_full_length() -> None:
    plan = core().plan("anthropic", anthropic_body(), "key", NOW)
    cut = response_answer(
        plan.body, None, api="anthropic", done_marker=False, rid="r", delivery="cut"
    )
    whole = json.dumps(plan.body).encode()
    assert cut.abort and cut.body == whole[: len(whole) // 2]
    assert ("content-length", str(len(whole))) in cut.headers


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic"])
def test_an_sse_error_ends_the_stream_the_way_each_api_does(api: str) -> None:
    c = core()
    if api == "anthropic":
        body = anthropic_body(stream=True)
    elif api == "openai-chat":
        body = chat_body("gpt-5.4", stream=True)
    else:
        body = {"model": "gpt-5.4", "input": "hi", "stream": True}
    plan = c.plan(api, body, "key", NOW)
    assert plan.events is not None
    answer = response_answer(
        plan.body, plan.events, api=api, done_marker=plan.done_marker, rid="r", delivery="sse-error"
    )
    assert answer.frames is not None and not answer.abort
    half = max(1, len(plan.events) // 2)
    assert len(answer.frames) == half + 1
    last = answer.frames[-1].decode()
    error = json.loads(_sse_data(answer.frames[-1]))
    if api == "openai-chat":
        assert not last.startswith("event:")  # a data line, as Chat streams carry errors
        assert error["error"]["type"] == "server_error"
    elif api == "openai-responses":
        assert last.startswith("event: error\n")
        assert (error["type"], error["sequence_number"]) == ("error", half)
    else:
        assert last.startswith("event: error\n")
        assert error["error"]["type"] == "overloaded_error"
