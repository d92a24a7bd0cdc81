"""One writer per session: a second resume of an open session is refused; fork it instead.

A session is written by one process at a time (a lease in the store). While it is open, another
`agent.resume(id)` raises SessionBusyError, which offers two ways on: `wait=SECONDS` for it to
close (bounded; measured on the store's clock, here the emulator's, so nothing sleeps), or
`fork=True`, which continues a copy of its history under a new id. The store path is
PREFIXLOCK_STORE or a file in a temporary directory.
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
from prefixlock.store.database import SessionStore
from prefixlock.store.leases import SessionBusyError


async def main(path: Path) -> None:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 200)
    with Emulator.start(clock=ManualClock()) as emu:

        def make_agent() -> Agent:
            return Agent(
                prefix,
                model="claude-opus-4-7",
                api_key="emulator",
                base_url=emu.base_url,
                clock=emu.clock,
                store=SessionStore(path, clock=emu.clock),
            )

        async with make_agent().session() as s:
            await s.ask("Step 1, please.")
            session_id = s.id
        async with make_agent().resume(session_id) as first:  # the first window
            second = make_agent()
            try:
                second.resume(session_id)
            except SessionBusyError as err:
                print(f"refused: {err}")
            try:
                second.resume(session_id, wait=30.0, on_wait=lambda h: print("waiting..."))
            except SessionBusyError as err:
                print(f"still open after the wait: {err}")
            async with second.resume(session_id, fork=True) as fork:
                await fork.ask("Step 2, in the fork.")
                await first.ask("Step 2, in the original.")
                print(
                    f"original {first.id}: {len(first.transcript)} messages; "
                    f"fork {fork.id}: {len(fork.transcript)} messages"
                )


if __name__ == "__main__":
    env = os.environ.get("PREFIXLOCK_STORE")
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(env) if env else Path(tmp) / "sessions.sqlite"))
