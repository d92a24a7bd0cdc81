"""A valid store on a read-only filesystem (a mounted backup) opens read-only for `sessions`.

SQLite needs a WAL store's -shm file even to read, and cannot create it there. Needs a real
read-only filesystem: a small tmpfs remounted read-only (root, where mounts are allowed);
skipped with the reason elsewhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.store.database import SessionStore
from prefixlock.store.errors import StoreError
from tests.helpers.cli import run_cli
from tests.helpers.mounts import remount_read_only


def test_a_store_on_a_read_only_filesystem_is_listed_shown_and_exported(small_disk: Path) -> None:
    db = small_disk / "s.sqlite"
    with SessionStore(db) as store:
        store.create_session(
            "kept",
            model="claude-opus-4-7",
            api="anthropic",
            provider="anthropic",
            prefix={"system": []},
            prefix_fingerprint="fp",
            created=1.0,
        )
    remount_read_only(small_disk)
    listed = run_cli("sessions", "--store", str(db), "list")
    assert listed.returncode == 0 and "kept" in listed.stdout, listed.stderr
    shown = run_cli("sessions", "--store", str(db), "show", "kept")
    assert shown.returncode == 0, shown.stderr
    exported = run_cli("sessions", "--store", str(db), "export", "kept", "--jsonl")
    assert exported.returncode == 0, exported.stderr
    # Writing is what fails, in one line that says what to do, not "not a store".
    with pytest.raises(StoreError) as err:
        SessionStore(db)
    assert "read-only" in str(err.value) and "not a" not in str(err.value)
    assert len(str(err.value).splitlines()) == 1
