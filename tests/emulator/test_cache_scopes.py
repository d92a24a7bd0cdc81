"""Caches are scoped as the providers scope them: per organization (OpenAI), per user (DeepSeek),
per workspace key (Anthropic). Through the official SDKs: a second key reads nothing the first
one wrote, and evicting one key's entries leaves the other's."""

from __future__ import annotations

from typing import Any

from prefixlock.emulator import Emulator
from tests.helpers.sdk import openai

SYSTEM = "You are a careful coding assistant. Follow the repository conventions. " * 120


def _cached(client: openai.OpenAI, model: str, **extra: Any) -> tuple[int, int]:
    """(cached tokens, prompt tokens) of one Chat Completions request."""
    r = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Where is the retry policy defined?"},
        ],
        **extra,
    )
    u = r.usage
    assert u is not None
    if u.prompt_tokens_details is not None:
        return u.prompt_tokens_details.cached_tokens or 0, u.prompt_tokens
    assert u.model_extra is not None  # DeepSeek's own counters
    return int(u.model_extra["prompt_cache_hit_tokens"]), u.prompt_tokens


def _client(emu: Emulator, key: str) -> openai.OpenAI:
    return openai.OpenAI(api_key=key, base_url=emu.openai_base_url, max_retries=0)


def test_a_second_openai_key_reads_nothing_the_first_wrote(emulator: Emulator) -> None:
    first, second = _client(emulator, "org-one"), _client(emulator, "org-two")
    for model in ("gpt-5.4", "deepseek-v4-flash"):
        assert _cached(first, model, prompt_cache_key="s")[0] == 0
        hit, prompt = _cached(first, model, prompt_cache_key="s")
        assert hit > 1024
        assert _cached(second, model, prompt_cache_key="s") == (0, prompt)
        # The second key's own write is its own: it reads it back next time.
        assert _cached(second, model, prompt_cache_key="s")[0] == hit


def test_evicting_one_key_leaves_the_other(emulator: Emulator) -> None:
    first, second = _client(emulator, "org-one"), _client(emulator, "org-two")
    for client in (first, second):
        _cached(client, "gpt-5.4")
    assert emulator.evict(api_key="org-one") > 0
    assert _cached(first, "gpt-5.4")[0] == 0
    assert _cached(second, "gpt-5.4")[0] > 1024
