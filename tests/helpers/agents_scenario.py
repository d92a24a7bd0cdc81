"""A long main session on the emulator that hands three side tasks to subagents (or not).

Shared by the tests in this folder: a workspace with a few sizeable files, a parent prefix
(a long system prompt, the read-only workspace tools and the `delegate` tool), and a script in
which turns 8, 12 and 16 carry a marker that decides how the side task runs:
  - `mode="delegate"`: the parent calls `delegate`; the explorer subagent greps and reads,
  - `mode="self"`: the parent makes the same tool calls itself,
  - `mode="none"`: the parent just answers (the session without the side tasks).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from prefixlock.agent import Agent
from prefixlock.agents import SubagentDelegator
from prefixlock.clock import ManualClock
from prefixlock.delegation import SubagentSection
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import Event
from prefixlock.prefix import FrozenPrefix
from prefixlock.wire import WireRequest
from tests.helpers.marks import strip_cache_control

PARENT_MODEL = "claude-opus-4-7"
KEY = "test-key-parent-0123456789"
SPAWN_TURNS = (8, 12, 16)
TURNS = 25
TASKS = {
    8: (
        "A",
        "TASK-A: find every TODO under src and say where each one is.",
        [("grep", {"pattern": "TODO", "path": "src"}), ("read_file", {"path": "src/billing.py"})],
        "Two TODOs: src/billing.py:3 (rounding) and src/billing.py:40 (currency).",
    ),
    12: (
        "B",
        "TASK-B: explain how the ledger writes its records.",
        [("glob", {"pattern": "**/*.py"}), ("read_file", {"path": "src/ledger_io.py"})],
        "src/ledger_io.py writes one JSON line per record, fsyncs, then renames.",
    ),
    16: (
        "C",
        "TASK-C: summarize the architecture notes.",
        [("read_file", {"path": "docs/ARCH.md"})],
        "docs/ARCH.md: three layers (io, billing, api); billing is pure.",
    ),
}


def _filler(topic: str, lines: int) -> str:
    return "\n".join(
        f"# {topic} line {i}: value_{i} = compute_{topic}(record_{i}, rate={i % 7}) "
        f"  # keeps the {topic} state for entry {i}"
        for i in range(lines)
    )


def make_workspace(root: Path) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "docs").mkdir(exist_ok=True)
    (root / "src/billing.py").write_text(
        "import decimal\n\n# TODO: rounding mode\n"
        + _filler("billing", 36)
        + "\n# TODO: currency table\n"
        + _filler("billing_tail", 90)
        + "\n"
    )
    (root / "src/ledger_io.py").write_text(_filler("ledger", 140) + "\n")
    (root / "docs/ARCH.md").write_text(
        "# Architecture\n\n"
        + "\n".join(
            f"Layer note {i}: the io layer hands records to billing, which stays pure, "
            f"and the api layer formats totals for clients (note {i})."
            for i in range(120)
        )
        + "\n"
    )
    return root


def system_prompt() -> str:
    rules = "\n".join(
        f"Rule {i}: keep edits small, explain each change, run the tests that cover it, and "
        f"never rewrite history of the conversation (guideline {i})."
        for i in range(160)
    )
    return "You are a careful coding assistant for the billing service.\n" + rules


def user_text(turn: int, mode: str) -> str:
    marker = ""
    if turn in TASKS:
        letter = TASKS[turn][0]
        marker = {
            "delegate": f" DELEGATE-{letter}",
            "self": f" SELF-{letter}",
            "none": f" PLAIN-{letter}",
        }[mode]
    return (
        f"Turn {turn}:{marker} please continue with the billing work; keep notes short "
        f"and mention anything surprising you notice in step {turn}."
    )


def script() -> Script:
    rules: list[Rule] = []
    for turn, (letter, task, calls, answer) in TASKS.items():
        del turn
        rules.append(
            Rule(
                match=f"DELEGATE-{letter}",
                steps=[
                    Step(
                        text="Handing this to the explorer.",
                        tool="delegate",
                        input={"task": task, "agent": "explorer"},
                    ),
                    Step(text=f"The explorer reports: {answer}"),
                ],
            )
        )
        rules.append(
            Rule(
                match=f"SELF-{letter}",
                steps=[
                    *[Step(text="Looking.", tool=name, input=args) for name, args in calls],
                    Step(text=answer),
                ],
            )
        )
        # The subagent's own script: the same tool calls, then the summary.
        rules.append(
            Rule(
                match=f"^TASK-{letter}",
                steps=[
                    *[Step(text="Looking.", tool=name, input=args) for name, args in calls],
                    Step(text=answer),
                ],
            )
        )
    return Script(rules=rules, default="Noted; continuing with the billing work.")


@dataclass
class Run:
    emulator_requests: list[Any]
    parent_hit_rate: float
    parent_cost: Decimal
    subagents: SubagentSection
    events: list[Event] = field(default_factory=list)
    wire: list[WireRequest] = field(default_factory=list)  # the parent's requests, as sent

    @property
    def total_cost(self) -> Decimal:
        sub = self.subagents.cost if len(self.subagents) else Decimal(0)
        assert sub is not None
        return self.parent_cost + sub

    def parent_bodies(self) -> list[Mapping[str, Any]]:
        return [
            r.body for r in self.emulator_requests if r.model == PARENT_MODEL and r.status == 200
        ]


async def run_session(root: Path, mode: str) -> Run:
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=script()) as emu:
        delegator = SubagentDelegator(root=root)
        from prefixlock.coding.workspace import Workspace

        prefix = FrozenPrefix(
            system=system_prompt(),
            tools=[*Workspace(root).read_only_tools(), delegator.tool()],
        )
        agent = Agent(
            prefix,
            model=PARENT_MODEL,
            api_key=KEY,
            base_url=emu.base_url,
            clock=clock,
            delegator=delegator,
        )
        events: list[Event] = []
        async with agent.session() as s:
            for turn in range(1, TURNS + 1):
                async for ev in s.send(user_text(turn, mode)):
                    events.append(ev)
                clock.advance(30)
            cost = s.ledger.cost
            assert cost is not None
            section = getattr(s.ledger, "subagents", None) or SubagentSection()
            return Run(
                list(emu.requests), s.ledger.hit_rate, cost, section, events, list(s.requests)
            )


def assert_prefix_unchanged(bodies: Sequence[Mapping[str, Any]]) -> None:
    """Every parent request sends the same tools and system content, and each request's messages
    start with all of the previous request's messages (append-only). Marks are left out: the
    default policy moves the prefix's mark from 5m to 1h once it holds the history, and a mark is
    not part of what a cache entry is keyed on."""
    first = strip_cache_control(bodies[0])
    for body in bodies[1:]:
        assert strip_cache_control(body["tools"]) == first["tools"]
        assert strip_cache_control(body["system"]) == first["system"]
    for prev, cur in itertools.pairwise(bodies):
        p, c = strip_cache_control(prev["messages"]), strip_cache_control(cur["messages"])
        assert c[: len(p)] == p
