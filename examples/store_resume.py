"""Store a session in SQLite and resume it: the resumed session's first request reads the cache.

The store keeps every request's exact wire body; resuming rebuilds the next request
byte-identical to what the original session would have sent, so the provider serves it from the
cache. (The tests do the same across two processes.) The store path is PREFIXLOCK_STORE or a
file in a temporary directory.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import UsageReport
from prefixlock.store.database import SessionStore


async def main(path: Path) -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 500)
    with Emulator.start(clock=ManualClock()) as emu:

        def make_agent() -> Agent:
            return Agent(
                prefix,
                model="claude-opus-4-7",
                api_key="emulator",
                base_url=emu.base_url,
                clock=emu.clock,
                store=SessionStore(path),
            )

        async with make_agent().session() as s:
            for i in range(4):
                await s.ask(f"Step {i} of the task, please.")
            session_id = s.id
        print(f"stored session {session_id} after {s.turn} turns in {path}")

        # Later (in another process, typically): a new agent, the same store.
        async with make_agent().resume(session_id) as again:
            async for e in again.send("Step 4, please."):
                if isinstance(e, UsageReport):
                    print(
                        f"resumed turn {again.turn}: read {e.usage.cache_read} cached tokens "
                        f"of {e.usage.input_total} (predicted {e.predicted_read})"
                    )
                    break


if __name__ == "__main__":
    env = os.environ.get("PREFIXLOCK_STORE")
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(env) if env else Path(tmp) / "sessions.sqlite"))
