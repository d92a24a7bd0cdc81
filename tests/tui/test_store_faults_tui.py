"""Store faults as the chat shows them: `/resume` of a malformed session is one note and the
open session goes on; a store that stops taking writes is one note naming it; `chat --resume`
of a malformed session exits 2 before the screen opens. (The faults themselves, on the
backend: tests/tui/test_backend_store_faults.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from prefixlock.events import StoreWriteFailed
from tests.helpers.backend_drive import ChatOpener
from tests.helpers.cli import run_cli
from tests.helpers.tui_drive import AppFactory, conversation_text, ready, say
from tests.tui.test_backend_store_faults import BREAKS, break_store, store_first_session


async def test_resume_of_a_malformed_session_is_a_note(
    make_app: AppFactory, open_chat: ChatOpener, tmp_path: Path
) -> None:
    await store_first_session(open_chat)
    break_store(tmp_path / "sessions.sqlite", BREAKS[0])
    app = make_app(session_id="second-session")
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "/resume first-session")
        text = conversation_text(app)
        assert "/resume: " in text and "malformed" in text
        assert app.is_running and app.backend.session_id == "second-session"
        await say(app, pilot, "hello")  # the open session goes on
        assert len(app.backend.session.ledger.rows) == 1


async def test_a_store_write_failure_is_a_note(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        said = "session store /x/s.sqlite: write failed (disk full); 2 writes kept in memory"
        await app.on_session_event(StoreWriteFailed(said, 2))
        assert conversation_text(app).count(said) == 1


@pytest.mark.parametrize("sql", BREAKS)
def test_chat_resume_of_a_malformed_session_exits_2(
    open_chat: ChatOpener, tmp_path: Path, sql: str
) -> None:
    asyncio.run(store_first_session(open_chat))
    store = tmp_path / "sessions.sqlite"
    break_store(store, sql)
    ran = run_cli("chat", "--resume", "first-session", "--store", str(store), cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    assert "malformed" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    assert "Traceback" not in ran.stderr
