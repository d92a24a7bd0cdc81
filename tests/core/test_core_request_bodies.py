"""`Session.keep_request_bodies`: a long session keeps the body of its newest requests only
(each body holds the whole conversation so far); the older ones keep their record, reading
their body is a clear error, and the store still has every body byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

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
