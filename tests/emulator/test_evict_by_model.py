"""`Emulator.evict(model=...)` drops that model's cached prefixes only, on every cache: another
model's entries survive, as a provider-side eviction of one model's cache leaves the others'.
Before, the OpenAI-style and DeepSeek-style caches were dropped whole whatever the model.
Counters through the official SDKs over real HTTP."""

from __future__ import annotations

from typing import Any

from prefixlock.cache.units import openai_tokens
from prefixlock.emulator import Emulator
from tests.helpers.chat_fixture import SYSTEM, chat_client
from tests.helpers.sdk import anthropic, openai


def _chat(model: str) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Why did the payroll export stop at midnight?"},
        ],
    }


def _read(client: openai.OpenAI, body: dict[str, Any]) -> int:
    """Tokens the request read from the cache (OpenAI's or DeepSeek's counter)."""
    usage = client.chat.completions.create(**body).usage
    assert usage is not None
    if usage.model_extra and "prompt_cache_hit_tokens" in usage.model_extra:
        return int(usage.model_extra["prompt_cache_hit_tokens"])
    assert usage.prompt_tokens_details is not None
    return usage.prompt_tokens_details.cached_tokens or 0


def _breakpoint_chat(model: str) -> dict[str, Any]:
    """gpt-5.6 and later: an entry at a marked system block."""
    body = _chat(model)
    body["messages"][0] = {
        "role": "system",
        "content": [
            {"type": "text", "text": SYSTEM, "prompt_cache_breakpoint": {"mode": "explicit"}}
        ],
    }
    return body


def test_evicting_one_openai_model_keeps_the_others(emulator: Emulator) -> None:
    client = chat_client(emulator)
    models = ["gpt-5.4", "gpt-5.4-mini", "gpt-5.6-terra", "deepseek-v4-flash"]
    bodies = {m: _breakpoint_chat(m) if m == "gpt-5.6-terra" else _chat(m) for m in models}
    for body in bodies.values():
        client.chat.completions.create(**body)
    warm = {m: _read(client, b) for m, b in bodies.items()}
    assert all(warm.values()), warm

    assert emulator.evict(model="gpt-5.4") > 0
    assert _read(client, bodies["gpt-5.4"]) == 0  # its own entries are gone
    for m in ("gpt-5.4-mini", "gpt-5.6-terra", "deepseek-v4-flash"):
        assert _read(client, bodies[m]) == warm[m], m  # the others' survive

    assert emulator.evict(model="deepseek-v4-flash") > 0
    assert _read(client, bodies["deepseek-v4-flash"]) == 0
    assert emulator.evict(model="gpt-5.6-terra") > 0
    assert _read(client, bodies["gpt-5.6-terra"]) == 0
    assert _read(client, bodies["gpt-5.4-mini"]) == warm["gpt-5.4-mini"]


def test_the_count_is_that_models_entries(emulator: Emulator) -> None:
    client = chat_client(emulator)
    body = _chat("gpt-5.4")
    client.chat.completions.create(**body)
    client.chat.completions.create(**_chat("gpt-5.4-mini"))
    blocks = len(openai_tokens(body)) // 128  # one entry per whole 128-token block
    assert emulator.evict(model="gpt-5.4") == blocks
    assert emulator.evict(model="gpt-5.4") == 0  # nothing of it is left


def test_an_alias_or_provider_prefix_names_the_model(emulator: Emulator) -> None:
    client = chat_client(emulator)
    body = _chat("deepseek-v4-flash")
    client.chat.completions.create(**body)
    assert emulator.evict(model="openai-compat:deepseek-v4-flash") > 0
    assert _read(client, body) == 0


def test_evicting_an_openai_model_keeps_anthropic_entries(emulator: Emulator) -> None:
    claude = anthropic.Anthropic(api_key="test-key", base_url=emulator.base_url, max_retries=0)
    body: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Why did the payroll export stop at midnight?"}],
    }
    claude.messages.create(**body)
    chat_client(emulator).chat.completions.create(**_chat("gpt-5.4"))
    emulator.evict(model="gpt-5.4")
    assert claude.messages.create(**body).usage.cache_read_input_tokens
    emulator.evict(model="claude-opus-4-7")  # another Anthropic model: still kept
    assert claude.messages.create(**body).usage.cache_read_input_tokens
    assert emulator.evict(model="claude-sonnet-4-6") == 1
    assert not claude.messages.create(**body).usage.cache_read_input_tokens
