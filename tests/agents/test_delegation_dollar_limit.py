"""The session's dollar limit counts what its subagents cost.

`Settings(max_dollars=...)` stops the loop "once the session cost reaches this", and a
subagent's cost is charged to the session (`ledger.total_cost`). The limit read the session's
own requests only, so a model that kept delegating ran to the end of its turn at more than twice
the limit. (pydantic-ai's usage limits likewise cover delegated agents given the parent's usage.)
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from prefixlock import Settings
from prefixlock.agent import Agent
from prefixlock.agents import SubagentDelegator
from prefixlock.clock import ManualClock
from prefixlock.coding.workspace import Workspace
from prefixlock.emulator import Emulator, Rule, Script, Step
from prefixlock.events import TurnComplete
from prefixlock.prefix import FrozenPrefix

TASK = {"task": "FIND: the TODOs", "agent": "explorer"}
SCRIPT = Script(
    rules=[
        Rule(
            match="go",
            steps=[
                Step(text="One.", tool="delegate", input=TASK),
                Step(text="Two.", tool="delegate", input=TASK),
                Step(text="Three.", tool="delegate", input=TASK),
                Step(text="Done."),
            ],
        ),
        Rule(
            match="^FIND",
            steps=[
                Step(text="Searching.", tool="grep", input={"pattern": "TODO", "path": "src"}),
                Step(text="found " * 50),
            ],
        ),
    ],
    default="ok",
)


async def _run(root: Path, cap: Decimal | None) -> tuple[TurnComplete, Decimal, Decimal]:
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "a.py").write_text("# TODO x\n" * 200)
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        d = SubagentDelegator(root=root)
        prefix = FrozenPrefix(
            system="You are careful. " * 300, tools=[*Workspace(root).tools(), d.tool()]
        )
        a = Agent(
            prefix,
            model="claude-haiku-4-5",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
            delegator=d,
            settings=Settings(max_dollars=cap),
        )
        async with a.session() as s:
            events = [e async for e in s.send("go")]
            last = events[-1]
            assert isinstance(last, TurnComplete)
            own, total = s.ledger.cost, s.ledger.total_cost
            assert own is not None and total is not None
            return last, own, total


async def test_the_dollar_limit_counts_the_subagents(tmp_path: Path) -> None:
    free, own, total = await _run(tmp_path, None)
    assert free.stop_reason == "end_turn" and total > own
    # A cap above what the session's own requests cost for the whole turn, below the total.
    cap = (own + total) / 2
    assert own < cap < total
    capped, _, capped_total = await _run(tmp_path, cap)
    assert capped.stop_reason == "limit" and capped.limit_hit == "dollars"
    assert capped_total < total
