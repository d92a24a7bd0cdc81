"""List, show and export stored sessions: `prefixlock sessions list | show ID | export ID --jsonl`.

Runs a short session into a store, then calls the same CLI a user would, and reads the JSONL
trace it exports (one request a line: the exact wire body, usage, cost), the format the linter
and the simulator read.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.cli.main import main as prefixlock
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.store.database import SessionStore


async def record(path: Path) -> str:
    prefix = FrozenPrefix(system="You are a careful coding assistant. " * 400)
    store = SessionStore(path)
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            prefix,
            model="claude-sonnet-4-6",
            api_key="emulator",
            base_url=emu.base_url,
            clock=emu.clock,
            store=store,
        )
        async with agent.session("example-session") as s:
            for i in range(3):
                await s.ask(f"Step {i}.")
    store.close()
    return "example-session"


def run(path: Path, tmp: Path) -> None:
    sid = asyncio.run(record(path))
    prefixlock(["sessions", "--store", str(path), "list"])
    prefixlock(["sessions", "--store", str(path), "show", sid])
    trace = tmp / "trace.jsonl"
    prefixlock(["sessions", "--store", str(path), "export", sid, "--jsonl", "-o", str(trace)])
    for line in trace.read_text().splitlines():
        r = json.loads(line)
        print(
            r["seq"],
            r["model"],
            r["usage"]["cache_read"],
            "read,",
            len(r["body"]["messages"]),
            "messages, $" + r["cost"],
        )
    code = prefixlock(["sessions", "--store", str(path), "show", "no-such-session"])
    print("unknown id -> exit code", code)


if __name__ == "__main__":
    env = os.environ.get("PREFIXLOCK_STORE")
    with tempfile.TemporaryDirectory() as tmp:
        run(Path(env) if env else Path(tmp) / "sessions.sqlite", Path(tmp))
