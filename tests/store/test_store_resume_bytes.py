"""Resume byte for byte: a long session, quit and resumed within the TTL by a new agent on the
same store file, sends the same bytes it sent live and reads its whole prefix from the
emulator's cache; only the new turn is billed as new input.

The model calls a tool with its arguments in its own key order (`path`, `offset`, `limit`: not
sorted), as real models do; the emulator, like Anthropic, hashes those arguments as written, so
a store that gave them back sorted made the resumed request miss from the first tool call on.
And an effort changed mid-session (`/effort`) comes back: the resumed request is sent with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.agent import Agent
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import CacheBreak, UsageReport
from prefixlock.prefix import FrozenPrefix
from prefixlock.session import Session
from prefixlock.store.database import SessionStore
from prefixlock.tools import tool
from tests.helpers.guardkit import SYSTEM, advance

# Every user turn: a tool call whose arguments are not in sorted order, then an answer.
SCRIPT = Script(
    rules=[
        Rule(
            match=".",
            steps=[
                Step(
                    text="Reading it.",
                    tool="read_file",
                    input={"path": "src/app.py", "offset": 10, "limit": 40},
                ),
                Step(text="It returns early when the list is empty."),
            ],
        )
    ]
)


@tool
def read_file(path: str, offset: int = 1, limit: int = 2000) -> str:
    """Read a UTF-8 file from the workspace."""
    return "\n".join(f"{path}:{offset + i}: x = {i}" for i in range(min(limit, 20)))


def _agent(emu: Emulator, db: Path) -> Agent:
    return Agent(
        FrozenPrefix(system=SYSTEM, tools=[read_file]),
        model="claude-sonnet-4-6",
        api_key="test-key",
        base_url=emu.base_url,
        clock=emu.clock,
        store=SessionStore(db),
    )


async def _reports(s: Session, text: str) -> tuple[list[UsageReport], list[CacheBreak]]:
    events = [e async for e in s.send(text)]
    return (
        [e for e in events if isinstance(e, UsageReport)],
        [e for e in events if isinstance(e, CacheBreak)],
    )


@pytest.mark.parametrize("turns", [pytest.param(200, marks=pytest.mark.slow), 30])
async def test_a_long_session_resumed_reads_its_whole_prefix(tmp_path: Path, turns: int) -> None:
    db = tmp_path / "sessions.sqlite"
    emu = Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=SCRIPT)
    with emu:
        async with _agent(emu, db).session("long") as s:
            for i in range(1, turns + 1):
                if i == turns // 2:
                    s.change_effort(effort="low", quote=s.quote_effort(effort="low"))
                await _reports(s, f"Turn {i}: what does f{i} do?")
                advance(emu, 2)
            live_last = emu.requests[-1]
            assert live_last.body["output_config"] == {"effort": "low"}
        advance(emu, 100)  # quit, and come back 102 s after the last request (within the TTL)
        n = len(emu.requests)
        async with _agent(emu, db).resume("long") as again:
            assert again.resume_verified is True  # turn N's request rebuilt byte for byte
            assert again.state.settings.effort == "low"
            reports, breaks = await _reports(again, "One more: and f1?")
        first = emu.requests[n]
    # The tool calls went back as the model wrote them, and with the effort in force.
    calls = [
        b["input"]
        for m in first.body["messages"]
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    assert len(calls) == turns and all(list(c) == ["path", "offset", "limit"] for c in calls)
    assert first.body["output_config"] == {"effort": "low"}
    usage = reports[0].usage
    # Everything up to the previous turn's end is read; what is new is this turn's message
    # (and the previous reply, written at this request's breakpoint), nothing of the history.
    live = live_last.usage
    assert live is not None
    live_total = live["input_tokens"] + live["cache_read_input_tokens"]
    live_total += live["cache_creation_input_tokens"]
    assert usage.cache_read == live_total
    assert usage.uncached_input + usage.cache_write < 300, usage
    assert reports[0].predicted_read == usage.cache_read  # the guard knew, and blamed no one
    assert breaks == []
