"""Three Anthropic cache tools on the emulator: count_tokens, a `max_tokens: 0` warm-up, eviction.

`count_tokens` is free and never touches the cache; a request with `max_tokens: 0` and a
breakpoint bills only the write and returns no content, so the first real request reads; and
`emu.evict(...)` drops entries the way a provider does under memory pressure, so the next request
misses although nothing in it changed. Offline, through the official SDK.
"""

from __future__ import annotations

import anthropic
from anthropic.types import MessageParam, TextBlockParam

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

MODEL = "claude-sonnet-4-6"
SYSTEM: list[TextBlockParam] = [
    {
        "type": "text",
        "text": "You review pull requests for the invoice service. " * 160,
        "cache_control": {"type": "ephemeral"},
    }
]
QUESTION: list[MessageParam] = [{"role": "user", "content": "Is the rounding change safe?"}]


def show(label: str, usage: anthropic.types.Usage) -> None:
    print(
        f"{label:24} read {usage.cache_read_input_tokens or 0:>5}  "
        f"written {usage.cache_creation_input_tokens or 0:>5}  uncached {usage.input_tokens:>3}"
        f"  output {usage.output_tokens}"
    )


def main() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        client = anthropic.Anthropic(api_key="any-key", base_url=emu.base_url)
        counted = client.messages.count_tokens(model=MODEL, system=SYSTEM, messages=QUESTION)
        print(
            f"count_tokens            {counted.input_tokens} input tokens (free, cache untouched)"
        )
        warm = client.messages.create(model=MODEL, max_tokens=0, system=SYSTEM, messages=QUESTION)
        assert warm.content == []
        show("warm-up (max_tokens 0)", warm.usage)
        first = client.messages.create(
            model=MODEL, max_tokens=200, system=SYSTEM, messages=QUESTION
        )
        show("first real request", first.usage)
        written = warm.usage.cache_creation_input_tokens or 0
        assert written > 0 and first.usage.cache_read_input_tokens == written
        dropped = emu.evict(model=MODEL)
        print(f"evicted {dropped} entry; nothing in the request changes")
        after = client.messages.create(
            model=MODEL, max_tokens=200, system=SYSTEM, messages=QUESTION
        )
        show("after the eviction", after.usage)
        assert after.usage.cache_read_input_tokens == 0


if __name__ == "__main__":
    main()
