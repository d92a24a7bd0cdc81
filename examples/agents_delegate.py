"""Hand side tasks to an explorer subagent, as a tool the model calls and from code.

Runs offline on the local emulator. The parent (claude-opus-4-7) has a long frozen prefix with
the read-only workspace tools and the `delegate` tool; its scripted model calls `delegate` on
the second turn; the script then asks the delegation advisor about a summary task on the live
session (`advise_session`) and, as it recommends, calls `s.delegate(...)` itself. The explorer
runs on haiku with its own prefix and cache; the parent receives only the call and the
summary, so its prefix bytes and its cache are untouched.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from prefixlock.agent import Agent
from prefixlock.agents import SubagentDelegator, TaskProfile, advise_session
from prefixlock.clock import ManualClock
from prefixlock.coding.workspace import Workspace
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import SubagentEvent, SubagentFinish, SubagentStart, ToolCall
from prefixlock.prefix import FrozenPrefix

SCRIPT = Script(
    rules=[
        # The parent: on "TODO" it delegates the search instead of reading files itself.
        Rule(
            match="list the TODOs",
            steps=[
                Step(
                    text="I'll ask the explorer.",
                    tool="delegate",
                    input={
                        "task": "FIND: every TODO under src, with path:line",
                        "agent": "explorer",
                    },
                ),
                Step(text="The explorer found two TODOs in src/app.py."),
            ],
        ),
        # The explorer subagent: grep, read, answer.
        Rule(
            match="^FIND",
            steps=[
                Step(text="Searching.", tool="grep", input={"pattern": "TODO", "path": "src"}),
                Step(text="Reading.", tool="read_file", input={"path": "src/app.py"}),
                Step(text="src/app.py:1 TODO validate input; src/app.py:3 TODO retry on timeout."),
            ],
        ),
        Rule(
            match="^SUMMARIZE",
            steps=[
                Step(text="Reading.", tool="read_file", input={"path": "README.md"}),
                Step(text="A demo app that fetches and validates records."),
            ],
        ),
    ],
    default="Noted.",
)


def make_workspace(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src/app.py").write_text(
        "# TODO validate input\ndef fetch(url):\n    # TODO retry on timeout\n    return url\n"
    )
    (root / "README.md").write_text("# demo\nA demo app that fetches and validates records.\n")


async def main() -> None:
    root = Path(tempfile.mkdtemp())
    make_workspace(root)
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=SCRIPT) as emu:
        delegator = SubagentDelegator(root=root)
        prefix = FrozenPrefix(
            system="You are a careful coding assistant. " * 400,
            tools=[*Workspace(root).read_only_tools(), delegator.tool()],
        )
        agent = Agent(
            prefix,
            model="claude-opus-4-7",
            api_key="test-key",
            base_url=emu.base_url,
            clock=clock,
            delegator=delegator,
        )
        async with agent.session() as s:
            await s.ask("Hello, we are working on the demo app.")
            async for ev in s.send("Please list the TODOs in the code."):
                if isinstance(ev, SubagentStart):
                    print(f"subagent {ev.name} on {ev.model} started: {ev.task}")
                elif isinstance(ev, SubagentEvent) and isinstance(ev.event, ToolCall):
                    # The subagent's own events arrive live, tagged with its name and depth.
                    print(f"  {'  ' * ev.depth}[{ev.name}] {ev.event.name}({ev.event.input})")
                elif isinstance(ev, SubagentFinish):
                    print(f"subagent {ev.name} finished: {ev.summary!r}")
                    print(
                        f"  cost ${ev.cost:.5f}, hit rate {ev.hit_rate:.0%}, "
                        f"compression {ev.compression:.0f}x"
                    )
            # Ask the advisor first: the live parent's model, context and TTL left against
            # what the task needs (here little of the context, so a subagent pays).
            need = TaskProfile(context_tokens=300, new_tokens=2_000, turns=2, duration_seconds=30)
            advice = advise_session(s, need, agent="summarizer")
            print(f"advisor: {advice.reason}")
            if advice.recommend:
                summary = (await s.delegate("SUMMARIZE the README", agent="summarizer")).summary
            else:
                summary = await s.ask("SUMMARIZE the README")
            print(f"from code, summarizer: {summary!r}")
            await s.ask("Thanks, carry on.")
            section = s.ledger.subagents  # the parent ledger's subagent section
            print(f"parent: {s.ledger.summary()}")
            print(
                f"subagents: {len(section)} runs, cost ${section.cost:.5f}, "
                f"compression {section.compression:.0f}x"
            )
            parent_bodies = [r.body for r in emu.requests if r.model == "claude-opus-4-7"]
            # Compared without their cache_control marks: the default policy moves the
            # prefix's mark to 1h once it holds the history, and a mark is not part of the key.
            first = _unmarked(parent_bodies[0])
            same = all(
                (_unmarked(b)["system"], _unmarked(b)["tools"]) == (first["system"], first["tools"])
                for b in parent_bodies
            )
            print(f"parent prefix bytes unchanged over {len(parent_bodies)} requests: {same}")
            assert same


def _unmarked(value: Any) -> Any:
    """A request body's value without its cache_control marks."""
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


if __name__ == "__main__":
    asyncio.run(main())
