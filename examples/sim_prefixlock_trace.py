"""Replay prefixlock's own traces through the simulator: a recorded session, cut into KV blocks.

Records two short sessions on the emulator into a session store (one keeps its system prompt
stable, the other writes the time into it on every turn), exports them as JSONL traces (the
format `prefixlock sessions export ID --jsonl` writes), and reads them with `read_trace`: each
wire body is tokenized the way the provider's cache sees it and cut into chained blocks of
`block_size` tokens. The simulated server cache then shows what the client design is worth.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.tracefile import read_trace
from prefixlock.store.database import SessionStore

SYSTEM = "You are a careful coding assistant. Read before you edit. " * 120


def agent(emu: Emulator, store: SessionStore, system: str) -> Agent:
    return Agent(
        FrozenPrefix(system=system),
        model="claude-sonnet-4-6",
        api_key="emulator",
        base_url=emu.base_url,
        clock=emu.clock,
        store=store,
    )


async def record(store: SessionStore) -> None:
    clock = ManualClock()
    with Emulator.start(clock=clock) as emu:
        async with agent(emu, store, SYSTEM).session("stable") as s:
            for turn in range(6):
                await s.ask(f"Step {turn}: look at module {turn}.")
                clock.advance(30)
        # A session is bound to its prefix: a client that stamps the time into its system
        # prompt starts a new prefix (here: a new session) on every turn.
        for turn in range(6):
            stamped = f"Now: 2026-12-01T10:{turn:02d}:00Z. {SYSTEM}"
            async with agent(emu, store, stamped).session(f"stamped-{turn}") as s:
                await s.ask(f"Step {turn}: look at module {turn}.")
            clock.advance(30)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "sessions.sqlite")
        asyncio.run(record(store))
        for name in ("stable", "stamped"):
            path = Path(tmp) / f"{name}.jsonl"
            with path.open("w", encoding="utf-8") as out:
                ids = [name] if name == "stable" else [f"stamped-{t}" for t in range(6)]
                for sid in ids:
                    store.export_jsonl(sid, out)
            trace = read_trace(path, block_size=64)
            r = simulate(trace, SimConfig(warmup=0.0, price="claude-sonnet-4-6"))
            print(
                f"{name:>8}: {trace.requests} requests, {trace.references:,} blocks of 64 tokens; "
                f"server cache hit {r.hit_rate_tokens:.1%}, ${r.dollars:.4f}"
            )
        store.close()


if __name__ == "__main__":
    main()
