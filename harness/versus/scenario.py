"""Scripted sessions with the events real sessions have, as plain data (pure: no I/O).

A scenario is the built-in coding session's user turns (`prefixlock.emulator.BUILTIN_PROMPTS`,
so the emulator's scripted model answers every client the same way), each with what happens
just before it: how long the user was away, which model the user picked, whether an MCP
server reconnected and listed its tools in another order, whether the session was closed and
resumed. Rates and where they come from: README.md beside this module. Every client (prefixlock
and the peers) is driven through exactly these turns; only the client's own cache behaviour
differs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

THINK_SECONDS = 45.0  # a steady turn: the user reads the answer and types the next prompt
BASE_MODEL = "claude-sonnet-4-6"
SWITCH_MODEL = "claude-haiku-4-5"

# Event names, in the order the result tables list them.
STEADY = "steady"
IDLE = "idle-gap"  # the user was away longer than the 5-minute TTL (but under an hour)
LONG_IDLE = "idle-over-1h"  # away past any TTL (lunch, a meeting)
SWITCH = "model-switch"  # one turn on a cheaper model, then back
MCP = "mcp-reconnect"  # the tool list comes back in another order
RESUME = "resume"  # the client process ended; the session is continued next day
EVENTS = (STEADY, IDLE, LONG_IDLE, SWITCH, MCP, RESUME)

# Per user turn (see README.md for the sources). Idle gaps are drawn from the buckets below.
IDLE_RATE = 0.15
LONG_IDLE_RATE = 0.03
SWITCH_RATE = 0.04
MCP_RATE = 0.02
IDLE_BUCKETS = (6 * 60.0, 9 * 60.0, 15 * 60.0, 25 * 60.0, 40 * 60.0)
LONG_IDLE_SECONDS = 90 * 60.0
RESUME_SECONDS = 14 * 3600.0


@dataclass(frozen=True)
class Turn:
    """One user turn and what happens just before it."""

    index: int  # 0-based user turn
    prompt: str
    event: str = STEADY
    gap_before: float = THINK_SECONDS  # seconds since the previous turn ended
    model: str = BASE_MODEL
    tool_order_seed: int | None = None  # MCP reconnect: tools listed in a shuffled order

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "prompt": self.prompt,
            "event": self.event,
            "gap_before": self.gap_before,
            "model": self.model,
            "tool_order_seed": self.tool_order_seed,
        }


@dataclass(frozen=True)
class Scenario:
    name: str
    turns: tuple[Turn, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def events(self) -> dict[str, int]:
        out = {e: 0 for e in EVENTS}
        for t in self.turns:
            out[t.event] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "turns": [t.to_dict() for t in self.turns]}


def scripted(prompts: tuple[str, ...], seed: int, name: str) -> Scenario:
    """A session over `prompts` with events drawn at the documented rates (seeded: the same
    seed is the same session), plus one of each rare event so that every type is measured."""
    rng = random.Random(seed)
    n = len(prompts)
    # One of each rare event at a seeded position (never the first turn, never adjacent).
    slots = rng.sample(range(2, n - 1, 3), 3)
    forced = {slots[0]: SWITCH, slots[1]: MCP, slots[2]: RESUME}
    turns: list[Turn] = []
    for i, prompt in enumerate(prompts):
        event = forced.get(i, STEADY)
        if event == STEADY and i > 0:
            r = rng.random()
            if r < LONG_IDLE_RATE:
                event = LONG_IDLE
            elif r < LONG_IDLE_RATE + IDLE_RATE:
                event = IDLE
            elif r < LONG_IDLE_RATE + IDLE_RATE + SWITCH_RATE:
                event = SWITCH
            elif r < LONG_IDLE_RATE + IDLE_RATE + SWITCH_RATE + MCP_RATE:
                event = MCP
        if i > 0 and turns[-1].event == SWITCH and event == SWITCH:
            event = STEADY  # a switch is one turn on the other model, then back
        gap = {
            IDLE: rng.choice(IDLE_BUCKETS),
            LONG_IDLE: LONG_IDLE_SECONDS,
            RESUME: RESUME_SECONDS,
        }.get(event, THINK_SECONDS)
        turns.append(
            Turn(
                index=i,
                prompt=prompt,
                event=event,
                gap_before=gap,
                model=SWITCH_MODEL if event == SWITCH else BASE_MODEL,
                tool_order_seed=rng.randrange(1 << 30) if event == MCP else None,
            )
        )
    return Scenario(name, tuple(turns))


def suite(prompts: tuple[str, ...], seeds: tuple[int, ...] = (15, 27)) -> tuple[Scenario, ...]:
    """The benchmark's sessions: one per seed over the same prompts."""
    return tuple(scripted(prompts, seed, f"session-{seed}") for seed in seeds)


def shuffled(names: list[str], seed: int) -> list[str]:
    """The tool order an MCP server lists after a reconnect (seeded)."""
    out = list(names)
    random.Random(seed).shuffle(out)
    return out
