"""A stream cut or failed mid-way on any wire API was billed: ledger rows == billed requests.

Over real HTTP on the emulator, with the fault injection of prefixlock.emulator.faults: half the
stream then a dropped connection (`cut`), or half the stream then an SSE error event
(`sse-error`). Anthropic's message_start carries the input-side usage; OpenAI Chat and
Responses report usage only at the end, so there the cut attempt's row is the guard's estimate,
flagged. Either way the guard saw what the attempt cached: the retry and the turns after it are
predicted exactly (no false "unexplained" CacheBreak). And the SDKs' stream generators are
closed where the attempt ends: no "aclose(): asynchronous generator is already running" at exit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock import Settings
from prefixlock.billing.usage import parse_usage
from prefixlock.events import CacheBreak, UsageReport
from prefixlock.store.database import SessionStore
from tests.helpers.guardkit import advance, agent, start_emulator, turn

ROOT = Path(__file__).resolve().parents[2]
MODELS = ["claude-opus-4-7", "gpt-5.4", "openai-responses:gpt-5.4"]


@pytest.mark.slow  # seconds per model: CI runs it in its slow step
@pytest.mark.parametrize("model", MODELS)
async def test_cut_and_failed_streams_are_ledgered_and_break_nothing(
    tmp_path: Path, model: str
) -> None:
    db = tmp_path / "s.sqlite"
    with start_emulator() as emu:
        a = agent(emu, model=model, store=SessionStore(db), settings=Settings(retries=2))
        breaks: list[CacheBreak] = []
        async with a.session("cut") as s:
            for i in range(8):
                emu.inject("cut" if i % 2 else "sse-error")
                events = await turn(s, f"Question {i}: what does f{i} do?")
                breaks += [e for e in events if isinstance(e, CacheBreak)]
                reports = [e for e in events if isinstance(e, UsageReport)]
                # Every request of the turn is reported; each completed one read what the
                # guard predicted, the cut attempt's cache writes included.
                assert all(r.predicted_read == r.usage.cache_read for r in reports)
                advance(emu, 60)  # below the emulator's per-key overflow rate
            rows = s.ledger.rows
        billed = [r for r in emu.requests if r.usage is not None]
        assert len(billed) == 8 * 3  # each turn: a cut attempt, its retry, the tool round
        assert len(rows) == len(billed)
        assert breaks == []
        abandoned = [r for r in rows if r.meta.get("kind") == "abandoned"]
        assert len(abandoned) == 8 and {r.meta["reason"] for r in abandoned} == {"retried"}
        estimated = not model.startswith("claude")
        assert all(r.meta.get("estimated", False) is estimated for r in abandoned)
        # The input side of each row is what the provider billed (estimated or reported).
        for row, rec in zip(rows, billed, strict=True):
            assert rec.usage is not None
            got = parse_usage(rec.api, rec.usage)
            assert (row.usage.cache_read, row.usage.input_total) == (
                got.cache_read,
                got.input_total,
            )
        with SessionStore(db, read_only=True) as store:
            assert len(store.usage_rows("cut")) == len(billed)


SCRIPT = """
import asyncio
from tests.helpers.guardkit import advance, agent, start_emulator, turn

async def main():
    with start_emulator() as emu:
        a = agent(emu, model={model!r})
        async with a.session() as s:
            for i in range(10):
                emu.inject("sse-error" if i % 2 else "cut")
                await turn(s, f"Question {{i}}")
                advance(emu, 60)

asyncio.run(main())
print("done")
"""


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
@pytest.mark.parametrize("model", ["openai-responses:gpt-5.4", "gpt-5.4"])
def test_no_aclose_traceback_at_exit_after_cut_streams(model: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(model=model)],
        cwd=ROOT,  # where `tests` imports
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "done"
    assert "already running" not in ran.stderr
    assert "Traceback" not in ran.stderr, ran.stderr
