"""A resumed session's ledger answers for the whole stored session, and restoring it is fast."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from prefixlock.agent import Agent
from prefixlock.billing.usage import Usage
from prefixlock.clock import ManualClock
from prefixlock.events import KeepAlivePing
from prefixlock.store.database import SessionStore
from prefixlock.store.records import NewRequest
from prefixlock.transcript import Message, text_block
from tests.helpers.guardkit import agent, of, prefix, run_turns, start_emulator, turn


async def test_resumed_ledger_holds_the_whole_session(tmp_path: Path) -> None:
    db = str(tmp_path / "sessions.sqlite")
    with start_emulator() as emu:
        store = SessionStore(db)
        async with agent(emu, store=store).session("whole") as s:
            await run_turns(emu, s, 5)
            s.enable_keepalive()
            clock = emu.clock
            assert isinstance(clock, ManualClock)
            clock.advance(250)  # near the 5-minute expiry: a ping is due
            assert len(of(await s.keepalive_tick(), KeepAlivePing)) == 1
            before = s.ledger
        store.close()
        assert before.hit_rate > 0.5 and len(before) == 11
        assert before.cost is not None

        store = SessionStore(db)
        async with agent(emu, store=store).resume("whole") as again:
            led = again.ledger
            assert len(led) == len(before)
            assert [r.seq for r in led] == list(range(len(before)))
            assert [r.usage.to_dict() for r in led] == [r.usage.to_dict() for r in before]
            assert [r.model for r in led] == [r.model for r in before]
            assert [r.time for r in led] == [r.time for r in before]
            assert led.hit_rate == before.hit_rate
            assert led.cost == before.cost and led.cost is not None
            assert led.cost_without_cache == before.cost_without_cache
            assert led.saved == before.saved and led.saved is not None and led.saved > 0
            assert [r.meta.get("kind") for r in led][-1] == "ping"
            # New requests append to the restored rows.
            await turn(again, "Turn 6: look at src/app.py and tell me what f6 does.")
            assert len(again.ledger) == len(before) + 2
            assert again.ledger.rows[-1].seq == len(before) + 1
            assert again.ledger.rows[-2].usage.cache_read > 0
            assert again.ledger.cost is not None and again.ledger.cost > before.cost
        store.close()


def _fill(store: SessionStore, sid: str, turns: int) -> None:
    """A long stored session written straight through the store API (no emulator needed)."""
    pfx = prefix()
    store.create_session(
        sid,
        model="claude-opus-4-7",
        api="anthropic",
        provider="anthropic",
        prefix=pfx.to_dict(),
        prefix_fingerprint=pfx.fingerprint,
        created=0.0,
    )
    messages: list[dict[str, object]] = []
    for t in range(1, turns + 1):
        new = [
            Message.user([text_block(f"Turn {t}: what does f{t} do? " * 5)]).to_dict(),
            Message.assistant(f"f{t} returns early when the list is empty. " * 5).to_dict(),
        ]
        body = {
            "model": "claude-opus-4-7",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "rules"}],
            "messages": [*messages, new[0]],
        }
        usage = Usage(uncached_input=10, cache_read=1000 * t, cache_write_5m=60, output=40)
        store.record_turn(
            sid,
            requests=[
                NewRequest(
                    "turn",
                    float(t),
                    "anthropic",
                    "anthropic",
                    "claude-opus-4-7",
                    "/v1/messages",
                    body,
                    usage,
                )
            ],
            messages=new,
            first_index=len(messages),
            model="claude-opus-4-7",
            time=float(t),
        )
        messages.extend(new)


@pytest.mark.slow  # 500 stored turns, seconds: CI runs it in its slow step
def test_usage_rows_of_a_500_turn_session_are_fast(tmp_path: Path) -> None:
    db = str(tmp_path / "long.sqlite")
    with SessionStore(db) as store:
        _fill(store, "long", 500)
    with SessionStore(db, read_only=True) as store:
        # Fast by construction, not by a stopwatch (timings flake on a loaded machine): the
        # rows come from one query on the requests table, no body is rebuilt from its blobs.
        queries: list[str] = []
        store._db.set_trace_callback(queries.append)
        rows = store.usage_rows("long")
        store._db.set_trace_callback(None)
        assert len(rows) == 500 and rows[-1].usage.cache_read == 500_000
        assert not any("blobs" in q for q in queries) and len(queries) <= 3
    # The whole resume (prefix, transcript, last body, ledger) stays well under a second.
    a = Agent(
        prefix(),
        model="claude-opus-4-7",
        api_key="test-key",
        base_url="http://127.0.0.1:9",
        clock=ManualClock(600.0),
        store=SessionStore(db),
    )
    t0 = time.perf_counter()
    s = a.resume("long")
    took = time.perf_counter() - t0
    assert len(s.ledger) == 500 and s.turn == 500 and len(s.transcript) == 1000
    assert s.ledger.usage.cache_read == sum(1000 * t for t in range(1, 501))
    assert took < 10.0, f"resume took {took:.3f}s"  # ~0.1 s here: only a runaway fails


async def test_keepalive_cap_counts_the_resumed_sessions_earlier_pings(tmp_path: Path) -> None:
    """The spend cap is for the whole session: a resumed session's restored ping rows count."""
    db = str(tmp_path / "sessions.sqlite")
    with start_emulator() as emu:
        clock = emu.clock
        assert isinstance(clock, ManualClock)
        store = SessionStore(db)
        async with agent(emu, store=store).session("pinged") as s:
            await run_turns(emu, s, 3)
            s.enable_keepalive()
            clock.advance(250)  # near the 5-minute expiry: a ping is due
            (first,) = of(await s.keepalive_tick(), KeepAlivePing)
        store.close()
        assert first.cost is not None and first.cost > 0
        cap = first.cost * 3 / 2  # room for one more ping of about the same cost, not for two

        store = SessionStore(db)
        async with agent(emu, store=store).resume("pinged") as again:
            ka = again.enable_keepalive(cap)
            assert (ka.pings, ka.spent, ka.read_tokens) == (1, first.cost, first.read_tokens)
            await turn(again, "Turn 4: look at src/app.py and tell me what f4 does.")
            clock.advance(280)  # due: 20 s before the turn's cache write expires
            assert of(await again.keepalive_tick(), KeepAlivePing) == []  # over the cap
            assert ka.stopped == "cap" and ka.spent == first.cost
            assert sum(1 for r in again.ledger if r.meta.get("kind") == "ping") == 1
        store.close()
