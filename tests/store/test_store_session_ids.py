"""A new session may not take a stored session's id: its turns would overwrite the stored ones.

`agent.session(ID)` with a store that holds ID raises StoreError (a UserError) naming resume;
`agent.resume(ID)` continues it. Before, the new session's first turn was written over the
stored session's first messages (rows keyed by index) and its requests were appended after the
old ones.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.store.database import SessionStore
from prefixlock.store.errors import StoreError
from tests.helpers.guardkit import agent, start_emulator, turn


async def test_a_new_session_with_a_stored_id_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("mine") as s:
            await turn(s, "Turn 1: read src/app.py.")
        stored = SessionStore(db).load("mine").messages
        with pytest.raises(StoreError, match=r"resume\('mine'\)"):
            a.session("mine")
        assert SessionStore(db).load("mine").messages == stored
        async with a.resume("mine") as again:  # the way to continue it
            await turn(again, "Turn 2: and now?")
        assert len(SessionStore(db).load("mine").messages) == 2 * len(stored)


async def test_a_store_given_as_a_path_is_checked_too(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=str(db))
        async with a.session("mine") as s:
            await turn(s, "Turn 1: read src/app.py.")
        with pytest.raises(StoreError):
            a.session("mine")
        async with a.session("other") as s:  # an id the store does not hold is fine
            await turn(s, "Turn 1: read src/app.py.")
