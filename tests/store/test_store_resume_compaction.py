"""Resuming a session whose last event moved it to a new prefix (a compaction, a tool change)
before anything was sent on it: the guard learns what the cache holds from the last request the
provider saw (the compaction's summary request, or the last one on the old prefix), as the live
session knew it, so the first request after the resume is predicted as it would have been
without the stop: what the new prefix shares with it is a hit while within its TTL, and a miss
after. Before, the resumed guard knew nothing and predicted 0 (a full miss) for that request.

Sessions run on the emulator with the SQLite store; the live session and its resumed twin run
the same turns and send the same request, so their predictions and the provider's reads must
agree."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from prefixlock.billing.usage import Usage
from prefixlock.events import CacheBreak, UsageReport
from prefixlock.guard.compaction import SummaryPlacement
from prefixlock.store.database import SessionStore
from prefixlock.store.reads import EARLIER_HORIZON_S, EARLIER_MAX
from prefixlock.store.records import NewRequest
from tests.helpers.guardkit import (
    advance,
    agent,
    grep,
    of,
    read_file,
    run_turns,
    start_emulator,
    turn,
)

Move = Literal["compact-system", "compact-messages", "tools"]


Outcome = tuple[int, int | None, bool | None, float | None, list[str]]


async def _next_turn(
    tmp_path: Path, model: str, move: Move, *, resume: bool, wait: float = 20.0
) -> Outcome:
    """Three turns, the move, `wait` seconds, then one turn, live or after a resume: (tokens
    read, tokens predicted, resume_verified, next keep-alive ping due, the guard's breaks)."""
    db = str(tmp_path / f"{model}-{move}-{resume}.sqlite")
    with start_emulator() as emu:
        async with agent(emu, model=model, store=SessionStore(db)).session("s") as s:
            await run_turns(emu, s, 3)
            if move == "tools":
                s.change_tools(add=[grep], policy="allow")
            else:
                placement: SummaryPlacement = "system" if move == "compact-system" else "messages"
                await s.compact(policy="allow", placement=placement)
            advance(emu, wait)
            if not resume:
                events = await turn(s, "Go on.")
                verified, ping_at = s.resume_verified, None
        if resume:
            async with agent(emu, model=model, store=SessionStore(db)).resume("s") as again:
                assert again.prefix.fingerprint == s.prefix.fingerprint
                again.enable_keepalive()
                ping_at = again.pings.next_ping_at()  # nothing worth keeping warm yet, as live
                events = await turn(again, "Go on.")
                verified = again.resume_verified
    report = of(events, UsageReport)[0]
    breaks = [b.cause for b in of(events, CacheBreak)]
    return report.usage.cache_read, report.predicted_read, verified, ping_at, breaks


@pytest.mark.parametrize("model", ["claude-opus-4-7", "gpt-5.4", "deepseek-v4-flash"])
@pytest.mark.parametrize("move", ["compact-system", "compact-messages"])
async def test_first_request_after_a_stored_compaction_is_predicted_as_live(
    tmp_path: Path, model: str, move: Move
) -> None:
    live_read, live_predicted, _, _, _ = await _next_turn(tmp_path, model, move, resume=False)
    read, predicted, verified, ping_at, breaks = await _next_turn(
        tmp_path, model, move, resume=True
    )
    assert read == live_read and live_predicted == live_read
    assert breaks == []  # the planned move is no miss, resumed or not
    if move == "compact-messages" or model != "deepseek-v4-flash":
        assert read > 0  # the compacted prefix shares the tools (and system) with the summary
    assert predicted == read  # was 0
    assert verified is None  # nothing was sent on the new prefix: no request to rebuild
    assert ping_at is None


async def test_a_stored_tool_change_is_predicted_as_live(tmp_path: Path) -> None:
    live = await _next_turn(tmp_path, "gpt-5.4", "tools", resume=False)
    read, predicted, _, ping_at, breaks = await _next_turn(
        tmp_path, "gpt-5.4", "tools", resume=True
    )
    assert read == live[0] == live[1] == predicted  # tools come first: nothing is read
    assert breaks == live[4] == ["tools"]  # the guard names the change, as it did live
    assert ping_at is None  # the old prefix is not kept warm, as live


async def test_past_the_ttl_the_resumed_prediction_is_a_miss(tmp_path: Path) -> None:
    read, predicted, _, _, _ = await _next_turn(
        tmp_path, "claude-opus-4-7", "compact-system", resume=True, wait=301.0
    )
    assert read == predicted == 0  # Anthropic's 5-minute entries expired while stopped


async def test_a_turn_sent_after_the_compaction_is_what_the_resume_extends(
    tmp_path: Path,
) -> None:
    """The compacted prefix's first request was sent and stored before the stop: the resume
    rebuilds it byte for byte and the next request reads through it."""
    db = str(tmp_path / "after.sqlite")
    with start_emulator() as emu:
        async with agent(emu, store=SessionStore(db)).session("s") as s:
            await run_turns(emu, s, 3)
            await s.compact(policy="allow")
            await turn(s, "Continue: what is left to do?")
            advance(emu, 20)
        async with agent(emu, store=SessionStore(db)).resume("s") as again:
            events = await turn(again, "Go on.")
            assert again.resume_verified is True
    report = of(events, UsageReport)[0]
    assert report.usage.cache_read == report.predicted_read > 0
    assert read_file.spec.name in [t.name for t in again.prefix.tools]


def test_the_store_hands_back_the_requests_that_may_still_hold_entries(tmp_path: Path) -> None:
    """Only while the current epoch has sent nothing; pings included (they refresh entries);
    within the longest TTL of any provider before the last of them, at most EARLIER_MAX."""
    body = {
        "model": "claude-opus-4-7",
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "hi"}],
    }

    def req(kind: str, t: float) -> NewRequest:
        return NewRequest(
            kind,
            t,
            "anthropic",
            "anthropic",
            "claude-opus-4-7",
            "/v1/messages",
            body,
            Usage(10, 0, 0, 0, 1),
        )

    with SessionStore(tmp_path / "s.sqlite") as store:
        store.create_session(
            "s",
            model="claude-opus-4-7",
            api="anthropic",
            provider="anthropic",
            prefix={"system": "", "tools": []},
            prefix_fingerprint="p0",
            created=0.0,
        )
        times = [0.0, 50_000.0, 90_000.0]
        store.record_turn(
            "s",
            requests=[req("turn", t) for t in times],
            messages=[],
            first_index=0,
            model="claude-opus-4-7",
            time=times[-1],
        )
        store.record_request("s", req("ping", 95_000.0))
        store.new_epoch(
            "s",
            prefix={"system": "", "tools": []},
            prefix_fingerprint="p1",
            messages=[],
            model="claude-opus-4-7",
            time=100_000.0,
            requests=[req("summary", 100_000.0)],
        )
        loaded = store.load("s")
        assert loaded.last_request is None
        window = [(r.kind, r.time) for r in loaded.earlier_requests]
        assert 100_000.0 - EARLIER_HORIZON_S > 0.0  # the first request is past the horizon
        assert window == [
            ("turn", 50_000.0),
            ("turn", 90_000.0),
            ("ping", 95_000.0),
            ("summary", 100_000.0),
        ]
        store.record_turn(
            "s",
            requests=[req("turn", 100_100.0)],
            messages=[],
            first_index=0,
            model="claude-opus-4-7",
            time=100_100.0,
        )
        again = store.load("s")
        assert again.last_request is not None and again.earlier_requests == []
        store.new_epoch(
            "s",
            prefix={"system": "", "tools": []},
            prefix_fingerprint="p2",
            messages=[],
            model="claude-opus-4-7",
            time=100_200.0,
            requests=[req("turn", 100_000.0 + i) for i in range(EARLIER_MAX)],
        )
        assert len(store.load("s").earlier_requests) == EARLIER_MAX
