"""Files of any size: `grep` streams them (a 5.7 MB file with 120,000 matching lines is
searched, not skipped as 'no matches'), stops at its output cap or its time budget and says so;
`read_file` reads a file over the whole-file limit with an offset and a limit; a FIFO blocks
neither."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from prefixlock.coding.workspace import GREP_KILL_GRACE, Workspace, WorkspaceError


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "app.log"
    with path.open("w") as fh:
        for i in range(1, 120_001):
            fh.write(f"2026-12-02 INFO request {i:06d} served in 12 ms ok\n")
    assert path.stat().st_size > 5_000_000
    return path


def test_grep_searches_a_file_over_the_read_limit(tmp_path: Path, big: Path) -> None:
    ws = Workspace(tmp_path)
    out = ws.grep(r"request 0000(07|08) ", "app.log")
    assert out.splitlines() == [
        "app.log:7: 2026-12-02 INFO request 000007 served in 12 ms ok",
        "app.log:8: 2026-12-02 INFO request 000008 served in 12 ms ok",
    ]
    last = ws.grep("request 120000 ", ".")
    assert last == "app.log:120000: 2026-12-02 INFO request 120000 served in 12 ms ok"
    many = ws.grep("INFO", ".")
    assert many.startswith("app.log:1: ") and "output limit reached" in many
    assert len(many) <= ws.output_limit + 200


def test_grep_stops_at_its_time_budget_and_says_where(tmp_path: Path, big: Path) -> None:
    ticks = iter(range(1_000_000))
    # In this process: the injected clock is the budget's (the child has its own, real, one).
    ws = Workspace(tmp_path, grep_seconds=3, clock=lambda: float(next(ticks)), grep_process=False)
    out = ws.grep("never matches", ".")
    assert out.startswith("no matches for 'never matches' before the search stopped after 3 s")
    assert "app.log:" in out


def test_read_file_reads_a_large_file_with_offset_and_limit(tmp_path: Path, big: Path) -> None:
    ws = Workspace(tmp_path)
    out = ws.read("app.log", offset=100_000, limit=2)
    lines = out.splitlines()
    assert lines[0] == "100000\t2026-12-02 INFO request 100000 served in 12 ms ok"
    assert lines[1] == "100001\t2026-12-02 INFO request 100001 served in 12 ms ok"
    assert "read again with offset=100002" in lines[2]
    tail = ws.read("app.log", offset=119_999, limit=10)
    assert tail.splitlines()[-1].startswith("120000\t") and "more lines" not in tail
    assert "the file is shorter" in ws.read("app.log", offset=200_000)
    # Edits still need the whole file in memory: refused over the limit, saying why.
    with pytest.raises(WorkspaceError, match="limit"):
        ws.plan_edit("app.log", "request 000001", "request 1")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_blocks_neither_grep_nor_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    os.mkfifo(tmp_path / "pipe")
    ws = Workspace(tmp_path)
    assert ws.grep("needle", ".") == "a.txt:1: needle"
    with pytest.raises(WorkspaceError, match="not a regular file"):
        ws.read("pipe")
    assert sys.platform  # reached: nothing blocked


def test_a_catastrophic_pattern_is_killed_at_the_budget(tmp_path: Path) -> None:
    """`(a+)+$` on 40 a's and a '!' backtracks 2^40 times inside one `re` call: the search runs
    in a child process that is killed, and the hit found before it is kept."""
    (tmp_path / "f.txt").write_text("aaa\n" + "a" * 40 + "!\n")
    ws = Workspace(tmp_path, grep_seconds=0.5)
    started = time.monotonic()
    out = ws.grep(r"(a+)+$", ".")
    assert time.monotonic() - started < 0.5 + GREP_KILL_GRACE + 3
    assert out.splitlines()[0] == "f.txt:1: aaa"
    assert "the pattern is too slow" in out.splitlines()[-1]


def test_grep_in_its_child_finds_what_it_finds_here(tmp_path: Path, big: Path) -> None:
    child = Workspace(tmp_path).grep(r"request 0000(07|08) ", ".")
    here = Workspace(tmp_path, grep_process=False).grep(r"request 0000(07|08) ", ".")
    assert child == here and child.count("\n") == 1
