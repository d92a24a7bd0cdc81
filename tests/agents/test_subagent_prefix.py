"""The built-in `general` agent and `prefixlock.delegation.subagent_prefix`: what prefix a
delegator gives a subagent, asked from the core without importing `agents`."""

from __future__ import annotations

from prefixlock.agents import SubagentDelegator
from prefixlock.delegation import DelegationResult, ParentSession, subagent_prefix
from prefixlock.emulator.workspace import Workspace, demo_prefix
from prefixlock.tools import ToolSpec


def test_general_inherits_the_parents_tools_and_model_but_not_delegate() -> None:
    d = SubagentDelegator()
    general = d.registry.get("general")
    assert general.model is None and general.tools is None  # inherit both
    delegate = ToolSpec("delegate", "hand a task to a subagent", {"type": "object"})
    ws = Workspace()
    tools = ws.tools()
    parent = demo_prefix(ws).replace(tools=[*tools, delegate])
    sub = subagent_prefix(d, "general", parent)
    assert sub is not None and sub == d.prefix_for(general, parent)
    assert sub.tool_names() == tuple(sorted(t.name for t in tools))
    # Every tool runs the parent's own runner: a turn's edits land in the same workspace.
    assert all(sub.runner(n) is parent.runner(n) is not None for n in sub.tool_names())


class _Plain:
    """A delegator that offers no prefix_of."""

    async def delegate(
        self, parent: ParentSession, task: str, *, agent: str = "explorer", model: str | None = None
    ) -> DelegationResult:
        return DelegationResult(agent, model or "m", task, "done")


def test_a_delegator_that_cannot_say_gives_none() -> None:
    assert subagent_prefix(_Plain(), "general") is None
