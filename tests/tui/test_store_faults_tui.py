"""A malformed row in the store is one line: `/resume` says so and the open session goes on;
`chat --resume` exits 2 before the screen opens."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tui_drive import AppFactory, conversation_text, say

BREAKS = [
    "UPDATE requests SET usage='{not json' WHERE session_id='first-session'",
    "UPDATE blobs SET data=X'7b6e6f74' WHERE hash IN "
    "(SELECT blob FROM messages WHERE session_id='first-session')",
    "UPDATE sessions SET settings='[' WHERE id='first-session'",
]


async def _stored_session(make_app: AppFactory) -> None:
    first = make_app(session_id="first-session")
    async with first.run_test(size=(120, 40)) as pilot:
        await say(first, pilot, "hello")


def _break(store: Path, sql: str) -> None:
    con = sqlite3.connect(store)
    with con:
        con.execute(sql)
    con.close()


@pytest.mark.parametrize("sql", BREAKS)
async def test_resume_of_a_malformed_session_is_a_note(
    make_app: AppFactory, tmp_path: Path, sql: str
) -> None:
    await _stored_session(make_app)
    _break(tmp_path / "sessions.sqlite", sql)
    app = make_app(session_id="second-session")
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "/resume first-session")
        text = conversation_text(app)
        assert "/resume: " in text and "malformed" in text
        assert app.is_running and app.backend.session_id == "second-session"
        await say(app, pilot, "hello")  # the open session goes on
        assert len(app.backend.session.ledger.rows) == 1


@pytest.mark.parametrize("sql", BREAKS)
def test_chat_resume_of_a_malformed_session_exits_2(
    make_app: AppFactory, tmp_path: Path, sql: str
) -> None:
    asyncio.run(_stored_session(make_app))
    store = tmp_path / "sessions.sqlite"
    _break(store, sql)
    ran = run_cli("chat", "--resume", "first-session", "--store", str(store), cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    assert "malformed" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    assert "Traceback" not in ran.stderr
