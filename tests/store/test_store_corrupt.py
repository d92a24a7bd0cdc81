"""A corrupted (not truncated) store: every `prefixlock sessions` action says so in one line.

Each page of a real store in turn has its bytes flipped (the header page left whole, so the file
still opens as SQLite): the damage is found only when a query reads that page, or when a stored
value no longer decodes. Each action ends with exit 0 (the damage was not on its way) or 2 and
one line naming the file and the fix; never a traceback.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from prefixlock.store.database import SessionStore
from tests.helpers.cli import run_cli
from tests.helpers.guardkit import agent, start_emulator, turn

PAGE = 4096


async def _store(db: Path) -> None:
    with start_emulator() as emu:
        store = SessionStore(db)
        async with agent(emu, store=store).session("x") as s:
            for i in range(3):
                await turn(s, f"Turn {i}.")
        store.close()  # checkpointed: the whole store is in the main file


def test_every_damaged_page_is_one_line_naming_the_file(tmp_path: Path) -> None:
    good = tmp_path / "good.sqlite"
    asyncio.run(_store(good))
    data = good.read_bytes()
    assert len(data) // PAGE > 10
    said = 0
    for page in range(1, len(data) // PAGE):
        bad = bytearray(data)
        for i in range(page * PAGE + 8, (page + 1) * PAGE, 3):
            bad[i] ^= 0xFF
        db = tmp_path / f"bad{page}.sqlite"
        db.write_bytes(bytes(bad))
        for action in (["list"], ["show", "x"], ["export", "x", "--jsonl"]):
            ran = run_cli("sessions", "--store", str(db), *action)
            assert ran.returncode in (0, 2), (page, action, ran.stderr)
            if ran.returncode == 2:
                (line,) = ran.stderr.strip().splitlines()
                assert str(db) in line, line
                said += "corrupted" in line
    assert said > 0
