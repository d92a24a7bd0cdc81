"""A long-running writer's memory: the store's connection keeps a small page cache
(`schema.PAGE_CACHE_KIB`), not SQLite's 2 MB, which a long chat filled a few KB a turn."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.store.schema import PAGE_CACHE_KIB

# In a process of its own: SQLite's memory counter is the whole process's.
WRITER = """
import ctypes, ctypes.util, sys
from pathlib import Path
from prefixlock.store import schema

lib = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
lib.sqlite3_memory_used.restype = ctypes.c_int64
db = schema.connect(Path(sys.argv[1]), read_only=False)
db.execute("CREATE TABLE filler(n INTEGER PRIMARY KEY, body TEXT)")
for n in range(2000):  # 4 MB written, a row at a time, as a long session's turns are
    db.execute("INSERT INTO filler(body) VALUES (?)", ("x" * 2000 + str(n),))
    db.execute("SELECT body FROM filler WHERE n = ?", (n,)).fetchone()
print(lib.sqlite3_memory_used())
"""


@pytest.mark.skipif(ctypes.util.find_library("sqlite3") is None, reason="no libsqlite3 to ask")
def test_a_writer_holds_a_bounded_page_cache(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", WRITER, str(tmp_path / "s.sqlite")],
        capture_output=True,
        text=True,
        check=True,
    )
    used = int(out.stdout)
    # The page cache's bound and SQLite's own (schema, statements): well under the 2 MB a
    # default connection fills with the same writes.
    assert used < (PAGE_CACHE_KIB + 512) * 1024, used
