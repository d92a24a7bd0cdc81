"""The model's `delegate` calls stream live into the parent's events, on the emulator.

SubagentStart arrives when the subagent begins (before its first request), the subagent's own
events follow as it produces them (wrapped in SubagentEvent with its name and depth), and
SubagentFinish arrives when it ends, before the parent's ToolResult for that call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest

from prefixlock.agent import Agent
from prefixlock.agents import AgentRegistry, SubagentDelegator, parse_definition
from prefixlock.clock import ManualClock
from prefixlock.delegation import subagent_section
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import (
    Event,
    SubagentEvent,
    SubagentFinish,
    SubagentStart,
    TextDelta,
    ToolCall,
    ToolResult,
    TurnComplete,
    UsageReport,
)
from prefixlock.prefix import FrozenPrefix
from tests.helpers.agents_scenario import KEY, PARENT_MODEL, make_workspace

SUB_MODEL = "claude-haiku-4-5"
ANSWER = "Two TODOs in src/billing.py."


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("ws"))


def _script() -> Script:
    return Script(
        rules=[
            Rule(
                match="^Please find",
                steps=[
                    Step(
                        text="Handing it over.",
                        tool="delegate",
                        input={"task": "FIND the TODOs", "agent": "explorer"},
                    ),
                    Step(text="Done: " + ANSWER),
                ],
            ),
            Rule(
                match="^FIND",
                steps=[
                    Step(text="Searching.", tool="grep", input={"pattern": "TODO", "path": "src"}),
                    Step(text=ANSWER),
                ],
            ),
            Rule(
                match="^NEST",
                steps=[
                    Step(
                        text="nesting",
                        tool="delegate",
                        input={"task": "NEST deeper", "agent": "nester"},
                    ),
                    Step(text="nested done"),
                ],
            ),
        ],
        default="Fine.",
    )


def _kind(ev: Event) -> str:
    if isinstance(ev, SubagentEvent):
        return f"sub{ev.depth}:{_kind(ev.event)}"
    if isinstance(ev, ToolCall | ToolResult):
        return f"{type(ev).__name__}:{ev.name}"
    return type(ev).__name__


def _kinds(events: list[Event]) -> list[str]:
    """Event kinds in order, a run of text deltas (one streamed answer) counted once."""
    out: list[str] = []
    for e in events:
        k = _kind(e)
        if not (out and out[-1] == k and k.endswith("TextDelta")):
            out.append(k)
    return out


@pytest.mark.parametrize("explicit", [True, False], ids=["Agent(delegator=)", "prefix tool only"])
async def test_subagent_events_stream_live_before_the_tool_result(
    workspace: Path, explicit: bool
) -> None:
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_script()) as emu:
        d = SubagentDelegator(root=workspace)
        prefix = FrozenPrefix(system="Parent rules. " * 400, tools=[d.tool()])
        agent = Agent(
            prefix,
            model=PARENT_MODEL,
            api_key=KEY,
            base_url=emu.base_url,
            clock=emu.clock,
            delegator=d if explicit else None,
        )
        seen: list[Event] = []
        sub_requests_when: dict[str, int] = {}
        async with agent.session() as s:
            async for ev in s.send("Please find the TODOs"):
                done = sum(1 for r in emu.requests if r.model == SUB_MODEL)
                if isinstance(ev, SubagentStart):
                    sub_requests_when["start"] = done
                elif isinstance(ev, SubagentEvent) and isinstance(ev.event, UsageReport):
                    # Live: each of the subagent's usage reports arrives right after its request.
                    assert done == ev.event.request + 1
                elif isinstance(ev, SubagentFinish):
                    sub_requests_when["finish"] = done
                seen.append(ev)
            section = subagent_section(s)

    assert _kinds(seen) == [
        "TextDelta",
        "UsageReport",
        "ToolCall:delegate",
        "SubagentStart",
        "sub1:TextDelta",
        "sub1:UsageReport",
        "sub1:ToolCall:grep",
        "sub1:ToolResult:grep",
        "sub1:TextDelta",
        "sub1:UsageReport",
        "sub1:CacheBreak",
        "sub1:TurnComplete",
        "SubagentFinish",
        "ToolResult:delegate",
        "TextDelta",
        "UsageReport",
        "CacheBreak",
        "TurnComplete",
    ]
    # The start came before the subagent sent anything; the finish after both its requests.
    assert sub_requests_when == {"start": 0, "finish": 2}
    start = next(e for e in seen if isinstance(e, SubagentStart))
    finish = next(e for e in seen if isinstance(e, SubagentFinish))
    assert (start.name, start.model, start.task, start.depth) == (
        "explorer",
        SUB_MODEL,
        "FIND the TODOs",
        1,
    )
    nested = [e for e in seen if isinstance(e, SubagentEvent)]
    assert {(e.name, e.depth) for e in nested} == {("explorer", 1)}
    # The nested usage is the subagent's, and adds up to what its SubagentFinish reports.
    sub_usage = [e.event for e in nested if isinstance(e.event, UsageReport)]
    assert all(u.model == SUB_MODEL for u in sub_usage)
    assert sum(u.usage.input_total for u in sub_usage) == finish.usage.input_total
    assert finish.cost == sum(u.cost for u in sub_usage if u.cost is not None)
    assert finish.summary == ANSWER and finish.error is None and finish.depth == 1
    # The nested text is the subagent's; the parent's own TextDeltas never include it.
    sub_text = "".join(e.event.text for e in nested if isinstance(e.event, TextDelta))
    assert ANSWER in sub_text
    parent_text = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert parent_text == "Handing it over.Done: " + ANSWER
    result = next(e for e in seen if isinstance(e, ToolResult))
    assert result.content == ANSWER and not result.is_error
    # Charged once to the parent's ledger, whichever path ran the tool.
    assert len(section) == 1 and section.results[0].cost == finish.cost
    assert isinstance(seen[-1], TurnComplete)


async def test_nested_subagents_stream_with_their_depth(workspace: Path) -> None:
    nester = parse_definition(
        "---\nname: nester\ntools: delegate\nmodel: haiku\n---\nNest.\n", "nester.md"
    )
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_script()) as emu:
        d = SubagentDelegator(AgentRegistry([nester]), root=workspace, max_depth=2)
        agent = Agent(
            FrozenPrefix(system="parent", tools=[d.tool()]),
            model=PARENT_MODEL,
            api_key=KEY,
            base_url=emu.base_url,
            clock=emu.clock,
            delegator=d,
        )
        async with agent.session() as s:
            seen = [ev async for ev in s.send("NEST top")]

    subagent_kinds = [
        _kind(e)
        for e in seen
        if isinstance(e, SubagentStart | SubagentFinish)
        or (
            isinstance(e, SubagentEvent)
            and isinstance(e.event, SubagentStart | SubagentFinish | ToolResult)
        )
    ]
    # Depth 1 delegates to depth 2, whose delegation hits the depth limit (2) at depth 3.
    assert subagent_kinds == [
        "SubagentStart",
        "sub1:SubagentStart",
        "sub2:SubagentStart",
        "sub2:SubagentFinish",
        "sub2:ToolResult:delegate",
        "sub1:SubagentFinish",
        "sub1:ToolResult:delegate",
        "SubagentFinish",
    ]
    starts = [
        e.event for e in seen if isinstance(e, SubagentEvent) and isinstance(e.event, SubagentStart)
    ]
    assert [x.depth for x in starts] == [2, 3]
    finishes = [
        e.event
        for e in seen
        if isinstance(e, SubagentEvent) and isinstance(e.event, SubagentFinish)
    ]
    assert [(f.depth, f.error) for f in finishes] == [(3, "depth"), (2, None)]
    top = [e for e in seen if isinstance(e, SubagentFinish)]
    assert [(f.depth, f.error, f.summary) for f in top] == [(1, None, "nested done")]
    # Depth 1's cost charged to the parent: its own requests plus its subagent's (depth 2);
    # the depth-3 call never ran and costs nothing.
    own = sum(
        e.event.cost
        for e in seen
        if isinstance(e, SubagentEvent)
        and e.depth == 1
        and isinstance(e.event, UsageReport)
        and e.event.cost is not None
    )
    assert own > 0 and finishes[1].cost is not None and finishes[1].cost > 0
    assert finishes[0].cost == 0
    assert top[0].cost == own + finishes[1].cost
    assert top[0].usage.input_total == sum(
        e.event.usage.input_total
        for e in seen
        if isinstance(e, SubagentEvent) and e.depth == 1 and isinstance(e.event, UsageReport)
    )
    top_kinds = [k for k in _kinds(seen) if not k.startswith("sub")]
    assert top_kinds[top_kinds.index("SubagentFinish") :] == [
        "SubagentFinish",
        "ToolResult:delegate",
        "TextDelta",
        "UsageReport",
        "CacheBreak",
        "TurnComplete",
    ]


async def test_a_caller_that_stops_mid_delegation_stops_the_subagent(workspace: Path) -> None:
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_script()) as emu:
        d = SubagentDelegator(root=workspace)
        agent = Agent(
            FrozenPrefix(system="parent", tools=[d.tool()]),
            model=PARENT_MODEL,
            api_key=KEY,
            base_url=emu.base_url,
            clock=emu.clock,
            delegator=d,
        )
        async with agent.session() as s:
            stream = s.send("Please find the TODOs")
            async for ev in stream:
                if isinstance(ev, SubagentStart):
                    break
            assert isinstance(stream, AsyncGenerator)  # so the test can close it early
            await stream.aclose()
            assert not s.state.pending_results and not s.side_events
            # The subagent was stopped before it sent anything, and the session goes on: the
            # interrupted call gets an error result in front of the next turn.
            assert [r.model for r in emu.requests] == [PARENT_MODEL]
            events = [e async for e in s.send("still alive?")]
            assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "end_turn"
            assert not any(isinstance(e, SubagentStart | SubagentEvent) for e in events)
            sent = emu.requests[-1].body["messages"][-1]["content"]
            assert sent[0]["type"] == "tool_result" and sent[0]["is_error"] is True
            assert "interrupted" in json.dumps(sent[0])
    assert len(d.results) == 0  # no finished run to charge
