"""Images and documents in a user turn: `s.send(["What is wrong here?", Image.from_path(p)])`.

The picture and the PDF are sent in each provider's own shape (Anthropic `image`/`document`
blocks, OpenAI `image_url`/`file` or `input_image`/`input_file`), counted by the provider's
documented rule (a 1000x800 screenshot is ~1,067 tokens on Anthropic, not the ~3,000 its base64
would read as), and cached like text: the next turn reads them back from the cache. A session
resumed from the store sends the same bytes, the store keeping each picture once. Offline, on
the emulator; the sample files are made here (prefixlock.testing)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from prefixlock import (
    Agent,
    Document,
    FrozenPrefix,
    Image,
    SessionStore,
    UsageReport,
    UserPart,
)
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.testing import sample_pdf, sample_png

SYSTEM = "You review screenshots and invoices and answer in one line.\n" * 150


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp, "screenshot.png")
        shot.write_bytes(sample_png(1000, 800))
        invoice = Path(tmp, "invoice.pdf")
        invoice.write_bytes(sample_pdf(["Invoice INV-7", "Total 123.45 EUR"]))
        store = SessionStore(Path(tmp, "sessions.sqlite"))
        with Emulator.start(clock=ManualClock()) as emu:
            for model in ("claude-sonnet-4-6", "openai-responses:gpt-5"):
                agent = Agent(
                    FrozenPrefix(system=SYSTEM),
                    model=model,
                    base_url=emu.base_url,
                    api_key="test-key",
                    clock=emu.clock,
                    store=store,
                )
                turns: list[str | list[UserPart]] = [
                    ["What is wrong in this screenshot?", Image.from_path(shot)],
                    ["And what does this invoice total?", Document.from_path(invoice)],
                    "Thanks.",
                ]
                async with agent.session() as s:
                    for turn in turns:
                        events = [e async for e in s.send(turn)]
                        u = [e for e in events if isinstance(e, UsageReport)][-1].usage
                        print(
                            f"{model:24} prompt {u.input_total:5} tokens, "
                            f"{u.cache_read:5} read from the cache"
                        )
                    sid = s.id
                async with agent.resume(sid) as again:  # same bytes: the cache stays warm
                    events = [e async for e in again.send("One more question.")]
                    u = [e for e in events if isinstance(e, UsageReport)][-1].usage
                    print(f"{model:24} resumed: {u.cache_read} of {u.input_total} read")
        print(
            f"store: {store.stats()['blob_bytes']:,} blob bytes for "
            f"{shot.stat().st_size + invoice.stat().st_size:,} bytes of files, 2 sessions"
        )
        store.close()


if __name__ == "__main__":
    asyncio.run(main())
