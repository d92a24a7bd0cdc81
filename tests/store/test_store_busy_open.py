"""A store another process is writing (and checkpointing) opens every time: the open respects
the WAL and the locks, so a store that is only busy is never refused as "malformed"."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from prefixlock.store.database import SessionStore
from prefixlock.store.errors import StoreError


def _writer(db: Path, stop: threading.Event, wrote: list[int]) -> None:
    # Another writer as SQLite sees it: its own connection, small commits, a checkpoint
    # every few pages (so the main file keeps changing under a reader).
    con = sqlite3.connect(db, isolation_level=None, timeout=30)
    con.execute("PRAGMA wal_autocheckpoint=4")
    i = 0
    while not stop.is_set():
        con.execute(
            "INSERT OR REPLACE INTO blobs(hash, data) VALUES (?, ?)",
            (f"h{i % 400}", os.urandom(3000)),
        )
        if i % 25 == 0:  # the schema page moves too
            con.execute(f"CREATE TABLE IF NOT EXISTS t{i % 100} (x)")
        i += 1
        wrote[0] = i
    con.close()


def test_opening_a_store_while_another_process_writes_it_never_fails(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    SessionStore(db).close()
    stop, wrote = threading.Event(), [0]
    w = threading.Thread(target=_writer, args=(db, stop, wrote))
    w.start()
    failures: list[str] = []
    try:
        # At least 150 opens, and on until the writer has really written meanwhile (a loaded
        # machine may schedule it late); bounded, so a stuck writer fails below.
        i = 0
        while i < 150 or (wrote[0] <= 50 and i < 5000):
            i += 1
            try:
                with SessionStore(db, read_only=i % 2 == 0) as store:
                    store.sessions()
            except StoreError as exc:
                failures.append(str(exc))
    finally:
        stop.set()
        w.join(30)
    assert wrote[0] > 50  # the writer really wrote meanwhile
    assert failures == [], f"{len(failures)} of {i} opens failed: {failures[:2]}"
