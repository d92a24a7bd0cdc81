"""Shared set-up of the guard tests: a scripted coding session on the emulator."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from prefixlock.agent import Agent
from prefixlock.billing.ledger import LedgerRow
from prefixlock.billing.prices import PriceTable
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import Event
from prefixlock.guard.compaction import turn_growth
from prefixlock.prefix import FrozenPrefix
from prefixlock.session import Session
from prefixlock.settings import Settings
from prefixlock.tools import tool

# Every user turn: the model reads a file (one tool call), then answers.
SCRIPT = Script(
    rules=[
        Rule(
            match=".",
            steps=[
                Step(text="Let me read the file.", tool="read_file", input={"path": "src/app.py"}),
                Step(text="I read it; the function returns early when the list is empty."),
            ],
        )
    ]
)


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace."""
    seed = hashlib.sha256(path.encode()).hexdigest()
    return f"# {path}\n" + "\n".join(f"def f_{seed[i]}{i}(x): return x + {i}" for i in range(40))


@tool
def grep(pattern: str, path: str) -> str:
    """Search files for a pattern."""
    return f"no match for {pattern} in {path}"


SYSTEM = " ".join(
    f"Rule {i}: keep answers short, cite files, never edit generated code." for i in range(300)
)


def prefix(system: str = SYSTEM, tools: Sequence[Any] = (read_file,)) -> FrozenPrefix:
    return FrozenPrefix(system=system, tools=list(tools))


def start_emulator(**config: Any) -> Emulator:
    return Emulator.start(config=EmulatorConfig(**config), clock=ManualClock(), script=SCRIPT)


def agent(
    emu: Emulator, model: str = "claude-opus-4-7", pfx: FrozenPrefix | None = None, **kw: Any
) -> Agent:
    return Agent(
        pfx or prefix(),
        model=model,
        api_key="test-key",
        base_url=emu.base_url,
        clock=emu.clock,
        **kw,
    )


async def turn(s: Session, text: str) -> list[Event]:
    return [e async for e in s.send(text)]


async def run_turns(emu: Emulator, s: Session, n: int, start: int = 1, step: float = 20.0) -> None:
    for i in range(start, start + n):
        await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
        advance(emu, step)


async def first_turn_sizes(model: str, text: str) -> tuple[int, int, int]:
    """One turn on a fresh emulator: its last request's input tokens, its reply's tokens and
    the model's context window (what a compaction threshold is measured against)."""
    with start_emulator() as emu:
        a = agent(emu, model=model)
        window = a.prices.require(model).context_window
        assert window is not None
        async with a.session() as s:
            await turn(s, text)
            return s.requests[-1].input_tokens, s.transcript.messages[-1].tokens, window


async def compact_at_turns(
    model: str, turns: float, pfx: FrozenPrefix | None = None, n: int = 3
) -> Settings:
    """Settings that compact at `turns` times the context `n` 20-s look-around turns leave (the
    context the next turn carries, and what a turn adds: the context its requests are expected
    to reach, `compaction.compaction_due`), measured on an emulator of its own."""
    with start_emulator() as probe:
        a = agent(probe, model=model, pfx=pfx)
        async with a.session() as s:
            for i in range(n):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(probe, 20.0)
            context = s.requests[-1].input_tokens + s.transcript.messages[-1].tokens
            context += turn_growth(s.transcript.messages)
    window = PriceTable.default().require(model).context_window
    assert window is not None
    return Settings(compact_at=context * turns / window)


async def idle(s: Session, seconds: float) -> None:
    """The user is away `seconds`: the clock runs and the session's keep-alive ticks (pings,
    a turn end's 1-hour write, prefix reads) go when they are due, as a chat's background
    keep-alive would send them."""
    clock = s.state.clock
    assert isinstance(clock, ManualClock)
    end = clock.now() + seconds
    while clock.now() < end:
        due = s.pings.next_ping_at()
        if due is None or due >= end:
            clock.advance(end - clock.now())
            break
        clock.advance(max(due - clock.now(), 0.0) + 0.001)
        await s.keepalive_tick()


def advance(emu: Emulator, seconds: float) -> None:
    """Move the emulator's (and the sessions') ManualClock forward."""
    clock = emu.clock
    assert isinstance(clock, ManualClock)
    clock.advance(seconds)


def of(events: Sequence[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def sent(emu: Emulator) -> int:
    """Requests the emulator has recorded (it records each one as it arrives, so every request
    whose reply the client has read is counted), once none is still being answered."""
    import time

    deadline = time.monotonic() + 10
    while emu.in_flight and time.monotonic() < deadline:
        time.sleep(0.005)  # a reply still being written on the emulator's thread
    return len(emu.requests)


async def gap_session(
    model: str, threshold_turns: float, policy: Any, pfx: FrozenPrefix | None = None
) -> list[LedgerRow]:
    """The ledger rows of three 20-s turns, a 10-minute gap and a fourth turn, with the
    compaction threshold at `threshold_turns` times the context the fourth turn would carry."""
    settings = await compact_at_turns(model, threshold_turns, pfx)
    with start_emulator() as emu:
        a = agent(emu, model=model, pfx=pfx, settings=settings, policy=policy)
        async with a.session() as s:
            for i in range(3):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20.0)
            await idle(s, 600.0)
            await turn(s, "Turn 3: look at src/app.py and tell me what f3 does.")
            return list(s.ledger.rows)
