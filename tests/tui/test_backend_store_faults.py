"""Store faults on the chat's backend: resuming a session whose stored rows are malformed is
one error naming the problem while the open session goes on; a store that stops taking writes
mid-chat (a full disk) is said once, the turns go on, and what was kept in memory is written
once there is room. (What the chat shows of them: tests/tui/test_store_faults_tui.py.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from prefixlock.errors import PrefixlockError
from prefixlock.events import StoreWriteFailed
from prefixlock.store.database import SessionStore
from tests.helpers.backend_drive import ChatOpener

BREAKS = [
    "UPDATE requests SET usage='{not json' WHERE session_id='first-session'",
    "UPDATE blobs SET data=X'7b6e6f74' WHERE hash IN "
    "(SELECT blob FROM messages WHERE session_id='first-session')",
    "UPDATE sessions SET settings='[' WHERE id='first-session'",
]


async def store_first_session(open_chat: ChatOpener) -> None:
    """A stored session of one turn, `first-session`."""
    async with open_chat(session_id="first-session") as chat:
        await chat.say("hello")


def break_store(store: Path, sql: str) -> None:
    con = sqlite3.connect(store)
    with con:
        con.execute(sql)
    con.close()


@pytest.mark.parametrize("sql", BREAKS)
async def test_resume_of_a_malformed_session_is_one_error_and_the_session_goes_on(
    open_chat: ChatOpener, tmp_path: Path, sql: str
) -> None:
    await store_first_session(open_chat)
    break_store(tmp_path / "sessions.sqlite", sql)
    async with open_chat(session_id="second-session") as chat:
        with pytest.raises(PrefixlockError, match="malformed"):
            await chat.backend.resume("first-session")
        assert chat.backend.session_id == "second-session"
        await chat.say("hello")  # the open session goes on
        assert len(chat.backend.session.ledger.rows) == 1


def _limit(store: SessionStore, full: bool) -> None:
    """Fill the disk with SQLite's own limit (`PRAGMA max_page_count` at the current size),
    which fails every write that needs a new page as a full filesystem does (the real-tmpfs
    variant is tests/store/test_store_disk_full.py)."""
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages if full else 1_000_000}")


async def test_a_full_store_is_said_once_and_the_turns_are_written_later(
    open_chat: ChatOpener, tmp_path: Path
) -> None:
    async with open_chat() as chat:
        await chat.say("hello")
        store = chat.backend.store
        assert store is not None
        _limit(store, full=True)
        failed: list[StoreWriteFailed] = []
        for i in range(3):
            events = await chat.say(f"while the disk is full {i}")
            failed.extend(e for e in events if isinstance(e, StoreWriteFailed))
        assert len(failed) == 1
        assert str(store.path) in failed[0].message and "kept in memory" in failed[0].message
        _limit(store, full=False)
        events = await chat.say("room again")
        assert not any(isinstance(e, StoreWriteFailed) for e in events)
        rows = len(chat.backend.session.ledger.rows)
    with SessionStore(tmp_path / "sessions.sqlite", read_only=True) as ro:
        assert ro.session("tui-test-session").turns == 5
        assert len(ro.usage_rows("tui-test-session")) == rows
