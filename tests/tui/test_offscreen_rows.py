"""OffscreenRows: the entries a long chat took off screen come back in order, whichever batch
a take cuts, and cost a fraction of the plain rows' memory (measured in a process of its own)."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from prefixlock.tui.offscreen import CHUNK, OffscreenRows
from prefixlock.tui.offscreen_file import ChunkFile


def rows(n: int, start: int = 0) -> list[tuple[str, str]]:
    return [("user" if i % 2 else "assistant", f"entry {i} ✓ naïve") for i in range(start, n)]


def test_rows_come_back_newest_first_in_batches_across_chunks() -> None:
    held = OffscreenRows(rows(150))  # a resumed history: chunks of CHUNK rows
    held.extend(rows(210, 150))  # a trim's batch
    assert len(held) == 210 and list(held) == rows(210)
    assert held.take_newest(12) == rows(210, 198)
    assert held.take_newest(CHUNK) == rows(198, 198 - CHUNK)  # cuts across two chunks
    assert len(held) == 198 - CHUNK and list(held) == rows(198 - CHUNK)
    assert held.take_newest(1000) == rows(198 - CHUNK)
    assert not held and held.take_newest(5) == []
    held.extend(rows(3))
    held.clear()
    assert len(held) == 0 and list(held) == []


def test_rows_held_in_a_chunk_file_come_back_the_same(tmp_path: Path) -> None:
    spill = ChunkFile(tmp_path)
    assert len(spill) == 0 and list(spill) == [] and spill._file is None  # opened on first push
    held = OffscreenRows(rows(150), chunks=spill)
    held.extend(rows(210, 150))
    assert len(held) == 210 and list(held) == rows(210) and len(spill) == 4
    assert held.take_newest(12) == rows(210, 198)
    assert held.take_newest(CHUNK) == rows(198, 198 - CHUNK)
    assert list(held) == rows(198 - CHUNK)
    assert held.take_newest(1000) == rows(198 - CHUNK) and len(spill) == 0
    assert spill._file is not None and spill._file.seek(0, 2) == 0  # popped batches cut off
    held.extend(rows(3))
    held.clear()
    assert list(held) == [] and list(spill) == []
    spill.close()
    assert spill._file is None and not list(tmp_path.iterdir())  # no name, nothing left
    with pytest.raises(IndexError):
        spill.pop()


def test_rows_held_in_a_chunk_file_keep_their_text_out_of_memory(tmp_path: Path) -> None:
    # 25 trims of 60 entries of random words (~140 KB compressed): what a list of batches holds
    # grows with the text; a file's, its offsets and the file object (its buffer), not.
    import random

    pick = random.Random(7)
    words = [f"w{pick.randrange(10**6)}" for _ in range(2000)]
    batches = [
        [("user", " ".join(pick.choice(words) for _ in range(40))) for _ in range(60)]
        for _ in range(25)
    ]
    held: dict[str, int] = {}
    for kind in ("list", "file"):
        spill = ChunkFile(tmp_path) if kind == "file" else None
        tracemalloc.start()
        try:
            rows_held = OffscreenRows(chunks=spill)
            for batch in batches:
                rows_held.extend(batch)
            held[kind] = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        if spill is not None:
            spill.close()
    assert held["file"] < 20_000 and 5 * held["file"] < held["list"], held


MEASURE = """
import json, random, sys, tracemalloc
from prefixlock.tui.offscreen import OffscreenRows

random.seed(7)
words = [w.strip() for w in open(sys.argv[1], encoding="utf-8").read().split() if w.strip()]
def text(i):
    return " ".join(random.choice(words) for _ in range(random.randint(3, 60)))
batches = [[("user" if i % 2 else "assistant", text(i)) for i in range(b * 60, b * 60 + 60)]
           for b in range(25)]  # 25 trims of 60 entries: a chat of ~500 turns
out = {}
for kind in ("plain", "offscreen"):
    tracemalloc.start()
    if kind == "plain":
        held = []
        for batch in batches:
            held.extend((role, "".join(t)) for role, t in batch)  # a copy, as a widget has
    else:
        held = OffscreenRows()
        for batch in batches:
            held.extend(batch)
    out[kind] = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del held
print(json.dumps(out))
"""


def test_offscreen_rows_hold_a_long_chat_in_under_half_the_plain_rows_memory() -> None:
    # Realistic text: the words of this project's README, drawn at random (not one repeated line).
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "README.md"
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(readme)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    assert figures["offscreen"] < 0.5 * figures["plain"], figures
