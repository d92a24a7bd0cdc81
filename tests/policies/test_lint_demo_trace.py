"""The trace report on the emulator's recording of the demo's naive client names every cache
break it caused, with dollars; prefixlock's own run shows only its priced model switch."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from harness.prices import PriceTable
from policies.report import build_report, render_text
from policies.tracecheck import check_trace


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.demo import run_demo, write_traces

    out = tmp_path_factory.mktemp("demo")
    write_traces(run_demo(), out)
    return out


def test_report_names_every_naive_break_with_dollars(traces: Path) -> None:
    prices = PriceTable.builtin()
    rep = build_report(str(traces / "naive-cache-aware.jsonl"), prices)
    (session,) = rep.sessions
    assert session.requests > 20
    # Every request after the first broke the cache, and the break is booked with its price.
    broken = {b.seq for b in session.breaks}
    assert broken == set(range(1, session.requests))
    causes = {b.cause for b in session.breaks}
    assert {"tools changed", "model changed", "no breakpoint"} <= causes
    details = " ".join(b.detail for b in session.breaks)
    assert "same tools in a different order" in details
    assert "system prompt changed" in details  # the clock in the system prompt
    assert all(b.dollars is not None and b.dollars >= 0 for b in session.breaks)
    assert session.dollars > Decimal("0.5")
    text = render_text(rep)
    assert "model changed" in text and "$" in text

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

    import harness.demo as demo
    from policies.engine import lint_source

    src = inspect.getsource(demo)
    start = src.index("def _run_naive")
    first = src[:start].count("\n") + 1
    last = first + inspect.getsource(demo._run_naive).count("\n")
    found = [f for f in lint_source(src, "demo.py", "claude-sonnet-4-6")
             if first <= f.line <= last]
    codes = {f.code for f in found}
    assert {"PL101", "PL201"} <= codes, found  # time in the system prompt, shuffled tools
