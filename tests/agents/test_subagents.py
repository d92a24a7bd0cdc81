"""Subagents on the emulator: the parent's cache is untouched, costs are lower, failures and
limits come back as error summaries, Claude Code agent files run, and keys stay out."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from prefixlock.agent import Agent
from prefixlock.agents import AgentRegistry, SubagentDelegator, parse_definition
from prefixlock.canonical import canonical_bytes
from prefixlock.clock import ManualClock
from prefixlock.coding.workspace import Workspace
from prefixlock.delegation import subagent_section
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import SubagentFinish, SubagentStart, ToolResult, UsageReport
from prefixlock.prefix import FrozenPrefix
from prefixlock.settings import Settings
from prefixlock.wire import WireRequest
from tests.helpers.agents_scenario import (
    KEY,
    PARENT_MODEL,
    SPAWN_TURNS,
    assert_prefix_unchanged,
    make_workspace,
    run_session,
)
from tests.helpers.marks import strip_cache_control


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("ws"))


async def test_three_subagents_keep_the_parent_cache_and_cost_less(workspace: Path) -> None:
    without = await run_session(workspace, "none")
    with_subagents = await run_session(workspace, "delegate")
    in_parent = await run_session(workspace, "self")

    # The main session's hit rate stays within one point of the same session without spawns.
    assert abs(with_subagents.parent_hit_rate - without.parent_hit_rate) <= 0.01
    # On the wire: every parent request has the same tools and system, messages only append.
    bodies = with_subagents.parent_bodies()
    assert len(bodies) == 25 + len(SPAWN_TURNS)  # each spawn: the tool call and the answer
    assert_prefix_unchanged(bodies)
    # Byte for byte, around each spawn: the parent's request that called `delegate`, the one
    # that carried the summary back, and the requests either side of them send the same tools
    # and system bytes (the units the cache hashes), and the subagent's requests came between.
    reports = [e for e in with_subagents.events if isinstance(e, UsageReport)]
    sent = with_subagents.wire
    assert len(sent) == len(bodies)
    for turn in SPAWN_TURNS:
        call, back = [r.request for r in reports if r.turn == turn and r.model == PARENT_MODEL]
        assert back == call + 1
        around = sent[call - 1 : back + 2]
        head = [_prefix_bytes(r) for r in around]
        assert all(h == head[0] for h in head[1:]) and head[0][0]
        chains = [[u.chain for u in r.units if u.section != "messages"] for r in around]
        assert all(c == chains[0] for c in chains[1:])
        order = [r.model for r in with_subagents.emulator_requests if r.status == 200]
        parent_at = [i for i, m in enumerate(order) if m == PARENT_MODEL]
        between = order[parent_at[call] + 1 : parent_at[back]]
        assert between and set(between) == {"claude-haiku-4-5"}
    # The same session with the tasks done in the parent really did the work there.
    in_parent_wire = json.dumps(strip_cache_control(in_parent.parent_bodies()[-1]["messages"]))
    assert "billing_tail line 5" in in_parent_wire
    assert len(in_parent.parent_bodies()) == 25 + 5  # its five tool rounds
    # The hit rate the ledger reports is the emulator's own count for the parent's requests.
    usage = [
        r.usage
        for r in with_subagents.emulator_requests
        if r.model == PARENT_MODEL and r.status == 200 and r.usage
    ]
    read = sum(u["cache_read_input_tokens"] for u in usage)
    total = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in usage
    )
    assert with_subagents.parent_hit_rate == pytest.approx(read / total)
    # The parent's messages hold the call and the summary only, never the subagent's work.
    wire = json.dumps(strip_cache_control(bodies[-1]["messages"]))
    assert "TASK-A" in wire and "rounding" in wire
    assert "billing_tail line 5" not in wire  # text of a file only the subagent read
    # Cheaper than doing the three tasks in the main session on its expensive model.
    assert with_subagents.total_cost < in_parent.total_cost
    # Accounting: three subagents in the parent ledger's subagent section, and in the events.
    section = with_subagents.subagents
    assert len(section) == 3
    for r in section.results:
        assert r.ok and r.model == "claude-haiku-4-5" and r.requests >= 2
        assert r.cost is not None and r.cost > 0
        assert r.compression == r.consumed_tokens / r.summary_tokens > 10
    starts = [e for e in with_subagents.events if isinstance(e, SubagentStart)]
    finishes = [e for e in with_subagents.events if isinstance(e, SubagentFinish)]
    assert [e.name for e in starts] == ["explorer"] * 3
    assert [f.cost for f in finishes] == [r.cost for r in section.results]
    assert all(f.error is None and f.compression > 10 for f in finishes)
    # Subagents ran on haiku, with their own prefix (not the parent's).
    subs = [r for r in with_subagents.emulator_requests if r.model == "claude-haiku-4-5"]
    assert subs and all(r.body["system"] != bodies[0]["system"] for r in subs)
    # No request anywhere carries the parent's API key.
    assert all(KEY not in json.dumps(r.body) for r in with_subagents.emulator_requests)


def _prefix_bytes(request: WireRequest) -> tuple[bytes, bytes]:
    """The tools and system of a request in canonical bytes, cache markers included."""
    body = request.body
    return canonical_bytes(body.get("tools", [])), canonical_bytes(body.get("system", []))


def _emu_script() -> Script:
    return Script(
        rules=[
            Rule(
                match="^LOOP", steps=[Step(text="again", tool="grep", input={"pattern": "x"})] * 9
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
            Rule(
                match="^REVIEW",
                steps=[
                    Step(text="reading", tool="read_file", input={"path": "src/billing.py"}),
                    Step(text="Reviewed: billing.py has two TODOs and no tests."),
                ],
            ),
        ],
        default="Fine.",
    )


def _parent(
    emu: Emulator,
    delegator: SubagentDelegator,
    prefix: FrozenPrefix | None = None,
    **kw: Any,
) -> Agent:
    """The parent agent on the emulator, delegating through `delegator`."""
    return Agent(
        prefix or FrozenPrefix(system="parent"),
        model=PARENT_MODEL,
        api_key=KEY,
        base_url=emu.base_url,
        clock=emu.clock,
        delegator=delegator,
        **kw,
    )


async def test_code_path_appends_a_pair_and_keeps_the_prefix(workspace: Path) -> None:
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_emu_script()) as emu:
        d = SubagentDelegator(root=workspace)
        prefix = FrozenPrefix(
            system="Parent rules. " * 800, tools=Workspace(workspace).read_only_tools()
        )
        agent = _parent(emu, d, prefix)
        async with agent.session() as s:
            await s.ask("first turn")
            before = len(s.transcript)
            result = await s.delegate(
                "REVIEW src/billing.py", agent="explorer", model="claude-sonnet-4-6"
            )
            assert result.ok and result.error is None and result.cost is not None
            summary = result.summary
            assert summary == "Reviewed: billing.py has two TODOs and no tests."
            assert len(s.transcript) == before + 2
            call, answer = s.transcript.messages[-2:]
            assert call.role == "user" and "REVIEW src/billing.py" in call.text
            assert answer.role == "assistant" and answer.text == summary
            await s.ask("second turn")
            section = subagent_section(s)
            assert len(section) == 1 and section.results[0].model == "claude-sonnet-4-6"
            # The parent's next request read its whole previous context from the cache.
            parent = [r for r in emu.requests if r.model == PARENT_MODEL]
            assert parent[-1].usage is not None
            assert parent[-1].usage["cache_read_input_tokens"] >= prefix.tokens
            assert_prefix_unchanged([r.body for r in parent])


async def test_claude_code_agent_file_loads_and_runs(workspace: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude/agents").mkdir(parents=True)
    (project / ".claude/agents/reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n"
        "model: haiku\ncolor: green\n---\nYou review code and report findings.\n"
    )
    registry = AgentRegistry.discover(project)
    assert registry.warnings and "color" in registry.warnings[0]
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_emu_script()) as emu:
        d = SubagentDelegator(registry, root=workspace)
        agent = _parent(emu, d)
        async with agent.session() as s:
            result = await s.delegate("REVIEW the billing module", agent="reviewer")
    assert result.ok and result.summary.startswith("Reviewed:")
    sub = [r for r in emu.requests if r.model == "claude-haiku-4-5"]
    assert len(sub) == 2
    assert [t["name"] for t in sub[0].body["tools"]] == ["grep", "read_file"]
    assert "You review code and report findings." in json.dumps(sub[0].body["system"])


async def test_failures_and_limits_come_back_as_error_summaries(workspace: Path) -> None:
    loop_agent = parse_definition(
        "---\nname: looper\ntools: grep\nmodel: haiku\nlimits: {turns: 3}\n---\nLoop.\n",
        "looper.md",
    )
    nester = parse_definition(
        "---\nname: nester\ntools: delegate\nmodel: haiku\n---\nNest.\n", "nester.md"
    )
    registry = AgentRegistry([loop_agent, nester])
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_emu_script()) as emu:
        d = SubagentDelegator(registry, root=workspace, max_depth=2)
        agent = _parent(emu, d, settings=Settings(retries=0))
        async with agent.session() as s:
            # Turn limit: the looper keeps calling tools; it stops after 3 requests.
            result = await s.delegate("LOOP forever", agent="looper")
            assert not result.ok and result.error == "turns"
            assert result.summary.startswith("[subagent looper stopped at its turn limit 3]")
            assert d.results[-1].error == "turns" and d.results[-1].requests == 3
            # A provider failure inside the subagent: an error summary, the parent goes on.
            emu.inject("500", count=1)
            result = await s.delegate("LOOP again", agent="looper")
            assert not result.ok and result.error is not None
            assert result.error.startswith("ProviderError")
            assert result.summary.startswith("[subagent looper failed: ProviderError")
            # Unknown agents and the depth limit are summaries too.
            unknown = await s.delegate("x", agent="nobody")
            assert not unknown.ok and "unknown agent 'nobody'" in unknown.summary
            await s.delegate("NEST once", agent="nester")
            depths = [r.depth for r in d.results[-3:]]
            assert depths == [3, 2, 1]  # innermost finishes first
            assert d.results[-3].error == "depth"
            assert await s.ask("still alive?") == "Fine."
    assert all(KEY not in json.dumps(r.body) for r in emu.requests)


async def test_dollar_limit_stops_the_subagent(workspace: Path) -> None:
    cheap = parse_definition(
        "---\nname: cheap\ntools: grep\nmodel: opus\nlimits: {dollars: 0.000001}\n---\nLoop.\n",
        "cheap.md",
    )
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_emu_script()) as emu:
        d = SubagentDelegator(AgentRegistry([cheap]), root=workspace)
        agent = _parent(emu, d)
        async with agent.session() as s:
            text = (await s.delegate("LOOP", agent="cheap")).summary
    assert "dollar limit $0.000001" in text
    assert d.results[-1].requests == 1 and d.results[-1].error == "dollars"


async def test_key_in_a_task_is_redacted(workspace: Path) -> None:
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_emu_script()) as emu:
        d = SubagentDelegator(root=workspace)
        agent = _parent(emu, d)
        async with agent.session() as s:
            await s.delegate(f"REVIEW with key {KEY}", agent="explorer")
            assert KEY not in json.dumps([m.to_dict() for m in s.transcript])
    assert emu.requests and all(KEY not in json.dumps(r.body) for r in emu.requests)


async def test_summary_is_capped(workspace: Path) -> None:
    short = parse_definition(
        "---\nname: short\ntools: read_file\nmodel: haiku\nlimits: {summary_tokens: 8}\n---\nS.\n",
        "short.md",
    )
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=_emu_script()) as emu:
        d = SubagentDelegator(AgentRegistry([short]), root=workspace)
        agent = _parent(emu, d)
        async with agent.session() as s:
            events = [e async for e in s.send("plain turn")]
            text = (await s.delegate("REVIEW", agent="short")).summary
    assert not any(isinstance(e, ToolResult) for e in events)
    assert text.endswith("[summary cut at 8 tokens]")
    assert d.results[-1].summary_tokens <= 8 + 8
    assert d.results[-1].cost is not None and d.results[-1].cost > Decimal(0)


async def test_advise_session_reads_the_live_parent(workspace: Path) -> None:
    from prefixlock.agents.advisor import advise_session, parent_state
    from prefixlock.guard.economics import TaskProfile

    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=_emu_script()) as emu:
        d = SubagentDelegator(root=workspace)
        prefix = FrozenPrefix(system="Parent rules. " * 2000)
        agent = _parent(emu, d, prefix)
        async with agent.session() as s:
            assert parent_state(s).ttl_left_seconds == 0  # nothing sent yet: cold
            await s.ask("first turn")
            clock.advance(100)
            state = parent_state(s)
            last = s.ledger.rows[-1].usage
            assert state.context_tokens == last.input_total + last.output
            assert state.ttl_left_seconds == 200  # 5m TTL, 100 s after the last request
            small = advise_session(
                s, TaskProfile(context_tokens=200, new_tokens=20_000, turns=4, duration_seconds=60)
            )
            assert small.recommend and small.subagent_model == "claude-haiku-4-5"
            slow = advise_session(
                s, TaskProfile(context_tokens=200, new_tokens=500, turns=2, duration_seconds=600)
            )
            assert slow.subagent_items["parent cache re-write"] > 0


async def test_code_path_delegation_is_stored_at_once_and_resumes_warm(
    workspace: Path, tmp_path: Path
) -> None:
    from prefixlock.store.database import SessionStore

    db = tmp_path / "sessions.sqlite"
    clock = ManualClock()
    with Emulator.start(config=EmulatorConfig(), clock=clock, script=_emu_script()) as emu:
        prefix = FrozenPrefix(
            system="Parent rules. " * 800, tools=Workspace(workspace).read_only_tools()
        )

        def parent_agent(store: SessionStore) -> Agent:
            return Agent(
                prefix,
                model=PARENT_MODEL,
                api_key=KEY,
                base_url=emu.base_url,
                clock=emu.clock,
                delegator=SubagentDelegator(root=workspace),
                store=store,
            )

        store = SessionStore(db)
        async with parent_agent(store).session("deleg") as s:
            await s.ask("first turn")
            last_bp = max(u.end for u in s.requests[-1].units if u.breakpoint)
            summary = (await s.delegate("REVIEW src/billing.py", agent="explorer")).summary
            # Written in the same transaction a turn uses, before the session does anything else.
            with SessionStore(db, read_only=True) as reader:
                stored = reader.load("deleg")
                assert reader.session("deleg").turns == 2 == s.turn
            assert [m["role"] for m in stored.messages] == ["user", "assistant"] * 2
            assert stored.messages[-1]["content"][0]["text"] == summary
        store.close()  # the session ends right after the delegation

        clock.advance(60)  # well inside the 5-minute TTL
        n = len(emu.requests)
        store = SessionStore(db)
        async with parent_agent(store).resume("deleg") as again:
            assert again.turn == 2
            call, answer = again.transcript.messages[-2:]
            assert "REVIEW src/billing.py" in call.text and answer.text == summary
            reports = [e async for e in again.send("second turn") if isinstance(e, UsageReport)]
        store.close()
        first = emu.requests[n]
    assert first.model == PARENT_MODEL
    wire = json.dumps(first.body["messages"])
    assert "REVIEW src/billing.py" in wire and summary in wire
    # The resumed request reads everything the first turn cached.
    assert first.usage is not None and first.usage["cache_read_input_tokens"] == last_bp > 0
    assert reports[0].usage.cache_read == last_bp
    with SessionStore(db, read_only=True) as reader:
        assert reader.session("deleg").turns == 3
        assert len(reader.load("deleg").messages) == 6
