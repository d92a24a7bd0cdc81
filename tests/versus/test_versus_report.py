"""The per-event report: totals, the cheapest peer as baseline, and the event types on which a
prefixlock row paid more than the cheapest peer did."""

from __future__ import annotations

from decimal import Decimal

from prefixlock.versus.report import VersusResult
from prefixlock.versus.run import Billed, ClientRun
from prefixlock.versus.scenario import COMPACT, IDLE, MCP, STEADY, Scenario, Turn


def _run(client: str, costs: dict[str, str]) -> ClientRun:
    rows = [Billed(i, e, Decimal(c), 0, 0, 0) for i, (e, c) in enumerate(costs.items())]
    return ClientRun(client, "s", rows)


def test_margin_against_the_cheapest_peer_and_the_events_paid_more() -> None:
    sc = Scenario("s", (Turn(0, "a"), Turn(1, "b", IDLE, 600.0), Turn(2, "c", MCP)))
    result = VersusResult(
        (sc,),
        [
            _run("prefixlock", {STEADY: "1.10", IDLE: "0.20", MCP: "0.10"}),
            _run("a-peer", {STEADY: "1.00", IDLE: "1.00", MCP: "0.50"}),
            _run("b-peer", {STEADY: "1.05", IDLE: "0.90", MCP: "0.40"}),
        ],
        {},
    )
    assert result.peers() == ["a-peer", "b-peer"]
    assert result.best_peer() == "b-peer"  # 2.35 against 2.50
    assert result.margin() == Decimal("2.35") / Decimal("1.40")
    assert result.worse_events() == [STEADY]  # 1.10 against a-peer's 1.00
    assert result.event_counts()[IDLE] == 1
    data = result.to_dict()
    assert data["times_cheaper_than_best_peer"] == {"prefixlock": "1.68"}
    assert data["events_where_paid_more_than_best_peer"] == {"prefixlock": [STEADY]}


def test_the_table_fits_80_columns_with_six_clients_and_the_legend_names_them() -> None:
    import io

    from rich.console import Console

    from prefixlock.versus.report import render, short_names

    sc = Scenario("s", (Turn(0, "a"), Turn(1, "b", IDLE, 600.0), Turn(2, "c", MCP)))
    clients = [
        "prefixlock",
        "prefixlock-pings",
        "openai-sdk",
        "openai-agents",
        "pydantic-ai-openai",
        "langchain-openai",
    ]
    costs = {STEADY: "12.3456", IDLE: "0.20", MCP: "0.10"}
    result = VersusResult(
        (sc,), [_run(c, costs) for c in clients], {c: f"config of {c}" for c in clients}
    )
    out = io.StringIO()
    render(result, Console(file=out, width=80, color_system=None))
    lines = out.getvalue().splitlines()
    assert max(len(ln) for ln in lines) <= 80
    short = short_names(clients)
    assert len(set(short.values())) == len(clients)
    header = next(ln for ln in lines if ln.split()[:2] == ["event", "turns"])
    assert header.split()[2:] == [short[c] for c in clients]  # no header cut or wrapped
    for c in clients:
        assert f"{short[c]} = {c}: config of {c}" in out.getvalue()
    assert "12.3456" in out.getvalue()
    data = result.to_dict()
    assert data["provider"] == "anthropic" and data["models"] == ["claude-sonnet-4-6"]
    assert set(data["clients"]) == set(clients)  # --json keeps the whole names
    # Clashing short names stay unique; an unknown client keeps its first 8 characters.
    assert short_names(["pydantic-ai", "pydantic-ai-openai", "crewai-tools"]) == {
        "pydantic-ai": "pyd-ai",
        "pydantic-ai-openai": "pyd-ai2",
        "crewai-tools": "crewai-t",
    }


def test_the_compaction_row_is_compared_with_the_peers_that_compact() -> None:
    """A peer that never compacts keeps the whole history: its compaction-row turns carry no
    summary, and it pays for the longer context in the later rows instead."""
    sc = Scenario("s", (Turn(0, "a"), Turn(1, "b", COMPACT)))
    ours = _run("prefixlock", {STEADY: "1.00", COMPACT: "0.30"})
    ours.compacted = [1]
    compacting = _run("langchain", {STEADY: "1.20", COMPACT: "0.35"})
    compacting.compacted = [1]
    keeps_all = _run("anthropic-sdk", {STEADY: "1.40", COMPACT: "0.20"})
    result = VersusResult((sc,), [ours, compacting, keeps_all], {})
    assert result.compacts("langchain") and not result.compacts("anthropic-sdk")
    assert result.worse_events() == []
    cheaper = _run("langchain", {STEADY: "1.20", COMPACT: "0.25"})
    cheaper.compacted = [1]
    result = VersusResult((sc,), [ours, cheaper, keeps_all], {})
    assert result.worse_events() == [COMPACT]
    assert result.to_dict()["clients"]["anthropic-sdk"]["compacts"] is False
