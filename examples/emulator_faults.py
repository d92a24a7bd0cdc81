"""Injected faults on the emulator, and the SDK's own retries riding through them.

A 529 (overloaded) and a 429 with `retry-after-ms` are injected; the Anthropic SDK retries and
succeeds. A cut stream shows up as a transport error. Everything offline and fast.
"""

from __future__ import annotations

import anthropic
import httpx2
from anthropic.types.message_create_params import MessageCreateParamsBase

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

REQUEST: MessageCreateParamsBase = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hello"}],
}


def main() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        emu.inject("529", retry_after=0.01)
        emu.inject("429", retry_after=0.01)
        client = anthropic.Anthropic(api_key="any-key", base_url=emu.base_url, max_retries=2)
        client.messages.create(**REQUEST)
        print("attempts:", [(r.status, r.fault) for r in emu.requests])

        emu.inject("cut")
        try:
            with client.messages.stream(**REQUEST) as stream:
                for _ in stream:
                    pass
        except (anthropic.APIConnectionError, httpx2.TransportError) as exc:
            print("cut stream ->", type(exc).__name__)


if __name__ == "__main__":
    main()
