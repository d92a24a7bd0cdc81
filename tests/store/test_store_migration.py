"""Schema version 1 stores (before subagent runs were stored) open and migrate; newer ones are
refused and left untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from prefixlock.store.database import SessionStore
from prefixlock.store.errors import StoreError
from prefixlock.store.schema import SCHEMA_VERSION
from tests.helpers.storekit import newer_store


def _v1_store(path: Path) -> None:
    """A store as schema version 1 wrote it: no subagents table, version 1."""
    with SessionStore(path) as store:
        store.create_session(
            "old",
            model="claude-opus-4-7",
            api="anthropic",
            provider="anthropic",
            prefix={"system": "s", "tools": []},
            prefix_fingerprint="fp",
            created=1.0,
        )
        store.record_turn(
            "old",
            requests=[],
            messages=[{"role": "user", "content": "hi"}],
            first_index=0,
            model="claude-opus-4-7",
            time=2.0,
        )
    con = sqlite3.connect(path)
    con.execute("DROP TABLE subagents")
    con.execute("UPDATE schema_version SET version = 1")
    con.commit()
    con.close()


def _version(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return int(con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0])
    finally:
        con.close()


def test_a_version_1_store_opens_and_migrates(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    _v1_store(path)
    assert SCHEMA_VERSION == 3 and _version(path) == 1
    with SessionStore(path, read_only=True) as reader:  # read-only: readable, not migrated
        assert reader.subagents("old") == [] and reader.session("old").turns == 1
    assert _version(path) == 1
    with SessionStore(path) as store:
        assert _version(path) == 3
        assert store.session("old").turns == 1
        assert len(store.load("old").messages) == 1
        store.record_turn(
            "old",
            requests=[],
            messages=[],
            first_index=1,
            model="claude-opus-4-7",
            time=3.0,
            subagents=[{"name": "explorer", "model": "claude-haiku-4-5", "cost": "0.01"}],
        )
        assert [r["name"] for r in store.subagents("old")] == ["explorer"]
        assert store.subagents("old")[0]["turn"] == 2


def test_a_newer_store_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    newer_store(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreError, match="newer prefixlock"):
        SessionStore(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert _version(path) == SCHEMA_VERSION + 1
