"""Emulator throughput: requests per second through the official SDK, for a 25K-token coding
session request versus a tiny request (the baseline: HTTP + SDK overhead only), in one run.

Run: `.venv/bin/python -m pytest tests/benchmarks/bench_emulator.py -s` or as a script.
"""

from __future__ import annotations

import time
from typing import Any

import anthropic

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.emulator.workspace import TOOL_SPECS, system_prompt

N = 40


def _rate(client: anthropic.Anthropic, body: dict[str, Any]) -> float:
    client.messages.create(**body)  # warm the connection and the cache
    start = time.perf_counter()
    for _ in range(N):
        client.messages.create(**body)
    return N / (time.perf_counter() - start)


def test_bench_emulator() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        tiny = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 50,
            "messages": [{"role": "user", "content": "hi"}],
        }
        big = {
            **tiny,
            "system": [
                {"type": "text", "text": system_prompt(), "cache_control": {"type": "ephemeral"}}
            ],
            "tools": [t.to_dict() for t in TOOL_SPECS],
        }
        base = _rate(client, tiny)
        heavy = _rate(client, big)
    print(f"\nemulator: tiny request {base:7.1f} req/s (baseline)")
    print(f"emulator: 22K-token request {heavy:7.1f} req/s ({heavy / base:.2f}x of baseline)")
    assert heavy > 0 and base > 0


if __name__ == "__main__":
    test_bench_emulator()
