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


def _stored_session(db: Path) -> None:
    import asyncio

    from tests.helpers.guardkit import agent, start_emulator, turn

    async def one_turn() -> None:
        store = SessionStore(db)
        with start_emulator() as emu:
            async with agent(emu, store=store).session("s1") as s:
                await turn(s, "Stored turn.")
        store.close()

    asyncio.run(one_turn())


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _resume_is_refused_in_one_line(db: Path, cwd: Path) -> None:
    before = _files(db.parent)
    ran = run_cli("run", "Go on.", "--emulator", "--resume", "s1", "--store", str(db), cwd=cwd)
    assert ran.returncode == 2, ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert str(db) in line and "read-only" in line and "Traceback" not in ran.stderr
    assert _files(db.parent) == before  # nothing written, nothing lost
    listed = run_cli("sessions", "--store", str(db), "list")  # what only reads still works
    assert listed.returncode == 0 and "s1" in listed.stdout, listed.stderr


def test_run_resume_on_a_read_only_filesystem_is_one_line_exit_2(
    small_disk: Path, tmp_path: Path
) -> None:
    # A real EROFS (root, where mounts are allowed): what a root user sees on a mounted backup.
    db = small_disk / "s.sqlite"
    _stored_session(db)
    remount_read_only(small_disk)
    _resume_is_refused_in_one_line(db, tmp_path)


def test_run_resume_on_a_read_only_file_is_one_line_exit_2(tmp_path: Path) -> None:
    # A real EACCES (a store file and folder without write permission): only a user other than
    # root is refused by the modes, so as root this is skipped and the EROFS test above runs.
    import os

    if os.geteuid() == 0:
        pytest.skip("root writes read-only files; the read-only filesystem test covers root")
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "s.sqlite"
    _stored_session(db)
    db.chmod(0o444)
    folder.chmod(0o555)
    try:
        _resume_is_refused_in_one_line(db, tmp_path)
    finally:
        folder.chmod(0o755)
