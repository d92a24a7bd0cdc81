"""The margins over seed pairs that `prefixlock demo --versus peers --pairs N` prints: median,
10th percentile and worst, per event row and in total, and the pairs where prefixlock paid more
than 1% over the cheapest peer."""

from __future__ import annotations

import io
from decimal import Decimal

from rich.console import Console

from prefixlock.versus.report import VersusResult
from prefixlock.versus.run import Billed, ClientRun
from prefixlock.versus.scenario import IDLE, STEADY, Scenario, Turn, pair_seeds
from prefixlock.versus.spread import RowDollars, Summary, render_spread, spread


def _run(client: str, scenario: str, costs: dict[str, str]) -> ClientRun:
    rows = [Billed(i, e, Decimal(c), 0, 0, 0) for i, (e, c) in enumerate(costs.items())]
    return ClientRun(client, scenario, rows)


def test_percentiles_are_nearest_rank_and_the_worst_is_the_lowest_margin() -> None:
    s = Summary(tuple(Decimal(x) for x in ("1.5", "1.2", "0.98", "1.3", "1.1")))
    assert s.median == Decimal("1.2")
    assert s.p10 == Decimal("0.98") and s.worst == Decimal("0.98")
    assert s.losses == 1  # 0.98 is more than 1% dearer
    even = Summary((Decimal(1), Decimal(2)))
    assert even.median == Decimal("1.5")


def test_margins_per_pair_per_row_and_against_the_sdk_loop() -> None:
    sessions = [f"session-{n}" for n in pair_seeds(2)]
    assert sessions == ["session-1", "session-2", "session-3", "session-4"]
    scenarios = tuple(Scenario(n, (Turn(0, "a"), Turn(1, "b", IDLE, 600.0))) for n in sessions)
    # Pair 1: prefixlock 2.0 against the SDK loop's 3.0 (1h) and 4.0 (5m); LangChain 2.5.
    # Pair 2: prefixlock 2.0, dearer than LangChain's 1.8 on the idle row and in total.
    costs = {
        "prefixlock": [("1.0", "0.5")] * 2 + [("1.0", "0.5")] * 2,
        "anthropic-sdk": [("1.0", "1.0")] * 4,
        "anthropic-sdk-1h": [("1.2", "0.3")] * 4,
        "langchain": [("0.8", "0.45")] * 2 + [("0.7", "0.2")] * 2,
    }
    runs = [
        _run(c, s, {STEADY: a, IDLE: b})
        for c, rows in costs.items()
        for s, (a, b) in zip(sessions, rows, strict=True)
    ]
    result = VersusResult(scenarios, runs, {})
    out = spread(result, [sessions[:2], sessions[2:]])
    assert out.pairs == 2
    assert out.total is not None and out.sdk_loop is not None
    # Totals: ours 3.0 per pair; cheapest peer 2.5 (pair 1), 1.8 (pair 2).
    assert sorted(out.total.values) == [Decimal("1.8") / 3, Decimal("2.5") / 3]
    assert out.total.losses == 2
    # The SDK loop: min(4.0, 3.0) = 3.0 on both pairs: even.
    assert out.sdk_loop.values == (Decimal(1), Decimal(1))
    # The idle row: ours 1.0 a pair; cheapest peer 0.6 (1h loop) and 0.4 (LangChain).
    assert out.by_event[IDLE].worst == Decimal("0.4")
    # Each pair's rows in dollars (--json), with the peer that was cheapest on each.
    second = out.to_dict()["by_pair"][1]
    assert second["scenarios"] == ["session-3", "session-4"]
    assert second[IDLE] == {
        "prefixlock": "1.000000",
        "cheapest_peer": "0.400000",
        "peer": "langchain",
        "times_cheaper": "0.400",
        "peers": {
            "anthropic-sdk": "2.000000",
            "anthropic-sdk-1h": "0.600000",
            "langchain": "0.400000",
        },
        "prefixlock_keepalive": "0.000000",
    }
    assert second["total"]["peer"] == "langchain" and second["total"]["cheapest_peer"] == "1.800000"
    assert out.to_dict()["by_pair"][0][IDLE]["peer"] == "anthropic-sdk-1h"  # 0.6 against 0.9
    text = io.StringIO()
    render_spread(out, Console(file=text, width=100, color_system=None))
    printed = text.getvalue()
    assert "over 2 seed pairs" in printed
    assert "idle-gap row" in printed and "0.40x" in printed
    assert "total: cheapest peer" in printed and "total: SDK loop" in printed


