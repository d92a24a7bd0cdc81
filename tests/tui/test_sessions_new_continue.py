"""Sessions beside the current one: `/new` opens a fresh session on the same prefix (its first
request reads the cache), `--continue` finds the newest session of this workspace, and
`--resume` without an id shows a picker with this workspace's sessions first."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from prefixlock.coding.recent_sessions import recent, record
from prefixlock.errors import UserError
from prefixlock.store.records import SessionRecord
from prefixlock.tui.cli import _chosen_session
from prefixlock.tui.session_picker import SessionPickerApp, picker_rows
from tests.helpers.backend_drive import ChatOpener


async def test_new_starts_a_session_that_reads_the_cached_prefix(open_chat: ChatOpener) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        await chat.say("hello")
        first = backend.session_id
        await backend.new_session()
        assert backend.session_id != first and backend.session.turn == 0
        await chat.say("hello")
        row = backend.session.ledger.rows[0]
        assert row.usage.cache_read > 0  # the new session's first request read the prefix
        ids = recent(backend.options.store_path, backend.workspace.root)
        assert ids[:2] == [backend.session_id, first]


def _record(sid: str, updated: float, turns: int = 1) -> SessionRecord:
    from decimal import Decimal

    return SessionRecord(
        sid, updated - 10, updated, "claude-sonnet-4-6", "anthropic-messages", "anthropic",
        "fp", 0, turns, turns, Decimal("0.01"), 10, 20,
    )  # fmt: skip


def test_picker_rows_put_this_workspaces_sessions_first() -> None:
    rows = picker_rows(
        [_record("old-here", 100), _record("other", 300), _record("new-here", 200)],
        ["new-here", "old-here"],
    )
    assert [(r.id, r.here) for r in rows] == [
        ("new-here", True),
        ("old-here", True),
        ("other", False),
    ]


async def test_the_picker_returns_the_chosen_session() -> None:
    rows = picker_rows([_record("a", 100), _record("b", 200)], ["a"])
    app = SessionPickerApp(rows, now=1000)
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.press("down", "enter")
    assert app.return_value == "b"
    app = SessionPickerApp(rows, now=1000)
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.press("escape")
    assert app.return_value is None


def test_continue_takes_the_newest_of_this_workspace(tmp_path: Path) -> None:
    from prefixlock.store.database import SessionStore

    store, ws, other = tmp_path / "s.sqlite", tmp_path / "ws", tmp_path / "other"
    ws.mkdir()
    other.mkdir()
    args = argparse.Namespace(continue_=True, resume=None, store=store)
    with pytest.raises(UserError) as err:
        _chosen_session(args, ws)
    assert err.value.where == "--continue" and "no stored session of" in str(err.value)
    with SessionStore(str(store)) as opened:
        for sid in ("one", "two", "elsewhere"):
            opened.create_session(
                sid, model="m", api="anthropic-messages", provider="anthropic",
                prefix={"system": [], "tools": []}, prefix_fingerprint="fp", created=1.0,
            )  # fmt: skip
    record(store, ws, "one", 10.0)
    record(store, ws, "two", 20.0)
    record(store, other, "elsewhere", 30.0)
    record(store, ws, "gone", 40.0)  # not in the store any more: skipped
    assert _chosen_session(args, ws) == "two"


def test_stored_is_what_run_and_chat_continue_from(tmp_path: Path) -> None:
    """One reading of the store and the workspace's list, for `run --continue` and the chat:
    ids the store lost are left out; looking at a missing store does not create one."""
    from prefixlock.coding.recent_sessions import stored
    from prefixlock.store.database import SessionStore

    store, ws = tmp_path / "s.sqlite", tmp_path / "ws"
    ws.mkdir()
    assert stored(store, ws) == ([], []) and not store.exists()
    with SessionStore(str(store)) as opened:
        for sid in ("old", "new", "other"):
            opened.create_session(
                sid, model="m", api="anthropic-messages", provider="anthropic",
                prefix={"system": [], "tools": []}, prefix_fingerprint="fp", created=1.0,
            )  # fmt: skip
    record(store, ws, "old", 1.0)
    record(store, ws, "gone", 2.0)
    record(store, ws, "new", 3.0)
    records, here = stored(store, ws)
    assert here == ["new", "old"]
    assert {r.id for r in records} == {"old", "new", "other"}
