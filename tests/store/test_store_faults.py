"""A turn a provider fault (or the caller) stops half-way: the store keeps what was billed.

The scripted turn makes a tool call (one request, billed), then its follow-up request fails.
The live session holds that first request in its ledger and its messages in the transcript; the
store must hold the same, so the stored ledger equals the live one and a resumed session
continues from the same messages (the unanswered tool call gets an error result, as live).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Literal

import pytest

from prefixlock import Settings
from prefixlock.errors import ProviderError
from prefixlock.events import TextDelta, ToolCall
from prefixlock.store.database import SessionStore
from tests.helpers.guardkit import agent, start_emulator, turn


def _stored_cost(store: SessionStore, sid: str) -> Decimal:
    return sum((r.cost or Decimal(0) for r in store.usage_rows(sid)), Decimal(0))


@pytest.mark.parametrize("kind", ["429", "500", "cut"])
async def test_a_fault_mid_turn_stores_the_requests_it_billed(
    tmp_path: Path, kind: Literal["429", "500", "cut"]
) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db), settings=Settings(retries=0))
        async with a.session("faulty") as s:
            await turn(s, "Turn 1: read src/app.py.")
            emu.inject(kind, after=1)  # turn 2's tool call succeeds, its follow-up fails
            with pytest.raises(ProviderError):
                await turn(s, "Turn 2: read src/app.py again.")
            live_rows, live_cost, live_msgs = len(s.ledger.rows), s.ledger.cost, len(s.transcript)
        # The cut stream had reported its usage (the emulator billed it): kind "abandoned".
        assert live_rows == (4 if kind == "cut" else 3) and live_msgs == 6
        store = SessionStore(db)
        assert len(list(store.requests("faulty"))) == live_rows
        assert _stored_cost(store, "faulty") == live_cost
        emu.clear_faults()
        async with a.resume("faulty") as again:
            assert len(again.transcript) == live_msgs
            assert again.ledger.cost == live_cost
            await turn(again, "Turn 3: and now?")  # the dangling tool call is answered
        store.close()


async def test_a_turn_the_caller_abandons_after_a_tool_call_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("left") as s:
            stream = s.send("Turn 1: read src/app.py.")
            async for event in stream:
                if isinstance(event, ToolCall):
                    break
            await stream.aclose()
            assert len(s.ledger.rows) == 1
        with SessionStore(db) as store:
            assert len(list(store.requests("left"))) == 1
            assert len(store.load("left").messages) == len(s.transcript) == 2


async def test_a_turn_stopped_before_its_reply_stores_only_the_billed_request(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("early") as s:
            await turn(s, "Turn 1: read src/app.py.")
            stream = s.send("Turn 2: again.")
            async for event in stream:
                if isinstance(event, TextDelta):
                    break
            await stream.aclose()
        with SessionStore(db) as store:
            # The stopped request was billed: stored as "abandoned", with no message.
            assert store.session("early").turns == 2
            assert [r.kind for r in store.requests("early")] == ["turn", "turn", "abandoned"]
            assert len(store.load("early").messages) == len(s.transcript) == 4
