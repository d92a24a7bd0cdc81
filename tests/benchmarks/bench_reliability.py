"""Reliability figures: nothing lost, nothing double-counted (run: python
tests/benchmarks/bench_reliability.py [--turns N] [--kills N]).

Prints one table, tried / held / failed, for:
1. Cut and failed streams (emulator fault injection, every turn) on each wire API: ledger rows
   == billed requests, and no false CacheBreak.
2. Two processes resuming one session (tests/store/lease_worker.py): the second is refused and
   forks; every turn of both is kept, none interleaved.
3. SIGKILLs of a session process at random points: the store holds whole turns only (4
   messages a turn), and the next process takes the lease over.
4. A full disk (SQLite's max_page_count): turns go on, the rows are written once there is room.
Exit 1 if anything failed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guard"))

from guardkit import advance, agent, start_emulator, turn

from prefixlock import Settings
from prefixlock.events import CacheBreak
from prefixlock.store.database import SessionStore

HERE = Path(__file__).resolve().parent
WORKER = str(HERE.parent / "store" / "lease_worker.py")
Row = tuple[str, int, int, int]


async def cut_streams(model: str, turns: int, db: Path) -> Row:
    held = 0
    with start_emulator() as emu:
        a = agent(emu, model=model, store=SessionStore(db), settings=Settings(retries=3))
        breaks = 0
        async with a.session("cut") as s:
            for i in range(turns):
                emu.inject("cut" if i % 2 else "sse-error")
                events = await turn(s, f"Question {i}")
                breaks += sum(isinstance(e, CacheBreak) for e in events)
                advance(emu, 60)
            rows = len(s.ledger.rows)
        billed = sum(r.usage is not None for r in emu.requests)
        held = turns if rows == billed and breaks == 0 else 0
    return (f"cut/failed streams, {model} (ledger {rows} == billed {billed}, "
            f"{breaks} breaks)", turns, held, turns - held)


async def stored(db: Path, sid: str) -> None:
    with start_emulator() as emu:
        store = SessionStore(db)
        async with agent(emu, store=store).session(sid) as s:
            await turn(s, "First.")
        store.close()


def messages(db: Path, sid: str) -> int:
    with SessionStore(db, read_only=True) as store:
        return len(store.load(sid).messages)


def worker(db: Path, sid: str, turns: int, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, WORKER, str(db), sid, str(turns), mode],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def two_processes(db: Path, rounds: int) -> Row:
    held = 0
    for r in range(rounds):
        sid = f"two{r}"
        asyncio.run(stored(db, sid))
        first = worker(db, sid, 2, "hold")
        assert first.stdout is not None and first.stdout.readline().strip() == "held"
        second = worker(db, sid, 2, "fork")
        out2, err2 = second.communicate(timeout=300)
        assert first.stdin is not None
        first.stdin.write("go\n")
        first.stdin.flush()
        _, err1 = first.communicate(timeout=300)
        ok = '"busy": true' in out2 and messages(db, sid) == 4 + 2 * 4
        ok = ok and "Traceback" not in err1 + err2
        held += ok
    return ("two processes resume one session (fork, nothing lost)", rounds, held, rounds - held)


def kills(db: Path, rounds: int, rng: random.Random) -> Row:
    held = 0
    sid = "killed"
    asyncio.run(stored(db, sid))
    for _ in range(rounds):
        p = worker(db, sid, 50, "plain")
        time.sleep(rng.uniform(1.0, 4.0))
        p.send_signal(signal.SIGKILL)
        p.wait()
        n = messages(db, sid)
        with SessionStore(db, read_only=True) as store:
            turns = store.session(sid).turns
        held += n % 4 == 0 and n == 4 * turns and store is not None
    after = worker(db, sid, 1, "plain")
    out, _ = after.communicate(timeout=300)
    taken = '"busy": false' in out
    return (f"SIGKILL at random points (whole turns only; lease taken over: {taken})",
            rounds, held if taken else 0, rounds - (held if taken else 0))


async def disk_full(db: Path, turns: int) -> Row:
    store = SessionStore(db)
    with start_emulator() as emu:
        async with agent(emu, store=store).session("full") as s:
            await turn(s, "Room.")
            (pages,) = store._db.execute("PRAGMA page_count").fetchone()
            store._db.execute(f"PRAGMA max_page_count = {pages}")
            for i in range(turns):
                await turn(s, f"Full {i}.")
                advance(emu, 30)
            store._db.execute("PRAGMA max_page_count = 1000000")
            await turn(s, "Room again.")
            rows = len(s.ledger.rows)
    with SessionStore(db, read_only=True) as ro:
        kept = len(ro.usage_rows("full"))
    held = turns if kept == rows else 0
    return (f"disk full mid-session (stored {kept} == ledger {rows})", turns, held, turns - held)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--kills", type=int, default=6)
    args = parser.parse_args()
    rng = random.Random(19)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for model in ("claude-opus-4-7", "gpt-5.4", "openai-responses:gpt-5.4"):
            name = model.replace(":", "_")
            rows.append(asyncio.run(cut_streams(model, args.turns, t / f"{name}.sqlite")))
        rows.append(two_processes(t / "two.sqlite", 2))
        rows.append(kills(t / "kills.sqlite", args.kills, rng))
        rows.append(asyncio.run(disk_full(t / "full.sqlite", args.turns // 2)))
    width = max(len(r[0]) for r in rows)
    print(f"{'scenario':<{width}}  {'tried':>5}  {'held':>5}  {'failed':>6}")
    for name, tried, held, failed in rows:
        print(f"{name:<{width}}  {tried:>5}  {held:>5}  {failed:>6}")
    return 1 if any(r[3] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
