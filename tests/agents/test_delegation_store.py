"""Subagent runs are stored with the turn that made them and come back on resume; a session
whose last stored turn is a code-path delegation resumes verified."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path

import pytest

from prefixlock.agent import Agent
from prefixlock.agents import SubagentDelegator
from prefixlock.cli.main import main
from prefixlock.clock import ManualClock
from prefixlock.coding.workspace import Workspace
from prefixlock.delegation import DelegationResult
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.prefix import FrozenPrefix
from prefixlock.store.database import SessionStore
from tests.helpers.agents_scenario import KEY, PARENT_MODEL, make_workspace

SCRIPT = Script(
    rules=[
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


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("ws"))


def _figures(results: Sequence[DelegationResult]) -> list[tuple[object, ...]]:
    return [
        (r.name, r.model, r.usage.to_dict(), r.cost, r.hit_rate, r.compression, r.error, r.run_id)
        for r in results
    ]


def _parent_factory(emu: Emulator, workspace: Path) -> Callable[[SessionStore], Agent]:
    """Agents of one parent session on `emu`, storing into the store they are given."""
    prefix = FrozenPrefix(
        system="Parent rules. " * 800, tools=Workspace(workspace).read_only_tools()
    )

    def parent(store: SessionStore) -> Agent:
        return Agent(
            prefix,
            model=PARENT_MODEL,
            api_key=KEY,
            base_url=emu.base_url,
            clock=emu.clock,
            delegator=SubagentDelegator(root=workspace),
            store=store,
        )

    return parent


async def test_subagent_runs_are_stored_and_restored(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sessions.sqlite"
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=SCRIPT) as emu:
        parent = _parent_factory(emu, workspace)

        store = SessionStore(db)
        async with parent(store).session("subs") as s:
            await s.ask("first turn")
            await s.delegate("REVIEW src/billing.py", agent="explorer", model="claude-sonnet-4-6")
            # A failing run is stored too, with its error.
            await s.delegate("REVIEW src/billing.py", agent="no-such-agent")
            before = list(s.ledger.subagents.results)
            total = s.ledger.total_cost
        store.close()
        assert len(before) == 2 and before[0].ok and not before[1].ok
        assert all(r.run_id for r in before)  # restored below with the run's own id
        assert before[0].cost is not None and before[0].cost > 0

        store = SessionStore(db)
        async with parent(store).resume("subs") as again:
            assert _figures(again.ledger.subagents.results) == _figures(before)
            assert again.ledger.total_cost == total
            assert again.resume_verified is True  # the last stored turn is a delegation
            await again.delegate("REVIEW src/billing.py", agent="explorer")
            assert len(again.ledger.subagents) == 3
        store.close()

    with SessionStore(db, read_only=True) as reader:
        rows = reader.subagents("subs")
    assert [r["turn"] for r in rows] == [2, 3, 4]
    assert [r["model"] for r in rows][:1] == ["claude-sonnet-4-6"]
    assert main(["sessions", "--store", str(db), "show", "subs"]) == 0
    out = capsys.readouterr().out
    assert "subagents: 3 runs" in out and "claude-sonnet-4-6" in out
    assert main(["sessions", "--store", str(db), "show", "subs", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["subagents"]
    assert [r["name"] for r in shown] == [r["name"] for r in rows]
    assert shown[1]["error"] == before[1].error


async def test_resume_after_a_code_path_delegation_is_verified(
    workspace: Path, tmp_path: Path
) -> None:
    db = tmp_path / "sessions.sqlite"
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=SCRIPT) as emu:
        parent = _parent_factory(emu, workspace)

        store = SessionStore(db)
        async with parent(store).session("v") as s:
            await s.ask("first turn")
            await s.ask("REVIEW src/billing.py yourself")  # a turn with a tool call
            await s.delegate("REVIEW src/billing.py", agent="explorer")
            await s.delegate("REVIEW src/app.py", agent="explorer")  # two pairs in a row
        store.close()
        store = SessionStore(db)
        async with parent(store).resume("v") as again:
            assert again.turn == 4
            assert again.resume_verified is True
        store.close()


async def test_a_delegate_tool_call_is_stored_with_its_turn(
    workspace: Path, tmp_path: Path
) -> None:
    db = tmp_path / "sessions.sqlite"
    script = Script(
        rules=[
            Rule(
                match="^Please review",
                steps=[
                    Step(
                        text="Handing it over.",
                        tool="delegate",
                        input={"task": "REVIEW src/billing.py", "agent": "explorer"},
                    ),
                    Step(text="Done."),
                ],
            ),
            *SCRIPT.rules,
        ],
        default="Fine.",
    )
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=script) as emu:
        d = SubagentDelegator(root=workspace)
        prefix = FrozenPrefix(system="Parent rules. " * 400, tools=[d.tool()])

        def parent(store: SessionStore) -> Agent:
            return Agent(
                prefix,
                model=PARENT_MODEL,
                api_key=KEY,
                base_url=emu.base_url,
                clock=emu.clock,
                delegator=d,
                store=store,
            )

        store = SessionStore(db)
        async with parent(store).session("tool") as s:
            await s.ask("first turn")
            await s.ask("Please review billing")
            before = list(s.ledger.subagents.results)
        store.close()
        assert len(before) == 1 and before[0].ok
        with SessionStore(db, read_only=True) as reader:
            assert [r["turn"] for r in reader.subagents("tool")] == [2]
        store = SessionStore(db)
        async with parent(store).resume("tool") as again:
            assert _figures(again.ledger.subagents.results) == _figures(before)
            assert again.resume_verified is True
        store.close()


async def test_sessions_list_and_show_count_the_subagents_cost(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sessions list` and the `show` header give the session's own cost, its subagents' cost
    and the total (what the session cost), not the own cost alone."""
    db = tmp_path / "sessions.sqlite"
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=SCRIPT) as emu:
        prefix = FrozenPrefix(
            system="Parent rules. " * 800, tools=Workspace(workspace).read_only_tools()
        )
        store = SessionStore(db)
        agent = Agent(
            prefix,
            model=PARENT_MODEL,
            api_key=KEY,
            base_url=emu.base_url,
            clock=emu.clock,
            delegator=SubagentDelegator(root=workspace),
            store=store,
        )
        async with agent.session("paid") as s:
            await s.ask("first turn")
            await s.delegate("REVIEW src/billing.py", agent="explorer")
            own, subs, total = s.ledger.cost, s.ledger.subagents.cost, s.ledger.total_cost
        store.close()
    assert own is not None and subs is not None and subs > 0 and total == own + subs

    assert main(["sessions", "--store", str(db), "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert Decimal(row["cost"]) == own
    assert Decimal(row["subagent_cost"]) == subs
    assert Decimal(row["total_cost"]) == total
    assert main(["sessions", "--store", str(db), "list"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    assert header.split()[-3:] == ["cost", "subagents", "total"]
    assert line.split()[-3:] == [f"${own:.4f}", f"${subs:.4f}", f"${total:.4f}"]
    assert main(["sessions", "--store", str(db), "show", "paid"]) == 0
    out = capsys.readouterr().out
    assert f"cost ${own:.4f} + subagents ${subs:.4f} = total ${total:.4f}" in out
    assert main(["sessions", "--store", str(db), "show", "paid", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert Decimal(shown["total_cost"]) == total
