"""A long-running emulator (`prefixlock serve`) keeps what a provider keeps, no more: the prompt
caches hold the entries still within their TTL (an expired one reads as absent and is dropped),
and the router's per-prefix rate windows only the prefixes seen in the last minute. Before,
Anthropic's cache listed every key ever written (per API key, for `evict`), expired entries of
an uncapped cache stayed stored, and the OpenAI router kept a window for every prefix it had
ever routed: all grew with every new prefix or API key, for as long as the server ran."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest

from prefixlock.cache.blocks import BlockCache
from prefixlock.cache.units import Unit
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.emulator.config import AnthropicCacheConfig, OpenAICacheConfig
from prefixlock.emulator.promptcache import (
    AnthropicPromptCache,
    DeepSeekPromptCache,
    OpenAIPromptCache,
)
from tests.helpers.chat_fixture import SYSTEM, chat_client
from tests.helpers.sdk import anthropic


def _containers(obj: object, depth: int = 2) -> Iterator[tuple[str, int]]:
    """(name, size) of every collection an object holds, and those of the BlockCaches it
    holds (the stores themselves count their entries)."""
    for name, value in vars(obj).items():
        if isinstance(value, (dict, list, set, deque)):
            yield name, len(value)
        stores = value if isinstance(value, list) else [value]
        for store in stores:
            if isinstance(store, BlockCache) and depth:
                yield f"{name}.entries", len(store)
                yield from ((f"{name}.{n}", s) for n, s in _containers(store, depth - 1))


def _largest(obj: object) -> int:
    return max(size for _, size in _containers(obj))


def _unit(i: int, tokens: int = 2048) -> Unit:
    return Unit("system", 0, f"prefix-{i}", tokens, tokens, "5m")


@pytest.mark.parametrize("policy", ["lru", "lfu"])
def test_anthropic_cache_over_many_keys_and_prefixes_stays_within_its_ttl(policy: str) -> None:
    cache = AnthropicPromptCache(AnthropicCacheConfig.model_validate({"policy": policy}))
    n = 6000
    for i in range(n):  # one request a second, each on its own API key and prefix
        now = float(i)
        units = [_unit(i)]
        out = cache.lookup(f"key-{i}", "claude-sonnet-4-6", units, 1024, now)
        cache.commit(out.pending, now)
        cache.lookup(f"key-{i}", "claude-sonnet-4-6", units, 1024, now)  # a read refreshes
    live = sum(len(m) for m in cache.machines)
    assert live <= 301  # the entries written in the last 5 minutes
    assert _largest(cache) < n // 2, dict(_containers(cache))


def test_openai_cache_and_router_keep_only_the_live_window() -> None:
    cache = OpenAIPromptCache(OpenAICacheConfig())
    n, ttl = 2400, 600.0
    for i in range(n):  # a new 1,280-token prompt (10 blocks) every second
        now = float(i)
        tokens = [i, *range(1279)]
        out = cache.lookup("org", "gpt-5.4", tokens, f"session-{i}", 1024, ttl, now)
        cache.commit(out.pending, now)
    live = sum(len(m) for m in cache.machines)
    assert live <= 601 * 10  # the prompts of the last 10 minutes
    sizes = dict(_containers(cache))
    assert sizes["_recent"] <= 61, sizes  # prefixes routed in the last minute
    assert _largest(cache) < n * 10 // 2, sizes


def test_deepseek_cache_keeps_only_unexpired_units() -> None:
    cache = DeepSeekPromptCache()
    n = 3000
    for i in range(n):
        now = float(i) * 10
        out = cache.lookup("user", "deepseek-v4-flash", [_unit(i)], 64, 3600.0, now)
        cache.commit(out.pending, now)
    assert len(cache.store) <= 361  # one an hour's worth of requests, 10 s apart
    assert _largest(cache) < n // 2, dict(_containers(cache))


def test_served_emulator_drops_expired_entries_of_every_api_key() -> None:
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock) as emu:
        body: dict[str, Any] = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 64,
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "Why did the export stop?"}],
        }
        for i in range(12):
            client = anthropic.Anthropic(api_key=f"key-{i}", base_url=emu.base_url, max_retries=0)
            client.messages.create(**body)
            chat_client(emu).chat.completions.create(
                model="gpt-5.4",
                messages=[
                    {"role": "system", "content": f"{i} {SYSTEM}"},
                    {"role": "user", "content": "Why did the export stop?"},
                ],
            )
        assert sum(len(m) for m in emu.anthropic_cache.machines) == 12
        clock.advance(601.0)  # past every entry's TTL (5 minutes, OpenAI's 10)
        last = anthropic.Anthropic(api_key="key-0", base_url=emu.base_url, max_retries=0)
        assert last.messages.create(**body).usage.cache_read_input_tokens == 0
        assert sum(len(m) for m in emu.anthropic_cache.machines) == 1  # only the new write
        assert _largest(emu.anthropic_cache) <= 2
        assert sum(len(m) for m in emu.openai_cache.machines) == 0
        assert dict(_containers(emu.openai_cache))["_recent"] == 0
        assert last.messages.create(**body).usage.cache_read_input_tokens  # it still caches
