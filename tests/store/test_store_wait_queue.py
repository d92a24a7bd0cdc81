"""`prefixlock run --resume ID --wait` from many processes at once: each waits its turn and then
works under the lease it waited for, so all of them go on with the session, one after another
(the wait used to give the lease back before resuming, and most lost the race)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.store.database import SessionStore
from prefixlock.transcript import Message
from tests.helpers.cli import KEY_VARS
from tests.helpers.guardkit import agent, start_emulator, turn

WAITERS = 8


async def _stored(db: Path) -> None:
    with start_emulator() as emu:
        async with agent(emu, store=SessionStore(db)).session("s1") as s:
            await turn(s, "Stored turn.")


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_eight_waiters_all_resume_in_turn(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    asyncio.run(_stored(db))
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    cli = [sys.executable, "-c", "from prefixlock.cli.main import main; raise SystemExit(main())"]
    resume = ("--resume", "s1", "--wait", "300")
    procs = [
        subprocess.Popen(
            [*cli, "run", f"Waiter {i}.", "--emulator", "--store", str(db), *resume],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(WAITERS)
    ]
    results = [(p.wait(280), *p.communicate()) for p in procs]
    failed = [err for code, _, err in results if code != 0]
    assert failed == [], f"{len(failed)} of {WAITERS} failed: {failed[0][-600:]}"
    assert not any("Traceback" in err for _, _, err in results)
    with SessionStore(db, read_only=True) as store:
        assert [r.id for r in store.sessions()] == ["s1"]  # nobody forked
        texts = [Message.from_dict(m).text for m in store.load("s1").messages]
    said = sorted(t for t in texts if t.startswith("Waiter "))
    assert said == [f"Waiter {i}." for i in range(WAITERS)]  # every turn kept, once