def test_margins_against_each_peer_row_alone() -> None:
    """The cheapest peer row may be another peer on each pair: the spread also holds every peer
    row's margins alone, per event row and in total, in the table and in the JSON."""
    sessions = [f"session-{n}" for n in pair_seeds(3)]
    scenarios = tuple(Scenario(n, (Turn(0, "a"), Turn(1, "b", IDLE, 600.0))) for n in sessions)
    # (steady, idle) per session; each pair's two sessions cost the same.
    costs = {
        "prefixlock": [("1.0", "1.0")] * 6,
        "anthropic-sdk": [("1.0", "2.0")] * 6,
        # The 1h client: cheaper on the idle row of the first pair only.
        "anthropic-sdk-1h": [("1.5", "0.5")] * 2 + [("1.5", "1.0")] * 2 + [("1.5", "1.2")] * 2,
    }
    runs = [
        _run(c, s, {STEADY: a, IDLE: b})
        for c, rows in costs.items()
        for s, (a, b) in zip(sessions, rows, strict=True)
    ]
    # A keep-alive read in the first session's gap is booked to its idle row (part of the 1.0).
    runs[0].requests[1].ping = True
    out = spread(VersusResult(scenarios, runs, {}), [sessions[:2], sessions[2:4], sessions[4:]])
    idle = out.by_peer[IDLE]
    assert set(idle) == {"anthropic-sdk", "anthropic-sdk-1h"}
    assert idle["anthropic-sdk"].values == (Decimal(2),) * 3
    assert idle["anthropic-sdk-1h"].values == (Decimal("0.5"), Decimal(1), Decimal("1.2"))
    assert idle["anthropic-sdk-1h"].losses == 1 and idle["anthropic-sdk-1h"].worst == Decimal("0.5")
    # In total: ours 4.0 a pair, the 1h client's 4.0, 5.0 and 5.4.
    assert out.by_peer["total"]["anthropic-sdk-1h"].values == (
        Decimal(1),
        Decimal("1.25"),
        Decimal("1.35"),
    )
    data = out.to_dict()
    assert data["by_peer"][IDLE]["anthropic-sdk-1h"] == {
        "pairs": 3,
        "median": "1.000",
        "p10": "0.500",
        "worst": "0.500",
        "pairs_over_1pct_dearer": 1,
    }
    assert data["by_pair"][0][IDLE]["prefixlock_keepalive"] == "1.000000"
    assert data["by_pair"][0]["total"]["prefixlock_keepalive"] == "1.000000"
    assert data["by_pair"][1][IDLE]["prefixlock_keepalive"] == "0.000000"
    assert data["by_pair"][0][IDLE]["peers"] == {
        "anthropic-sdk": "4.000000",
        "anthropic-sdk-1h": "1.000000",
    }
    text = io.StringIO()
    render_spread(out, Console(file=text, width=120, color_system=None))
    printed = text.getvalue()
    assert "each peer row, over 3 seed pairs" in printed
    line = next(x for x in printed.splitlines() if "anthropic-sdk-1h" in x and "0.500x" in x)
    assert line.split()[-1] == "1"  # one pair over 1% dearer


def test_a_row_prefixlock_paid_nothing_on_reads_as_infinitely_cheaper_in_json() -> None:
    # The per-pair JSON row and the summaries share one margin: a peer paid, prefixlock did not.
    free = RowDollars(ours=Decimal(0), best=Decimal("0.25"), peer="langchain")
    assert free.to_dict()["times_cheaper"] == "Infinity"
    nobody = RowDollars(ours=Decimal(0), best=Decimal(0), peer="langchain")
    assert nobody.to_dict()["times_cheaper"] is None
    paid = RowDollars(ours=Decimal("0.2"), best=Decimal("0.25"), peer="langchain")
    assert paid.to_dict()["times_cheaper"] == "1.250"
    assert RowDollars(ours=Decimal(1), best=None, peer=None).to_dict()["times_cheaper"] is None
