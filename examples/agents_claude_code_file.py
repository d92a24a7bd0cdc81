"""A Claude Code agent file (`.claude/agents/*.md`) runs as it is.

Writes a reviewer agent in Claude Code's format (`model: haiku`, `tools: Read, Grep`, a key
prefixlock does not use), lists what the registry found (with the unknown key reported once),
shows that a malformed file is named with its line, and runs the reviewer on the emulator.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

from prefixlock.agent import Agent
from prefixlock.agents import AgentRegistry, SubagentDelegator
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.errors import UserError
from prefixlock.prefix import FrozenPrefix

REVIEWER = """---
name: reviewer
description: Reviews a module for obvious problems.
tools: Read, Grep
model: haiku
color: purple
---
You review code. Report problems as path:line with one sentence each.
"""

SCRIPT = Script(
    rules=[
        Rule(
            match="^Review",
            steps=[
                Step(text="Reading.", tool="read_file", input={"path": "calc.py"}),
                Step(text="calc.py:2 divides without checking for zero."),
            ],
        )
    ]
)


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    (project / ".claude/agents").mkdir(parents=True)
    (project / ".claude/agents/reviewer.md").write_text(REVIEWER)
    (project / "calc.py").write_text("def ratio(a, b):\n    return a / b\n")

    # Unknown keys are logged once per file and key (and kept in `registry.warnings`).
    logging.basicConfig(format="warning: %(message)s")
    registry = AgentRegistry.discover(project)
    for d in registry:
        print(f"{d.name:<11} {d.origin:<8} model={d.model} tools={','.join(d.tools or ())}")

    broken = project / "broken.md"
    broken.write_text("---\nname: broken\ntools: [Read, Grep\n---\nbody\n")
    try:
        AgentRegistry().load_dir(project, origin="project")
    except UserError as exc:
        print(f"malformed file reported as: {exc}")

    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=SCRIPT) as emu:
        delegator = SubagentDelegator(registry, root=project)
        agent = Agent(
            FrozenPrefix(system="parent"),
            model="claude-opus-4-7",
            api_key="test-key",
            base_url=emu.base_url,
            clock=clock,
            delegator=delegator,
        )
        async with agent.session() as s:
            r = await s.delegate("Review calc.py", agent="reviewer")
        ok = "ok" if r.ok else f"failed: {r.error}"
        print(f"reviewer on {r.model} ({ok}): {r.summary!r} ({r.requests} requests, ${r.cost:.5f})")


if __name__ == "__main__":
    asyncio.run(main())
