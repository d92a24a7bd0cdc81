"""The trace report on the emulator's recording of the demo's naive client names every cache
break it caused, with dollars; prefixlock's own run shows only its priced model switch.

A short demo session (the first 6 user turns of the built-in one, 22 requests each, the model
switch before turn 4) shows all of the naive client's habits in about 3 s; `prefixlock demo`
runs all 32 turns.
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.policies.report import build_report, render_text
from prefixlock.policies.tracecheck import check_trace

TURNS = 6
SWITCH_AT = 3  # sonnet before this user turn, haiku from it on
# Dollars per million tokens re-billed: the uncached input price minus the cache-read price
# (the naive client sets no breakpoint, so what it re-sends is billed as plain input), from
# docs/providers.md#anthropic-prices: sonnet 4.6 $3 - $0.30, haiku 4.5 $1 - $0.10.
LOSS_PER_MTOK = {"claude-sonnet-4-6": Decimal("2.70"), "claude-haiku-4-5": Decimal("0.90")}


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from prefixlock.cli.demo import run_demo, write_traces
    from prefixlock.emulator import BUILTIN_PROMPTS

    out = tmp_path_factory.mktemp("demo")
    write_traces(run_demo(prompts=BUILTIN_PROMPTS[:TURNS], switch_at=SWITCH_AT), out)
    return out


def test_report_names_every_naive_break_with_dollars(traces: Path) -> None:
    prices = PriceTable.builtin()
    path = traces / "naive-cache-aware.jsonl"
    recorded = [json.loads(line) for line in path.read_text().splitlines()]
    rep = build_report(str(path), prices)
    (session,) = rep.sessions
    assert session.requests == len(recorded) == 22
    # What the emulator reported: the naive client never read anything from the cache.
    assert all(r["usage"]["cache_read"] == 0 for r in recorded)
    models = [r["model"] for r in recorded]
    assert models.index("claude-haiku-4-5") == 11  # the switch, mid-session

    # Every request after the first broke the cache, and the break is booked with its price.
    broken = {b.seq for b in session.breaks}
    assert broken == set(range(1, session.requests))
    causes = {b.cause for b in session.breaks}
    assert causes == {"tools changed", "model changed", "no breakpoint"}
    assert [b.seq for b in session.breaks if b.cause == "model changed"] == [11]
    details = " ".join(b.detail for b in session.breaks)
    assert "same tools in a different order" in details
    assert "system prompt changed" in details  # the clock in the system prompt

    # Hand check: each request re-bills all the previous request sent (nothing was readable),
    # at its own model's uncached price instead of its read price.
    tokens: dict[int, int] = defaultdict(int)
    for b in session.breaks:
        tokens[b.seq] += b.rebilled_tokens
        rate = LOSS_PER_MTOK[models[b.seq]]
        assert b.dollars == (b.rebilled_tokens * rate / 1_000_000).quantize(Decimal("0.000001"))
    for seq in range(1, len(recorded)):
        previous = recorded[seq - 1]["usage"]
        assert tokens[seq] == previous["uncached_input"] > 20_000
    hand = sum(
        (
            Decimal(recorded[seq - 1]["usage"]["uncached_input"])
            * LOSS_PER_MTOK[models[seq]]
            / 1_000_000
            for seq in range(1, len(recorded))
        ),
        Decimal(0),
    )
    assert abs(session.dollars - hand) <= Decimal("0.000001") * len(session.breaks)
    assert session.dollars > Decimal("0.85")

    text = render_text(rep)
    assert "model changed" in text and "no breakpoint" in text
    assert f"${session.dollars:.4f}" in text

    ours = build_report(str(traces / "prefixlock-cache-aware.jsonl"), prices).sessions[0]
    assert [b.cause for b in ours.breaks] == ["model changed"]
    assert ours.dollars < session.dollars / 10


def test_lint_names_the_naive_clients_habits(traces: Path) -> None:
    found = check_trace(str(traces / "naive-cache-aware.jsonl"), PriceTable.builtin())
    assert {f.code for f in found} == {"PL406", "PL501", "PL502", "PL503"}
    system = next(f for f in found if f.code == "PL502")
    assert "looks like a time of day" in system.message


def test_static_lint_finds_the_naive_clients_habits_in_the_demo_source() -> None:
    """The same habits, found in the demo's source before any request is sent."""
    import inspect

    import prefixlock.cli.demo as demo
    from prefixlock.policies.engine import lint_source

    src = inspect.getsource(demo)
    start = src.index("def _run_naive")
    first = src[:start].count("\n") + 1
    last = first + inspect.getsource(demo._run_naive).count("\n")
    found = [f for f in lint_source(src, "demo.py", "claude-sonnet-4-6") if first <= f.line <= last]
    codes = {f.code for f in found}
    assert {"PL101", "PL201"} <= codes, found  # time in the system prompt, shuffled tools
