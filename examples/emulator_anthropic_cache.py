"""The local emulator's Anthropic prompt cache, seen through the official SDK.

Writes at a breakpoint, reads on the next identical request, expires after 5 minutes on a
manual clock (no waiting), and a 1h breakpoint survives. Runs offline, no key needed.
"""

from __future__ import annotations

from typing import Literal

import anthropic

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig

SYSTEM = "You are a careful coding assistant for the invoice service. " * 150


def ask(client: anthropic.Anthropic, ttl: Literal["5m", "1h"] = "5m") -> str:
    usage = client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=200,
        system=[
            {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral", "ttl": ttl}}
        ],
        messages=[{"role": "user", "content": "What does this repository do?"}],
    ).usage
    return (
        f"read {usage.cache_read_input_tokens:>5}  written {usage.cache_creation_input_tokens:>5}"
        f"  uncached {usage.input_tokens:>3}"
    )


def main() -> None:
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock) as emu:
        client = anthropic.Anthropic(api_key="any-key", base_url=emu.base_url)
        print("first request      ", ask(client))
        print("same request again ", ask(client))
        clock.advance(301)
        print("after 5m01s        ", ask(client))
        emu.flush()  # start the 1h case from a cold cache
        print("1h breakpoint      ", ask(client, "1h"))
        clock.advance(301)
        print("1h, after 5m01s    ", ask(client, "1h"))


if __name__ == "__main__":
    main()
