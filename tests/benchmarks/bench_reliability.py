"""Reliability figures: nothing lost, nothing double-counted, no tracebacks (run: python -m
tests.benchmarks.bench_reliability [--turns N] [--kills N] [--workers N]).

Prints ONE table, tried / held / failed, for:
1. Fault injection on each wire API (a cut stream or an SSE error on every request): ledger
   rows == billed requests, and no false CacheBreak.
2. Concurrent sessions on one store: N processes, each its own session, at once; two
   processes resuming one session (the second forks, or waits for the first): every turn of
   every process kept, none interleaved.
3. SIGKILLs of a session process at random points: the store holds whole turns only (4
   messages a turn), and the next process takes the lease over.
4. A full disk mid-session: SQLite's max_page_count (always), and a real 1 MiB tmpfs filled up
   (where this machine can mount one; else the row says why it was skipped): turns go on, the
   rows are written once there is room (stored == ledger == billed).
5. A store on a read-only filesystem (a tmpfs remounted read-only; skipped likewise): sessions
   list / show / export work, opening it to write is one line.
6. The bad-input table over every command (tests/helpers/bad_input.py, as
   tests/cli/test_bad_input.py runs it): exit 2, one line, nothing written.
7. Opening a store while another writer writes and checkpoints it (never "malformed"); flipped
   bits in a store (every read a result or one StoreError); 8 `run --resume ID --wait` at once
   (all go on, in turn); a session closed on a full disk raises StoreWriteLost.
8. Fuzzed inputs (tests/helpers/fuzz.py, seeded, `--fuzz` each, 1,000 by default):
   `lint --report` and the emulator's intake; no traceback, no 5xx. A crowd of slowloris
   connections on the emulator stays within its worker bound.
9. The proxy's bookkeeping soaked (`--soak` requests, 100,000 by default: session tracking,
   guards, figures, the store), in one-request and in long sessions: RSS after 1,000 and after
   all of them (printed), held when it grew less than 32 MB from the first to the last.
10. The proxy probes (tests/benchmarks/proxy_probes.py): hostile clients and upstreams against
   the real `prefixlock proxy` process in front of `prefixlock serve` and a bare upstream;
   prints "held N of M" with every failure named.
11. The proxy PROCESS soaked over HTTP (`--soak` requests through `prefixlock proxy` in front of
   `prefixlock serve`, one-request and 40-request sessions, 4 keep-alive clients): its RSS
   from /proc after 1,000, half and all of them, held when it grew less than 32 MB in all and
   less than 8 MB over the second half (a leak is a slope: its bounded caches fill in the
   first), and every request was answered and stored. `--only proxysoak --soak 100000` is
   the 100K soak.
`--only GROUPS` runs some (comma list of faults, stores, bad, fuzz, soak, proxy, proxysoak).
Then the tracebacks seen anywhere (every process's stderr, every command's, unraisable
exceptions in this one). Exit 1 if anything failed or any traceback was seen.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from prefixlock import Settings
from prefixlock.events import CacheBreak
from prefixlock.store.database import SessionStore
from prefixlock.store.errors import StoreError
from prefixlock.transcript import Message
from tests.helpers.bad_input import BAD, make_folder, run_row
from tests.helpers.cli import run_cli
from tests.helpers.guardkit import advance, agent, start_emulator, turn
from tests.helpers.mounts import CannotMount, fill, remount_read_only, tmpfs

ROOT = Path(__file__).resolve().parents[2]
WORKER = ("-m", "tests.store.lease_worker")  # run from ROOT, where `tests` imports
Row = tuple[str, int, int, int]
TRACEBACKS: list[str] = []  # where each traceback was seen


def _saw(where: str, text: str) -> None:
    TRACEBACKS.extend([where] * (text.count("Traceback") + text.count("Exception ignored")))


@contextlib.contextmanager
def watched(where: str) -> Iterator[None]:
    """Count what this process prints as a traceback, and exceptions nobody could raise (an
    async generator closed at exit), while the block runs."""
    err = io.StringIO()
    before = sys.unraisablehook

    def hook(u: Any) -> None:
        TRACEBACKS.append(f"{where} (unraisable: {u.exc_value!r})")

    sys.unraisablehook = hook
    try:
        with contextlib.redirect_stderr(err):
            yield
    finally:
        sys.unraisablehook = before
        _saw(where, err.getvalue())


def row(name: str, tried: int, held: int) -> Row:
    return (name, tried, held, tried - held)


# -- 1. fault injection per wire API --------------------------------------------------------------


async def cut_streams(model: str, turns: int, db: Path) -> Row:
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
    with SessionStore(db, read_only=True) as ro:
        stored = len(ro.usage_rows("cut"))
    ok = rows == billed == stored and breaks == 0
    return row(
        f"faults on every request, {model} (ledger {rows}, stored {stored}, billed "
        f"{billed}; {breaks} breaks)",
        turns,
        turns if ok else 0,
    )


# -- 2. concurrent sessions on one store ----------------------------------------------------------


async def stored(db: Path, sid: str) -> None:
    with start_emulator() as emu:
        store = SessionStore(db)
        async with agent(emu, store=store).session(sid) as s:
            await turn(s, "First.")
        store.close()


def messages(db: Path, sid: str) -> list[str]:
    with SessionStore(db, read_only=True) as store:
        return [Message.from_dict(m).text for m in store.load(sid).messages]


def worker(db: Path, sid: str, turns: int, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *WORKER, str(db), sid, str(turns), mode],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(p: subprocess.Popen[str], where: str) -> dict[str, Any]:
    out, err = p.communicate(timeout=300)
    _saw(where, err)
    lines = out.strip().splitlines()
    return dict(json.loads(lines[-1])) if p.returncode == 0 and lines else {"failed": err[-300:]}


def many_sessions(db: Path, workers: int, turns: int) -> Row:
    ids = [f"own{i}" for i in range(workers)]
    for sid in ids:
        asyncio.run(stored(db, sid))
    procs = [worker(db, sid, turns, "plain") for sid in ids]
    held = 0
    for sid, p in zip(ids, procs, strict=True):
        got = finish(p, "concurrent sessions")
        kept = messages(db, sid)
        mine = sum(f"plain turn {i} from this process" in kept for i in range(turns))
        held += got.get("busy") is False and len(kept) == 4 + 4 * turns and mine == turns
    return row(
        f"{workers} processes at once, each its own session, one store ({turns} turns each)",
        workers,
        held,
    )


def one_session(db: Path, rounds: int, second: str) -> Row:
    """Two processes on one session: the second forks it, or waits for the first to close."""
    held = 0
    for r in range(rounds):
        sid = f"{second}{r}"
        asyncio.run(stored(db, sid))
        first = worker(db, sid, 2, "hold")
        assert first.stdout is not None and first.stdout.readline().strip() == "held"
        other = worker(db, sid, 2, second)
        if second == "wait":  # the holder goes on once the second says it is waiting
            assert other.stdout is not None and other.stdout.readline().strip() == "waiting"
        else:
            got2 = finish(other, f"two processes ({second})")
        assert first.stdin is not None
        first.stdin.write("go\n")
        first.stdin.flush()
        got1 = finish(first, f"two processes ({second})")
        if second == "wait":
            got2 = finish(other, f"two processes ({second})")
        kept = messages(db, sid)
        if second == "fork":
            fork = messages(db, str(got2.get("id")))
            ok = got2.get("busy") is True and len(kept) == 4 + 2 * 4 and len(fork) == 4 + 2 * 4
            ok = ok and not any("fork turn" in m for m in kept)
        else:  # one after the other on the same session: 1 + 2 + 2 turns, in that order
            hold = [i for i, m in enumerate(kept) if m.startswith("hold turn")]
            wait = [i for i, m in enumerate(kept) if m.startswith("wait turn")]
            ok = got2.get("id") == sid and len(kept) == 4 + 4 * 4
            ok = ok and len(hold) == len(wait) == 2 and max(hold) < min(wait)
        held += ok and got1.get("busy") is False
    how = "the second forks it" if second == "fork" else "the second waits (--wait), then goes on"
    return row(f"two processes resume one session: {how}; nothing lost", rounds, held)


# -- 3. SIGKILLs ------------------------------------------------------------------------------


def kills(db: Path, rounds: int, rng: random.Random) -> Row:
    held = 0
    sid = "killed"
    asyncio.run(stored(db, sid))
    for _ in range(rounds):
        p = worker(db, sid, 50, "plain")
        time.sleep(rng.uniform(1.0, 4.0))
        p.send_signal(signal.SIGKILL)
        _, err = p.communicate()
        _saw("SIGKILL", err)
        n = len(messages(db, sid))
        with SessionStore(db, read_only=True) as store:
            turns = store.session(sid).turns
        held += n % 4 == 0 and n == 4 * turns
    after = finish(worker(db, sid, 1, "plain"), "after the SIGKILLs")
    taken = after.get("busy") is False
    return row(
        f"SIGKILL at random points (whole turns only; lease taken over: {taken})",
        rounds,
        held if taken else 0,
    )


# -- 4. full disks ----------------------------------------------------------------------------


async def filled_turns(
    db: Path,
    turns: int,
    full: Callable[[SessionStore], None],
    room: Callable[[SessionStore], None],
) -> tuple[int, int, int, list[dict[str, Any]]]:
    """A session whose store fills after its first turn, for `turns` turns, then has room
    again: (turns said once, ledger rows, billed, transcript)."""
    store = SessionStore(db)
    said = 0
    with start_emulator() as emu:
        async with agent(emu, store=store).session("full") as s:
            await turn(s, "Room.")
            full(store)
            for i in range(turns):
                events = await turn(s, f"Full {i}. " + "x" * 2000)
                said += sum(type(e).__name__ == "StoreWriteFailed" for e in events)
                advance(emu, 30)
            room(store)
            await turn(s, "Room again.")
            transcript = [m.to_dict() for m in s.transcript]
            rows = len(s.ledger.rows)
        billed = len(emu.requests)
    store.close()
    return said, rows, billed, transcript


def _stored_matches(db: Path, rows: int, billed: int, transcript: list[dict[str, Any]]) -> str:
    with SessionStore(db, read_only=True) as ro:
        kept = len(ro.usage_rows("full"))
        same = [Message.from_dict(m).to_dict() for m in ro.load("full").messages] == transcript
    return (
        f"stored {kept} == ledger {rows} == billed {billed}"
        if (kept == rows == billed and same)
        else f"MISMATCH stored {kept}, ledger {rows}"
    )


async def disk_full_pages(db: Path, turns: int) -> Row:
    def limit(store: SessionStore, pages: int | None) -> None:
        if pages is None:
            (pages,) = store._db.execute("PRAGMA page_count").fetchone()
        store._db.execute(f"PRAGMA max_page_count = {pages}")

    said, rows, billed, transcript = await filled_turns(
        db, turns, lambda st: limit(st, None), lambda st: limit(st, 1_000_000)
    )
    what = _stored_matches(db, rows, billed, transcript)
    ok = said == 1 and not what.startswith("MISMATCH")
    return row(
        f"disk full mid-session, SQLite page limit ({what}; said {said}x)",
        turns,
        turns if ok else 0,
    )


async def disk_full_tmpfs(where: Path, turns: int) -> Row:
    try:
        with tmpfs(where, "1m") as mnt:
            filler: list[Path] = []
            said, rows, billed, transcript = await filled_turns(
                mnt / "s.sqlite",
                turns,
                lambda _: filler.append(fill(mnt)),
                lambda _: filler.pop().unlink(),
            )
            what = _stored_matches(mnt / "s.sqlite", rows, billed, transcript)
    except CannotMount as why:
        return row(f"disk full mid-session, real 1 MiB tmpfs: SKIPPED ({why})", 0, 0)
    ok = said == 1 and not what.startswith("MISMATCH")
    return row(
        f"disk full mid-session, real 1 MiB tmpfs ({what}; said {said}x)", turns, turns if ok else 0
    )


# -- 5. read-only filesystem ------------------------------------------------------------------


async def read_only(where: Path, sessions: int) -> Row:
    try:
        with tmpfs(where, "2m") as mnt:
            db = mnt / "s.sqlite"
            for i in range(sessions):
                await stored(db, f"ro{i}")
            remount_read_only(mnt)
            held, tried = 0, 0
            ran = run_cli("sessions", "--store", str(db), "list")
            _saw("read-only", ran.stderr)
            tried, held = (
                1,
                int(ran.returncode == 0 and all(f"ro{i}" in ran.stdout for i in range(sessions))),
            )
            for i in range(sessions):
                for cmd in (("show", f"ro{i}"), ("export", f"ro{i}", "--jsonl")):
                    ran = run_cli("sessions", "--store", str(db), *cmd)
                    _saw("read-only", ran.stderr)
                    tried += 1
                    held += ran.returncode == 0 and bool(ran.stdout.strip())
            tried += 1
            try:
                SessionStore(db).close()
            except StoreError as err:
                held += "read-only" in str(err) and len(str(err).splitlines()) == 1
    except CannotMount as why:
        return row(f"store on a read-only filesystem: SKIPPED ({why})", 0, 0)
    return row(
        "store on a read-only tmpfs (list, show, export; a write open is one line)", tried, held
    )


# -- 6. bad input -----------------------------------------------------------------------------


def bad_input(folder: Path) -> Row:
    make_folder(folder)
    held, faults = 0, []
    for args in BAD:
        ran, fault = run_row(folder, args)
        _saw("bad input", ran.stderr)
        held += fault is None
        if fault is not None:
            faults.append(f"{' '.join(args)}: {fault}")
    for f in faults:
        print(f"  bad input not refused cleanly: {f}", file=sys.stderr)
    return row("bad input over every command: exit 2, one line, nothing written", len(BAD), held)


def busy_opens(db: Path) -> Row:
    from tests.store.test_store_busy_open import (
        test_opening_a_store_while_another_process_writes_it_never_fails as probe,
    )

    db.mkdir()
    try:
        probe(db)
    except AssertionError as exc:
        print(f"  busy store: {str(exc).splitlines()[0]}", file=sys.stderr)
        return row("open a store another writer writes (150 opens)", 1, 0)
    return row("open a store another writer writes (150 opens)", 1, 1)


def bit_flips(folder: Path, count: int) -> Row:
    from tests.store import test_store_bit_flips as flips

    good = folder / "good.sqlite"
    asyncio.run(flips._store(good))
    data = good.read_bytes()
    rng = random.Random(32)
    held = 0
    for i in range(count):
        bad = folder / f"f{i}.sqlite"
        mutated = flips._flipped(data, rng)
        bad.write_bytes(mutated)
        ok = True
        for read_only in (True, False):
            try:
                flips._read_everything(bad, read_only=read_only)
            except StoreError as exc:
                ok = ok and "\n" not in str(exc)
            except Exception as exc:
                print(f"  flip {i}: {type(exc).__name__}: {str(exc)[:100]}", file=sys.stderr)
                ok = False
        held += ok
        bad.unlink()
    return row("flipped bits in a store: a result or one StoreError", count, held)


def waiters(folder: Path) -> Row:
    from tests.store.test_store_wait_queue import WAITERS, test_eight_waiters_all_resume_in_turn

    folder.mkdir()
    try:
        test_eight_waiters_all_resume_in_turn(folder)
    except AssertionError as exc:
        print(f"  waiters: {str(exc).splitlines()[0]}", file=sys.stderr)
        return row(f"{WAITERS} run --resume ID --wait at once", WAITERS, 0)
    return row(f"{WAITERS} run --resume ID --wait at once", WAITERS, WAITERS)


def fuzzed(folder: Path, count: int) -> list[Row]:
    from prefixlock.emulator import Emulator, EmulatorConfig
    from tests.emulator.test_emulator_fuzz import BODIES, server_faults, slowloris_threads
    from tests.policies.test_lint_report_fuzz import crashes

    folder.mkdir()
    lint = crashes(folder, count, seed=7)
    with Emulator.start(EmulatorConfig()) as emu:
        emu_bad = server_faults(emu, max(1, count // len(BODIES)), seed=7)
    for b in [*lint, *emu_bad][:10]:
        print(f"  fuzz: {b[:200]}", file=sys.stderr)
    tried = max(1, count // len(BODIES)) * len(BODIES)
    most = slowloris_threads(400, workers=16)
    return [
        row("lint --report, fuzzed traces: no traceback", count, count - len(lint)),
        row("emulator intake, fuzzed bodies: no 5xx", tried, tried - len(emu_bad)),
        row(f"emulator, 400 slowloris: threads <= 18 (saw {most})", 1, int(most <= 18)),
    ]


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def soak(db: Path, requests: int, long_turns: int) -> Row:
    """The proxy's bookkeeping over `requests` requests: session tracking, a guard and figures
    per session, every request recorded to the store (as the proxy's accounting does)."""
    from decimal import Decimal as D

    from prefixlock.billing.prices import PriceTable
    from prefixlock.proxy.observe import Observer, wire_request
    from prefixlock.proxy.sessions import SessionTracker
    from prefixlock.store.records import NewRequest

    store = SessionStore(db)
    store._db.execute("PRAGMA synchronous=OFF")  # memory is measured here, not durability
    tracker, observer = SessionTracker(), Observer(PriceTable.default())
    system = "You are a careful coding agent. " * 200
    marks: dict[int, float] = {}
    seen_sessions: set[str] = set()
    n = 0
    session = 0
    while n < requests:
        turns = 1 if session % 2 == 0 else long_turns  # one-request and long sessions
        msgs: list[dict[str, Any]] = []
        for t in range(turns):
            msgs = [*msgs, {"role": "user", "content": f"s{session} t{t} " + "w" * 300}]
            body = {"model": "claude-sonnet-4-6", "max_tokens": 100, "system": system}
            body["messages"] = list(msgs)
            m = tracker.identify("anthropic", body, "client")
            tracker.remember(m, "anthropic", body, "client")
            req = wire_request("anthropic", "/v1/messages", body)
            now = 1_000.0 + n
            pred = observer.predict(m.session_id, req, now)
            raw = {"input_tokens": 50, "cache_read_input_tokens": pred.read, "output_tokens": 20}
            seen = observer.observe(m.session_id, "client", req, pred, raw, now)
            if m.session_id not in seen_sessions:
                seen_sessions.add(m.session_id)
                store.create_session(
                    m.session_id,
                    model=seen.model,
                    api="anthropic",
                    provider="anthropic",
                    prefix={"system": [], "tools": []},
                    prefix_fingerprint="proxy",
                    created=now,
                )
            store.record_request(
                m.session_id,
                NewRequest(
                    kind="turn",
                    time=now,
                    provider="anthropic",
                    api="anthropic",
                    model=seen.model,
                    path="/v1/messages",
                    body=body,
                    usage=seen.usage,
                    cost=seen.cost or D(0),
                    cost_without_cache=seen.cost_without_cache or D(0),
                ),
            )
            msgs.append({"role": "assistant", "content": f"answer {t}"})
            n += 1
            if n in (1_000, requests):
                marks[n] = _rss_mb()
            if n % 10_000 == 0:  # progress, for a long soak
                rss = _rss_mb()
                print(f"  soak: {n:,} requests, RSS {rss:.0f} MB", file=sys.stderr, flush=True)
            if n >= requests:
                break
        session += 1
    store.close()
    first, last = marks.get(1_000, 0.0), marks[requests]
    print(
        f"  proxy bookkeeping RSS: {first:.0f} MB at 1,000 requests, {last:.0f} MB at "
        f"{requests:,} ({session:,} sessions)",
        file=sys.stderr,
    )
    grew = last - first
    return row(
        f"proxy bookkeeping, {requests:,} requests: RSS grew {grew:.0f} MB (< 32)",
        1,
        int(grew < 32),
    )


def proxy_probes(folder: Path) -> Row:
    from tests.benchmarks.proxy_probes import run_probes

    folder.mkdir()
    got = run_probes(folder)
    held = sum(p.held for p in got)
    print(f"  proxy probes: held {held} of {len(got)}", file=sys.stderr)
    for p in got:
        if not p.held:
            print(f"  proxy probe failed: {p.name}: {p.why}", file=sys.stderr)
    return row(
        f"proxy probes against the prefixlock proxy process (held {held} of {len(got)})",
        len(got),
        held,
    )


def proxy_soak(folder: Path, requests: int) -> Row:
    from tests.benchmarks.proxy_probes import soak as soak_process

    folder.mkdir()
    got = soak_process(folder, requests)
    TRACEBACKS.extend(["proxy soak"] * got["tracebacks"])
    first, half, last = got["rss_1000"], got["rss_half"], got["rss_last"]
    print(
        f"  proxy process RSS: {first:.0f} MB at 1,000 requests, {half:.0f} MB at "
        f"{requests // 2:,}, {last:.0f} MB at "
        f"{requests:,} ({got['sessions']:,} sessions; {got['failed']} failed, {got['stored']:,} "
        f"stored; {got['wall_s']:.0f} s wall, load average {got['load']:.1f})",
        file=sys.stderr,
    )
    grew, slope = last - first, last - half
    ok = grew < 32 and slope < 8 and got["failed"] == 0 and got["stored"] == requests
    return row(
        f"proxy process over HTTP, {requests:,} requests: RSS grew {grew:.0f} MB (< 32), "
        f"{slope:.0f} MB over the second half (< 8), all answered and stored",
        1,
        int(ok),
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--kills", type=int, default=6)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--fuzz", type=int, default=1_000)
    parser.add_argument("--soak", type=int, default=100_000)
    parser.add_argument("--only", default="faults,stores,bad,fuzz,soak,proxysoak,proxy")
    args = parser.parse_args()
    only = set(args.only.split(","))
    rng = random.Random(19)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        if "soak" in only:  # first: what the other probes leave in memory is not counted
            rows.append(soak(t / "soak.sqlite", args.soak, 40))
        if "proxysoak" in only:  # the proxy process: its own memory, measured from /proc
            rows.append(proxy_soak(t / "proxysoak", args.soak))
        if "proxy" in only:
            rows.append(proxy_probes(t / "probes"))
        if "fuzz" in only:
            with watched("fuzz"):
                rows.extend(fuzzed(t / "fuzz", args.fuzz))
        if "stores" in only:
            with watched("stores"):
                rows.append(busy_opens(t / "busy"))
                flips = t / "flips"
                flips.mkdir()
                rows.append(bit_flips(flips, args.fuzz))
                rows.append(waiters(t / "waiters"))
        if "faults" in only:
            with watched("fault injection"):
                for model in ("claude-opus-4-7", "gpt-5.4", "openai-responses:gpt-5.4"):
                    name = model.replace(":", "_")
                    rows.append(asyncio.run(cut_streams(model, args.turns, t / f"{name}.sqlite")))
            rows.append(many_sessions(t / "many.sqlite", args.workers, 3))
            rows.append(one_session(t / "fork.sqlite", 2, "fork"))
            rows.append(one_session(t / "wait.sqlite", 2, "wait"))
            rows.append(kills(t / "kills.sqlite", args.kills, rng))
            with watched("disk full"):
                rows.append(asyncio.run(disk_full_pages(t / "full.sqlite", args.turns // 2)))
                rows.append(asyncio.run(disk_full_tmpfs(t / "fullmnt", args.turns // 2)))
            with watched("read-only"):
                rows.append(asyncio.run(read_only(t / "romnt", 3)))
        if "bad" in only:
            bad = t / "bad"
            bad.mkdir()
            rows.append(bad_input(bad))
    return _table(rows)


def _table(rows: list[Row]) -> int:
    rows.append(row("tracebacks seen (any process, any command)", 1, 0 if TRACEBACKS else 1))
    width = max(len(r[0]) for r in rows)
    print(f"{'scenario':<{width}}  {'tried':>5}  {'held':>5}  {'failed':>6}")
    for name, tried, held, failed in rows:
        print(f"{name:<{width}}  {tried:>5}  {held:>5}  {failed:>6}")
    print(f"tracebacks: {len(TRACEBACKS)}" + (f" ({', '.join(TRACEBACKS)})" if TRACEBACKS else ""))
    return 1 if any(r[3] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
