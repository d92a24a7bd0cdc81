"""A short session with one of each event, laid out by hand (the suite's own sessions draw
their events, so a given seed need not have every one): 12 built-in turns, a wide turn and a
subagents turn, a one-turn switch and the turn back, a tool server that stops, a resume the
next day and a 15-minute gap on the last turn."""

from __future__ import annotations

from prefixlock.emulator import BUILTIN_PROMPTS
from prefixlock.emulator.workspace import TOOL_SPECS
from prefixlock.versus.scenario import (
    BASE_MODEL,
    IDLE,
    MCP,
    RESUME,
    RESUME_SECONDS,
    SECOND_SERVER_TOOLS,
    STEADY,
    SUBAGENTS,
    SUBAGENTS_PROMPT,
    SWITCH,
    SWITCH_MODEL,
    WIDE,
    WIDE_PROMPT,
    Turn,
)

IDLE_TURN = 13
SERVER_STOPPED = tuple(t.name for t in TOOL_SPECS if t.name not in SECOND_SERVER_TOOLS)


def short_turns() -> tuple[Turn, ...]:
    seen: set[str] = set()
    prompts = []
    for p in BUILTIN_PROMPTS[:12]:
        p = f"{p.rstrip('.')} again." if p in seen else p
        seen.add(p)
        prompts.append(p)
    # (prompt, event, gap, model, tools, built-in turn)
    layout: list[tuple[str, str, float, str, tuple[str, ...] | None, int | None]] = [
        (prompts[0], STEADY, 0.0, BASE_MODEL, None, 0),
        (prompts[1], STEADY, 45.0, BASE_MODEL, None, 1),
        (prompts[2], STEADY, 45.0, BASE_MODEL, None, 2),
        (WIDE_PROMPT, WIDE, 45.0, BASE_MODEL, None, None),
        (prompts[3], SWITCH, 45.0, SWITCH_MODEL, None, 3),
        (prompts[4], SWITCH, 45.0, BASE_MODEL, None, 4),
        (prompts[5], MCP, 45.0, BASE_MODEL, SERVER_STOPPED, 5),
        (prompts[6], STEADY, 45.0, BASE_MODEL, None, 6),
        (SUBAGENTS_PROMPT, SUBAGENTS, 45.0, BASE_MODEL, None, None),
        (prompts[7], RESUME, RESUME_SECONDS, BASE_MODEL, None, 7),
        (prompts[8], STEADY, 45.0, BASE_MODEL, None, 8),
        (prompts[9], STEADY, 45.0, BASE_MODEL, None, 9),
        (prompts[10], STEADY, 45.0, BASE_MODEL, None, 10),
        (prompts[11], IDLE, 900.0, BASE_MODEL, None, 11),
    ]
    return tuple(
        Turn(i, p, e, gap, model, tools, script_turn)
        for i, (p, e, gap, model, tools, script_turn) in enumerate(layout)
    )
