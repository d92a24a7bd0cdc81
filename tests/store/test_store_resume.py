"""Resume golden test, and crash safety with a process killed mid-turn (real subprocesses)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from prefixlock.canonical import canonical_bytes
from prefixlock.events import UsageReport
from prefixlock.store.database import SessionStore
from prefixlock.transcript import Message
from tests.helpers import storekit
from tests.helpers.guardkit import advance, agent, start_emulator

ROOT = Path(__file__).resolve().parents[2]
KIT = ("-m", "tests.helpers.storekit")  # run from ROOT, where `tests` imports


def _py(*args: str, **kw: Any) -> subprocess.Popen[str]:
    proc: subprocess.Popen[str] = subprocess.Popen(
        [sys.executable, *KIT, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )
    return proc


async def test_resumed_session_sends_the_same_bytes_and_reads_the_cache(tmp_path: Path) -> None:
    db = str(tmp_path / "sessions.sqlite")
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("golden") as s:
            for i in range(1, 11):
                async for _ in s.send(storekit.text(i)):
                    pass
            # What turn 11 would send from this process.
            expected = s._build_next_request([Message.user(storekit.text(11))])
            last_bp = max(u.end for u in s.requests[-1].units if u.breakpoint)
        n = len(emu.requests)
        proc = _py("resume", db, emu.base_url, "golden", storekit.text(11), str(emu.clock.now()))
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        first = emu.requests[n]
    assert canonical_bytes(first.body) == canonical_bytes(expected.body)
    assert first.usage is not None and first.usage["cache_read_input_tokens"] == last_bp > 0
    result = json.loads(out.splitlines()[-1])
    assert result["turn"] == 11
    assert result["verified"] is True  # turn 10's request rebuilt byte for byte from the store
    # The resumed guard knew what was cached: its prediction was the provider's count.
    assert result["reports"][0] == {"read": last_bp, "predicted": last_bp}
    with SessionStore(db, read_only=True) as store:
        assert store.session("golden").turns == 11


async def test_sigkill_mid_turn_loses_no_completed_turn(tmp_path: Path) -> None:
    db = str(tmp_path / "sessions.sqlite")
    with start_emulator() as emu:
        # Turn 6's second request (after its tool call ran) hangs until the test moves the clock.
        emu.inject("latency", after=11, seconds=10, path="/v1/messages")
        proc = _py("run", db, emu.base_url, "crash", "8", str(emu.clock.now()))
        deadline = time.monotonic() + 60
        while not (emu.in_flight == 1 and len(emu.requests) >= 11):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the turn never started"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.stdout is not None
        done = [json.loads(line)["turn"] for line in proc.stdout.read().splitlines()]
        advance(emu, 10)  # let the emulator's stuck handler finish (the cache stays warm)
        assert done == [1, 2, 3, 4, 5]

        con = sqlite3.connect(db)
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        con.close()
        store = SessionStore(db)
        rec = store.session("crash")
        reqs = list(store.requests("crash"))
        loaded = store.load("crash")
        # Five complete turns: two requests and four messages each; nothing of turn 6.
        assert rec.turns == 5 and len(reqs) == 10 and {r.turn for r in reqs} == {1, 2, 3, 4, 5}
        assert len(loaded.messages) == 20 and loaded.messages[-1]["role"] == "assistant"

        # Resume continues from turn 5, and its first request reads the cache.
        emu.clear_faults()
        async with agent(emu, store=store).resume("crash") as s:
            assert s.turn == 5 and len(s.transcript) == 20 and s.resume_verified
            reports: list[UsageReport] = []
            async for e in s.send(storekit.text(6)):
                if isinstance(e, UsageReport):
                    reports.append(e)
        assert reports[0].usage.cache_read > 0
        # The killed process's unrecorded request had already written this very prefix, so the
        # provider reads a little more than the guard (which knows only stored turns) expected.
        predicted = reports[0].predicted_read
        assert predicted is not None and 0 < predicted <= reports[0].usage.cache_read
        assert store.session("crash").turns == 6
        store.close()
