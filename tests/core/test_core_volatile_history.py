"""Where `send(..., volatile=[...])` puts its text, per cache model, measured on the emulator.

DeepSeek stores whole prompts (a unit at the end of each request's input and output): text
sent on the wire only and dropped next turn ends every stored unit, so nothing past the fixed
prefix would ever be read again (measured before this rule: reads flat at 4,114, uncached
218 -> 571 per request). There the text stays in the user message and each request is a pure
append. Anthropic and OpenAI keep it off the transcript (their caches lose nothing by that).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from prefixlock import FrozenPrefix
from prefixlock.agent import Agent
from prefixlock.canonical import canonical_bytes
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.store.database import SessionStore
from prefixlock.tools import tool
from prefixlock.transcript import Message


@tool
def list_files(path: str) -> str:
    """List the files under a folder."""
    return "src/app.py\nsrc/util.py\ntests/test_app.py\n"


PREFIX = FrozenPrefix(system="You are a careful coding assistant. " * 400, tools=[list_files])


def _stamp(i: int) -> list[str]:
    return [f"Now: 2026-12-01 10:0{i}:00"]


async def _run(
    emu: Emulator, model: str, volatile: bool, store: SessionStore | None = None
) -> Agent:
    agent = Agent(
        PREFIX, model=model, api_key="test-key", base_url=emu.base_url, clock=emu.clock, store=store
    )
    async with agent.session("s") as s:
        for i in range(4):
            assert isinstance(emu.clock, ManualClock)
            emu.clock.advance(30)
            await s.ask(f"Step {i}.", volatile=_stamp(i) if volatile else [])
        rows = s.ledger.rows
        assert [r.predicted_read for r in rows] == [r.usage.cache_read for r in rows]
    return agent


@pytest.mark.parametrize(
    ("volatile", "expected"),
    [
        # (read, uncached) per request; the script calls a tool in the first two turns.
        (True, [(0, 4180), (4286, 62), (4452, 64), (4560, 66), (4669, 66), (4779, 66)]),
        (False, [(0, 4134), (4239, 61), (4401, 61), (4506, 20), (4569, 20), (4633, 20)]),
    ],
)
async def test_deepseek_reads_grow_with_volatile_text(
    volatile: bool, expected: list[tuple[int, int]]
) -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            PREFIX,
            model="deepseek-v4-flash",
            api_key="test-key",
            base_url=emu.base_url,
            clock=emu.clock,
        )
        async with agent.session("s") as s:
            for i in range(4):
                assert isinstance(emu.clock, ManualClock)
                emu.clock.advance(30)
                await s.ask(f"Step {i}.", volatile=_stamp(i) if volatile else [])
            seen = [(r.usage.cache_read, r.usage.uncached_input) for r in s.ledger.rows]
            assert seen == expected
            # The guard predicted every read the emulator reported.
            assert [r.predicted_read for r in s.ledger.rows] == [e[0] for e in expected]
            bodies = [r.body for r in emu.requests]
            users = [m for m in s.transcript if m.role == "user" and m.text.startswith("Step")]
    for before, after in itertools.pairwise(bodies):  # pure appends, volatile text included
        assert after["messages"][: len(before["messages"])] == before["messages"]
    if volatile:
        # In the transcript as sent: the user's text, then the volatile text, one message.
        assert [m.text for m in users] == [f"Step {i}.{_stamp(i)[0]}" for i in range(4)]
        parts = [{"type": "text", "text": "Step 0."}, {"type": "text", "text": _stamp(0)[0]}]
        assert bodies[0]["messages"][-1] == {"role": "user", "content": parts}


async def test_deepseek_resume_sends_the_same_bytes(tmp_path: Path) -> None:
    """The volatile text is stored with the turn, so a resumed session rebuilds the history
    byte for byte and its first request reads everything the last one stored: its input
    (4,779 + 66) and its reply. The resumed guard predicts that read too (it is told the
    stored reply, as the live guard is)."""
    store = SessionStore(tmp_path / "store.sqlite")
    try:
        with Emulator.start(clock=ManualClock()) as emu:
            agent = await _run(emu, "deepseek-v4-flash", True, store)
            async with agent.resume("s") as r:
                expected = r._build_next_request([Message.user("Step 4.")])
                await r.ask("Step 4.")
                row = r.ledger.rows[-1]
            first = emu.requests[-1]
    finally:
        store.close()
    assert canonical_bytes(first.body) == canonical_bytes(expected.body)
    assert json.dumps(first.body).count("Now: 2026-12-01") == 4
    assert row.usage.cache_read == row.predicted_read == 4892


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5.4", "openai-responses:gpt-5.4"])
async def test_breakpoint_and_block_caches_keep_volatile_text_off_the_transcript(
    model: str,
) -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            PREFIX, model=model, api_key="test-key", base_url=emu.base_url, clock=emu.clock
        )
        async with agent.session("s") as s:
            await s.ask("Step 0.", volatile=_stamp(0))
            await s.ask("Step 1.")
            assert all("Now:" not in m.text for m in s.transcript)
        last = json.dumps(emu.requests[-1].body)
        assert "Now:" not in last and "Now:" in json.dumps(emu.requests[0].body)
