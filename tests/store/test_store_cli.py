"""`prefixlock sessions`: list, show, export; bad stores and ids get one line and exit 2."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.store.database import SessionStore
from tests.helpers.guardkit import agent, start_emulator
from tests.helpers.storekit import newer_store


@pytest.fixture
async def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    store = SessionStore(path)
    with start_emulator() as emu:
        async with agent(emu, store=store).session("sess-1") as s:
            for i in range(3):
                async for _ in s.send(f"Turn {i}"):
                    pass
    store.close()
    return path


def _digest(path: Path) -> list[str]:
    """The store file and any SQLite side files (-wal, -shm) next to it, hashed."""
    return sorted(
        f"{p.name}:{hashlib.sha256(p.read_bytes()).hexdigest()}"
        for p in path.parent.iterdir()
        if p.name.startswith(path.name)
    )


def test_list_show_export(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "--store", str(db), "list"]) == 0
    out = capsys.readouterr().out
    assert "sess-1" in out and "claude-opus-4-7" in out
    assert main(["sessions", "--store", str(db), "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["turns"] == 3 and row["requests"] == 6 and row["hit_rate"] > 0
    assert main(["sessions", "--store", str(db), "show", "sess-1"]) == 0
    assert "hit rate" in capsys.readouterr().out
    target = tmp_path / "trace.jsonl"
    args = ["sessions", "--store", str(db), "export", "sess-1", "--jsonl", "-o", str(target)]
    assert main(args) == 0
    assert len(target.read_text().splitlines()) == 6
    assert main(["sessions", "--store", str(db), "export", "sess-1", "--jsonl"]) == 0
    assert capsys.readouterr().out == target.read_text()


def _fails(args: list[str], capsys: pytest.CaptureFixture[str], text: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert text in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_input_exits_2_and_overwrites_nothing(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n")
    before = _digest(db)
    _fails(["sessions", "--store", str(db), "show", "nope"], capsys, "unknown session id 'nope'")
    _fails(["sessions", "--store", str(db), "export", "nope", "-o", str(out)], capsys, "unknown")
    assert out.read_text() == "keep me\n"
    newer = tmp_path / "newer.sqlite"
    newer_store(newer)
    snap = _digest(newer)
    _fails(["sessions", "--store", str(newer), "list"], capsys, "newer prefixlock")
    assert _digest(newer) == snap
    bad = tmp_path / "corrupt.sqlite"
    bad.write_bytes(db.read_bytes()[:100] + b"\x00garbage" * 500)
    snap = _digest(bad)
    _fails(["sessions", "--store", str(bad), "list"], capsys, "corrupt.sqlite")
    assert _digest(bad) == snap
    missing = str(tmp_path / "missing.sqlite")
    _fails(["sessions", "--store", missing, "show", "x"], capsys, "no session store")
    assert main(["sessions", "--store", missing, "list"]) == 0  # a fresh machine: no sessions yet
    assert "no sessions yet" in capsys.readouterr().out
    assert main(["sessions", "--store", missing, "list", "--json"]) == 0  # still JSON
    assert json.loads(capsys.readouterr().out) == []
    assert not (tmp_path / "missing.sqlite").exists()
    # A valid store read for an unknown id: its data is untouched (a WAL-mode reader may
    # leave SQLite's empty -wal and -shm scratch files beside it).
    assert [d for d in _digest(db) if "-" not in d] == [d for d in before if "-" not in d]


def test_console_script(db: Path) -> None:
    exe = Path(sys.executable).parent / "prefixlock"
    proc = subprocess.run(
        [str(exe), "sessions", "--store", str(db), "show", "missing-id"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "unknown session id" in proc.stderr


def test_export_to_an_unwritable_place_is_one_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["sessions", "--store", str(db), "export", "sess-1", "--jsonl", "-o"]
    missing = tmp_path / "no-such-dir" / "trace.jsonl"
    _fails([*base, str(missing)], capsys, "no-such-dir")
    _fails([*base, str(tmp_path)], capsys, "is a directory")
    assert not list(tmp_path.glob(".export-*"))  # no temporary file left behind
    # A written export has the usual file mode, not mkstemp's private 0600.
    target = tmp_path / "trace.jsonl"
    assert main([*base, str(target)]) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_store_path_that_cannot_be_a_store_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prefixlock.store.errors import StoreError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for path, text in [
        (blocker / "sessions.sqlite", "a file is in the way"),
        (tmp_path, "is a directory"),
    ]:
        with pytest.raises(StoreError, match=text) as e:
            SessionStore(path)
        assert e.value.where == str(path)
    _fails(["sessions", "--store", str(tmp_path), "list"], capsys, "is a directory")
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("UPDATE requests SET usage='{not json' WHERE seq=2", "malformed session row"),
        ("UPDATE requests SET cost='lots' WHERE seq=1", "malformed"),
        ("UPDATE sessions SET meta='[' ", "malformed session row 'sess-1'"),
    ],
)
def test_a_malformed_row_is_one_line_exit_2(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str, named: str
) -> None:
    import sqlite3

    with sqlite3.connect(db) as con:
        con.execute(sql)
    con.close()
    out = tmp_path / "out.jsonl"
    for args in (
        ["show", "sess-1"],
        ["show", "sess-1", "--json"],
        ["export", "sess-1", "--jsonl", "-o", str(out)],
        ["list"],
    ):
        _fails(["sessions", "--store", str(db), *args], capsys, named)
    assert not out.exists()  # nothing half-written
