"""A store that cannot be written (a full disk) after the provider billed a turn.

The disk is filled with SQLite's own limit (`PRAGMA max_page_count` at the current size: every
write that needs a new page fails with "database or disk is full", as on a full filesystem).
The turn still completes, one StoreWriteFailed event says so (once, not every turn), the rows
stay in memory and are written, in order, after the first turn once the store takes writes.

The same on a real full filesystem (a 1 MiB tmpfs filled up), where the machine can mount one
(root); skipped with the reason elsewhere. `prefixlock run` there says it in one line.
"""

from __future__ import annotations

from pathlib import Path

from prefixlock.events import StoreWriteFailed, TurnComplete
from prefixlock.store.database import SessionStore
from prefixlock.transcript import Message
from tests.helpers.cli import run_cli
from tests.helpers.guardkit import advance, agent, start_emulator, turn
from tests.helpers.mounts import fill


def _fill(store: SessionStore, full: bool) -> None:
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages if full else 1_000_000}")


async def test_a_full_disk_keeps_the_rows_says_so_once_and_writes_them_later(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.sqlite"
    store = SessionStore(db)
    with start_emulator() as emu:
        a = agent(emu, store=store)
        async with a.session("full") as s:
            await turn(s, "Stored normally.")
            advance(emu, 30)
            _fill(store, full=True)
            failed: list[StoreWriteFailed] = []
            for i in range(3):
                events = await turn(s, f"Billed while the disk is full ({i}).")
                assert isinstance(events[-1], TurnComplete)
                failed += [e for e in events if isinstance(e, StoreWriteFailed)]
                advance(emu, 30)
            (said,) = failed  # once, in one line, naming the store
            assert str(db) in said.message and "\n" not in said.message
            assert "full" in said.message and said.pending == 1
            pending = s.recorder.pending_writes  # type: ignore[attr-defined]
            with SessionStore(db, read_only=True) as ro:  # (a freed page may take one)
                assert pending >= 1 and ro.session("full").turns == 4 - pending
            _fill(store, full=False)
            events = await turn(s, "The disk has room again.")
            assert not [e for e in events if isinstance(e, StoreWriteFailed)]
            rows, transcript = len(s.ledger.rows), [m.to_dict() for m in s.transcript]
    with SessionStore(db, read_only=True) as ro:
        assert ro.session("full").turns == 5
        assert len(ro.usage_rows("full")) == rows == len(emu.requests)
        assert [Message.from_dict(m).to_dict() for m in ro.load("full").messages] == transcript


async def test_a_real_full_filesystem_keeps_the_rows_and_writes_them_later(
    small_disk: Path,
) -> None:
    db = small_disk / "s.sqlite"
    store = SessionStore(db)
    with start_emulator() as emu:
        async with agent(emu, store=store).session("full") as s:
            await turn(s, "Stored normally.")
            advance(emu, 30)
            filler = fill(small_disk)
            failed: list[StoreWriteFailed] = []
            for i in range(3):
                events = await turn(s, f"Billed while the disk is full ({i}). " + "x" * 4000)
                assert isinstance(events[-1], TurnComplete)
                failed += [e for e in events if isinstance(e, StoreWriteFailed)]
                advance(emu, 30)
            (said,) = failed
            assert "full" in said.message and "\n" not in said.message
            assert s.recorder.pending_writes >= 1  # type: ignore[attr-defined]
            filler.unlink()
            await turn(s, "The disk has room again.")
            assert s.recorder.pending_writes == 0  # type: ignore[attr-defined]
            rows, transcript = len(s.ledger.rows), [m.to_dict() for m in s.transcript]
    store.close()
    with SessionStore(db, read_only=True) as ro:
        assert ro.session("full").turns == 5
        assert len(ro.usage_rows("full")) == rows == len(emu.requests)
        assert [Message.from_dict(m).to_dict() for m in ro.load("full").messages] == transcript


def test_run_on_a_full_filesystem_says_so_in_one_line(small_disk: Path) -> None:
    db = small_disk / "s.sqlite"
    with SessionStore(db) as keeper:  # open elsewhere: its -wal/-shm files stay allocated
        fill(small_disk)
        ran = run_cli(
            "run", "Look around.", "--emulator", "--store", str(db), cwd=small_disk.parent
        )
    assert keeper.path == db
    assert ran.returncode == 1, ran.stderr  # the answer stands, but billed work is lost
    assert "Look around" in ran.stdout or ran.stdout.strip()
    said = [ln for ln in ran.stderr.splitlines() if "write failed" in ln]
    assert len(said) == 1 and said[0].startswith(f"prefixlock: session store {db}"), ran.stderr
    # Still full when the run ends: what was kept in memory is lost, and that is said too.
    lost = [ln for ln in ran.stderr.splitlines() if "still refused at exit" in ln]
    assert len(lost) == 1 and str(db) in lost[0], ran.stderr
    assert "Traceback" not in ran.stderr


def test_opening_a_store_on_a_full_filesystem_is_one_line(small_disk: Path) -> None:
    db = small_disk / "s.sqlite"
    SessionStore(db).close()
    fill(small_disk)
    ran = run_cli("run", "Look around.", "--emulator", "--store", str(db), cwd=small_disk.parent)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert str(db) in line and "full disk" in line


async def test_closing_while_the_disk_is_still_full_raises_and_the_store_still_opens(
    tmp_path: Path,
) -> None:
    from prefixlock.store.errors import StoreWriteLost

    db = tmp_path / "s.sqlite"
    store = SessionStore(db)
    with start_emulator() as emu:
        s = agent(emu, store=store).session("lost")
        raised = None
        try:
            async with s:
                await turn(s, "Stored normally.")
                _fill(store, full=True)
                for i in range(4):
                    await turn(s, f"Acknowledged, never stored ({i}).")
                    advance(emu, 30)
        except StoreWriteLost as exc:
            raised = exc
        assert raised is not None, "billed turns were lost without a word to the caller"
        assert raised.pending >= 1 and str(db) in str(raised) and "\n" not in str(raised)
    store.close()
    with SessionStore(db, read_only=True) as ro:  # intact, and never refused as malformed
        assert ro.session("lost").turns >= 1
    with SessionStore(db) as again:
        again.acquire("lost")  # the lease was given back despite the failure
        again.release("lost")
