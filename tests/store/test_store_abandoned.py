"""A stream the caller abandons (a break on the first text delta) was billed: it is counted.

Over real HTTP on the emulator, which bills a request as soon as its response starts (and
commits its cache writes then). Anthropic's message_start already carries the input-side usage;
OpenAI Chat Completions and Responses report usage only at the end of a stream, so there the
row holds the guard's predicted counters, flagged as an estimate. Either way: the ledger gets a
row of kind "abandoned" whose cost is what the emulator billed, the store gets the same row,
nothing enters the transcript, and the guard knows what the request cached, so the next request
is predicted exactly (no false CacheBreak).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from pathlib import Path

import pytest

from prefixlock import Settings
from prefixlock.billing.ledger import LedgerRow
from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import parse_usage
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, Rule, Script, Step
from prefixlock.events import CacheBreak, Event, TextDelta, UsageReport
from prefixlock.session import Session
from prefixlock.store.database import SessionStore
from tests.helpers.guardkit import advance, agent

# A one-chunk answer: the caller's first text delta is the whole output, so the output tokens
# counted locally are those the emulator billed, and the costs can be compared exactly.
SCRIPT = Script(rules=[Rule(match=".", steps=[Step(text="Short answer.")])])
MODELS = ["claude-opus-4-7", "gpt-5.4", "openai-responses:gpt-5.4"]


def _emulator() -> Emulator:
    return Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=SCRIPT)


async def _abandon(s: Session, text: str) -> None:
    async for event in s.send(text):
        if isinstance(event, TextDelta):
            break  # the generator is closed later, when collected: the next send settles it


async def _turn(s: Session, text: str) -> list[Event]:
    return [e async for e in s.send(text)]


def _billed(emu: Emulator, index: int) -> Decimal:
    """What the emulator billed for its `index`-th request (its usage as reported)."""
    rec = emu.requests[index]
    assert rec.usage is not None and rec.model is not None
    return PriceTable.default().require(rec.model).cost(parse_usage(rec.api, rec.usage))


def _row(r: LedgerRow) -> tuple[object, ...]:
    return (r.meta.get("kind", "turn"), r.usage, r.cost, r.predicted_read)


@pytest.mark.parametrize("model", MODELS)
async def test_an_abandoned_stream_is_ledgered_stored_and_seen_by_the_guard(
    tmp_path: Path, model: str
) -> None:
    db = tmp_path / "sessions.sqlite"
    with _emulator() as emu:
        a = agent(emu, model=model, store=SessionStore(db))
        async with a.session("gone") as s:
            await _abandon(s, "First question, abandoned.")
            advance(emu, 5)
            second = await _turn(s, "First question again.")
            advance(emu, 5)
            await _abandon(s, "Second question, abandoned mid-session.")
            advance(emu, 5)
            third = await _turn(s, "Second question again.")
            rows = s.ledger.rows
            # The transcript holds only the completed turns.
            assert [m.text for m in s.transcript] == [
                "First question again.",
                "Short answer.",
                "Second question again.",
                "Short answer.",
            ]
        assert len(emu.requests) == 4 and all(r.status == 200 for r in emu.requests)
        assert [r.meta.get("kind", "turn") for r in rows] == [
            "abandoned",
            "turn",
            "abandoned",
            "turn",
        ]
        for i, row in enumerate(rows):  # every request costs what the emulator billed
            assert row.cost == _billed(emu, i)
        assert s.ledger.cost == sum((_billed(emu, i) for i in range(4)), Decimal(0))
        estimated = not model.startswith("claude")  # OpenAI reports usage only at the end
        for row in (rows[0], rows[2]):
            assert row.meta.get("estimated", False) is estimated
            assert row.meta["reason"] == "stopped"
        for i in (0, 2):  # the counters equal the billed ones (raw usage is not compared)
            rec = emu.requests[i]
            assert rec.usage is not None
            assert rows[i].usage == parse_usage(rec.api, rec.usage)
        # The guard saw the abandoned requests: the next ones read what they predicted. Each
        # next send reports the abandoned request first (what a panel adds up), then its own.
        for events, abandoned in ((second, rows[0]), (third, rows[2])):
            assert not [e for e in events if isinstance(e, CacheBreak)]
            early, report = [e for e in events if isinstance(e, UsageReport)]
            assert (early.request, early.usage, early.cost) == (
                abandoned.seq,
                abandoned.usage,
                abandoned.cost,
            )
            assert report.predicted_read == report.usage.cache_read
        assert rows[1].usage.cache_read > 0  # it did read what the abandoned request wrote
        with SessionStore(db) as store:
            stored = store.usage_rows("gone")
            assert [(r.kind, r.usage, r.cost, r.predicted_read) for r in stored] == [
                _row(r) for r in rows
            ]
            assert store.session("gone").cost == s.ledger.cost


async def test_aclose_after_a_break_ledgers_the_request_at_once(tmp_path: Path) -> None:
    with _emulator() as emu:
        a = agent(emu, store=SessionStore(tmp_path / "s.sqlite"))
        async with a.session() as s:
            stream = s.send("Abandoned.")
            async for event in stream:
                if isinstance(event, TextDelta):
                    break
            await stream.aclose()
            (row,) = s.ledger.rows
            assert row.meta == {"kind": "abandoned", "reason": "stopped"}
            assert row.cost == _billed(emu, 0) and s.ledger.hit_rate == 0.0
            assert len(s.transcript) == 0 and s.requests == []
            advance(emu, 5)
            events = await _turn(s, "Again.")
        early, report = [e for e in events if isinstance(e, UsageReport)]
        assert early.cost == row.cost and early.usage.raw["prefixlock_partial"] == "stopped"
        assert report.usage.cache_read > 0 and report.predicted_read == report.usage.cache_read
        billed = sum((_billed(emu, i) for i in range(2)), Decimal(0))
        assert s.ledger.cost == billed


async def test_a_session_closed_after_a_break_ledgers_and_stores_it(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    with _emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("closed") as s:
            await _abandon(s, "Abandoned, then the session closes.")
        assert len(s.ledger) == 1 and s.ledger.cost == _billed(emu, 0)
        with SessionStore(db) as store:
            assert [r.kind for r in store.usage_rows("closed")] == ["abandoned"]


async def test_a_resumed_session_after_an_abandoned_turn_rebuilds_its_last_request(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.sqlite"
    with _emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("later") as s:
            await _turn(s, "Completed.")
            advance(emu, 5)
            await _abandon(s, "Abandoned.")
            advance(emu, 5)
        cost = s.ledger.cost
        async with a.resume("later") as again:
            assert again.resume_verified is True  # the abandoned request is not "the last"
            assert again.ledger.cost == cost and len(again.ledger) == 2
            events = await _turn(again, "Resumed.")
        assert not [e for e in events if isinstance(e, CacheBreak)]


async def test_a_cut_stream_that_is_retried_counts_both_billed_attempts(tmp_path: Path) -> None:
    with _emulator() as emu:
        a = agent(emu, store=SessionStore(tmp_path / "s.sqlite"), settings=Settings(retries=1))
        async with a.session() as s:
            emu.inject("cut")  # the first attempt's stream stops half-way (message_start sent)
            events = await _turn(s, "Cut once, then answered.")
        assert [m.text for m in s.transcript] == ["Cut once, then answered.", "Short answer."]
        assert [(r.meta.get("kind", "turn"), r.meta.get("reason")) for r in s.ledger.rows] == [
            ("abandoned", "retried"),
            ("turn", None),
        ]
        assert len(emu.requests) == 2
        # The stream was cut before any text: the input side is the provider's, the output
        # what message_start said (its placeholder 1), where the emulator billed the whole
        # answer it never delivered.
        cut = s.ledger.rows[0]
        billed = parse_usage("anthropic", emu.requests[0].usage or {})
        assert cut.usage == dataclasses.replace(billed, output=1)
        price = PriceTable.default().require("claude-opus-4-7")
        assert cut.cost == price.cost(cut.usage)
        assert cut.cost == _billed(emu, 0) - price.output * (billed.output - 1) / 1_000_000
        assert s.ledger.rows[1].cost == _billed(emu, 1)
        # The retry read what the cut attempt wrote, as the guard predicted after seeing it.
        first, retry = [e for e in events if isinstance(e, UsageReport)]
        assert first.cost == s.ledger.rows[0].cost
        assert retry.usage.cache_read > 0 and retry.predicted_read == retry.usage.cache_read
        assert not [e for e in events if isinstance(e, CacheBreak)]
