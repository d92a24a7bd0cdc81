"""`Session.keep_request_bodies`: a long session keeps the body of its newest requests only
(each body holds the whole conversation so far); the older ones keep their record, reading
their body is a clear error, and the store still has every body byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock import StaleQuote
from prefixlock.canonical import canonical_bytes
from prefixlock.errors import UserError
from prefixlock.released_bodies import BodyReleased, released
from prefixlock.store.database import SessionStore
from tests.helpers.guardkit import advance, agent, start_emulator


async def test_older_bodies_are_released_and_the_store_keeps_them(tmp_path: Path) -> None:
    db = str(tmp_path / "s.sqlite")
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("s1") as s:
            s.keep_request_bodies = 3
            for i in range(6):
                async for _ in s.send(f"Turn {i}: what does f{i} do?"):
                    pass
                advance(emu, 10)
            requests = list(s.requests)
            sent = [r.body for r in emu.requests if r.api == "anthropic"]
    assert len(requests) == len(sent) >= 6  # every request keeps its record
    assert [released(r) for r in requests] == [True] * (len(requests) - 3) + [False] * 3
    old = requests[0]
    with pytest.raises(BodyReleased, match="keep_request_bodies"):
        _ = old.body["messages"]
    assert old.input_tokens > 0 and old.model == requests[-1].model
    with SessionStore(db, read_only=True) as store:
        stored = [r.body for r in store.requests("s1")]
    assert [canonical_bytes(b) for b in stored] == [canonical_bytes(b) for b in sent]
    assert canonical_bytes(requests[-1].body) == canonical_bytes(sent[-1])


async def test_the_bound_is_a_whole_number_of_at_least_one() -> None:
    with start_emulator() as emu:
        async with agent(emu).session("s2") as s:
            for bad in (0, -1, 2.5, True):
                with pytest.raises(UserError, match="keep_request_bodies"):
                    s.keep_request_bodies = bad  # type: ignore[assignment]
            assert s.keep_request_bodies is None  # the default: every body kept


async def test_the_sessions_own_features_read_only_the_newest_body(tmp_path: Path) -> None:
    """What reads a request's body inside the SDK (the guard's quotes, compaction, keep-alive,
    the turn-end write, resume) reads the newest one, or the store: a session keeping a single
    body quotes, compacts and resumes as one keeping all. So the bound is safe to set; the
    default stays None because nothing else holds the bodies of a session without a store,
    and a script reading `s.requests[i].body` gets them."""
    db = str(tmp_path / "s.sqlite")
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("s3") as s:
            assert s.keep_request_bodies is None  # the SDK's default: every body kept
            s.keep_request_bodies = 1
            for i in range(4):
                async for _ in s.send(f"Turn {i}: what does f{i} do?"):
                    pass
                advance(emu, 10)
            assert [released(r) for r in s.requests[:-1]] == [True] * (len(s.requests) - 1)
            switch = s.quote_switch("claude-sonnet-4-6")
            assert switch.warns and switch.tokens_rebilled > 0  # priced from the newest body
            await s.keepalive_tick()  # due or not, it reads no older body
            quote = s.quote_compaction()
            events = await s.compact(quote=quote)
            assert events and len(s.transcript) == 0
            async for _ in s.send("Continue: what is left?"):
                pass
        async with a.resume("s3") as r:
            assert r.keep_request_bodies is None  # the bound is the caller's, per session
            async for _ in r.send("And after the resume?"):
                pass
            assert r.ledger.rows[-1].usage.cache_read > 0  # resumed from the store: warm


async def test_keep_requests_bounds_the_records_and_the_store_keeps_every_one(
    tmp_path: Path,
) -> None:
    """`Session.keep_requests`: past the bound the oldest records leave `s.requests` (so a long
    session's list stays flat); the newest is the request sent last, the count of requests
    sent goes on, a quote made before a send is stale after it, and the store has them all."""
    db = str(tmp_path / "s.sqlite")
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("s4") as s:
            assert s.keep_requests is None  # the SDK's default: every record kept
            for bad in (0, -1, 2.5, True):
                with pytest.raises(UserError, match="keep_requests"):
                    s.keep_requests = bad  # type: ignore[assignment]
            s.keep_request_bodies = 1
            s.keep_requests = 2
            for i in range(5):
                quote = s.quote_compaction() if i else None
                async for _ in s.send(f"Turn {i}: what does f{i} do?"):
                    pass
                advance(emu, 10)
                assert len(s.requests) <= 2
                if quote is not None:
                    with pytest.raises(StaleQuote):
                        await s.compact(quote=quote)
            sent = [r.body for r in emu.requests if r.api == "anthropic"]
            assert s.state.sent == len(sent) >= 5
            assert [released(r) for r in s.requests] == [True, False]
            last = s.previous_request
            assert last is not None
            assert canonical_bytes(last.body) == canonical_bytes(sent[-1])
            async for _ in s.send("One more, on a bound list"):
                pass
            assert s.ledger.rows[-1].usage.cache_read > 0  # the newest record is all it needs
            assert len(s.requests) == 2
            total = s.state.sent
    with SessionStore(db, read_only=True) as store:
        assert len([r for r in store.requests("s4") if r.kind == "turn"]) == total
