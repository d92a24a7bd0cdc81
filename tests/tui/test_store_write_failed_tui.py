"""A store that stops taking writes mid-chat (a full disk) is said in the chat: one note, once,
naming the store; the turns go on, and what was kept in memory is written once there is room.

The disk is filled with SQLite's own limit (`PRAGMA max_page_count` at the current size), which
fails every write that needs a new page as a full filesystem does (the real-tmpfs variant is
tests/store/test_store_disk_full.py)."""

from __future__ import annotations

from pathlib import Path

from prefixlock.store.database import SessionStore
from tests.helpers.tui_drive import AppFactory, conversation_text, say


def _limit(store: SessionStore, full: bool) -> None:
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages if full else 1_000_000}")


async def test_a_full_store_is_one_note_once_and_the_turns_are_written_later(
    make_app: AppFactory, tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        store = app.backend.store
        assert store is not None
        _limit(store, full=True)
        for i in range(3):
            await say(app, pilot, f"while the disk is full {i}")
        text = conversation_text(app)
        assert text.count("write failed") == 1, text
        (note,) = [ln for ln in text.splitlines() if "write failed" in ln]
        assert str(store.path) in note and "kept in memory" in note
        _limit(store, full=False)
        await say(app, pilot, "room again")
        assert conversation_text(app).count("write failed") == 1
        rows = len(app.backend.session.ledger.rows)
    with SessionStore(tmp_path / "sessions.sqlite", read_only=True) as ro:
        assert ro.session("tui-test-session").turns == 5
        assert len(ro.usage_rows("tui-test-session")) == rows
