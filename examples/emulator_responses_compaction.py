"""Server-side compaction on the Responses API, on the emulator: what it costs the cache.

With `context_management=[{"type": "compaction", "compact_threshold": N}]`, once the rendered
prompt passes N tokens the response carries an opaque `compaction` item, and the conversation
goes on from that item (OpenAI's compaction guide). The prompt shrinks, and so does what the
cache can read: the turn after a compaction reads only the instructions, not the conversation
before it. Offline, through the official `openai` SDK, chained by `previous_response_id`.
"""

from __future__ import annotations

from typing import Any

import openai

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

MODEL = "gpt-5.4"
INSTRUCTIONS = "You are the release engineer of the invoice service. Be brief. " * 120
COMPACT: Any = [{"type": "compaction", "compact_threshold": 6000}]


def main() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        client = openai.OpenAI(api_key="any-key", base_url=emu.openai_base_url)
        previous: str | None = None
        for turn in range(8):
            log = f"Turn {turn}: build log of step {turn}, every line of it. " * 60
            response = client.responses.create(
                model=MODEL,
                instructions=INSTRUCTIONS,
                input=log,
                previous_response_id=previous,
                context_management=COMPACT,
            )
            usage = response.usage
            assert usage is not None
            kinds = [item.type for item in response.output]
            note = "  <- compacted" if "compaction" in kinds else ""
            print(
                f"turn {turn}  input {usage.input_tokens:>5}  "
                f"cached {usage.input_tokens_details.cached_tokens:>5}  "
                f"output items {', '.join(kinds)}{note}"
            )
            previous = response.id


if __name__ == "__main__":
    main()
