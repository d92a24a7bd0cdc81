"""A session is written by one process at a time: a lease in the store.

Two `chat --resume` of one session used to interleave their writes (one process's turns lost).
Now the second resume is refused with SessionBusyError (fork it, or wait), the fork continues a
copy of the history under a new id, a crashed holder's lease is taken over, and a store that
lost its lease to another holder refuses to write rather than interleave.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.store.database import SessionStore
from prefixlock.store.leases import Lease, SessionBusyError
from prefixlock.transcript import Message
from tests.helpers.cli import run_cli
from tests.helpers.guardkit import agent, start_emulator, turn

ROOT = Path(__file__).resolve().parents[2]
WORKER = ("-m", "tests.store.lease_worker")  # run from ROOT, where `tests` imports


async def _stored(db: Path, sid: str = "s1", turns: int = 2) -> None:
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session(sid) as s:
            for i in range(turns):
                await turn(s, f"Stored turn {i}.")


def _messages(db: Path, sid: str) -> list[str]:
    with SessionStore(db, read_only=True) as store:
        return [Message.from_dict(m).text for m in store.load(sid).messages]


async def test_a_second_resume_in_one_process_is_refused_until_the_first_closes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.sqlite"
    await _stored(db)
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        first = a.resume("s1")
        with pytest.raises(SessionBusyError) as err:
            a.resume("s1")
        assert "fork" in str(err.value) and "wait" in str(err.value)
        assert err.value.holder is not None and err.value.holder.pid == os.getpid()
        await turn(first, "Only the holder writes.")
        await first.aclose()
        async with a.resume("s1") as again:  # released on close
            assert len(again.transcript) == 12  # 2 stored turns and 1, of 4 messages


async def test_fork_copies_the_history_under_a_new_id(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    await _stored(db)
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.resume("s1") as held, a.resume("s1", fork=True) as fork:
            assert fork.id != "s1" and len(fork.transcript) == len(held.transcript) == 8
            assert fork.ledger.cost == held.ledger.cost
            await turn(fork, "Only in the fork.")
            await turn(held, "Only in the original.")
        assert _messages(db, "s1")[-4] == "Only in the original."
        assert _messages(db, fork.id)[-4] == "Only in the fork."
        assert len(_messages(db, fork.id)) == len(_messages(db, "s1")) == 12
        with SessionStore(db, read_only=True) as store:
            assert store.session(fork.id).meta["forked_from"] == "s1"


async def test_a_store_that_lost_its_lease_refuses_to_write(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    await _stored(db)
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        s = a.resume("s1")
        # Another host took it over (its heartbeat said this one was gone).
        with SessionStore(db) as other:
            other._db.execute("UPDATE leases SET token='theirs', host='elsewhere'")
        with pytest.raises(SessionBusyError):
            await turn(s, "Would interleave.")
        await s.aclose()
    assert len(_messages(db, "s1")) == 8


def test_a_lease_on_another_host_expires_with_its_heartbeat() -> None:
    live = Lease("s", "t", 1, "elsewhere", 0.0, 1000.0)
    assert live.alive(1000.0 + 60) and not live.alive(1000.0 + 3600)


def _worker(db: Path, sid: str, turns: int, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *WORKER, str(db), sid, str(turns), mode],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _result(p: subprocess.Popen[str]) -> dict[str, object]:
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "Traceback" not in err, err
    return dict(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.slow  # two processes, seconds: CI runs it in its slow step
async def test_two_processes_on_one_session_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    await _stored(db)
    holder = _worker(db, "s1", 3, "hold")
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    second = _result(_worker(db, "s1", 3, "fork"))  # runs while the holder has it
    assert holder.stdin is not None
    holder.stdin.write("go\n")
    holder.stdin.flush()
    first = _result(holder)
    assert second["busy"] is True and "open in pid" in str(second["error"])
    assert first["busy"] is False and first["id"] == "s1"
    # Each process's turns are all kept, each in its own session: 8 stored + 3 turns of 4.
    assert len(_messages(db, "s1")) == first["messages"] == 20
    assert len(_messages(db, str(second["id"]))) == second["messages"] == 20
    assert sum("hold turn" in m for m in _messages(db, "s1")) == 3
    assert sum("fork turn" in m for m in _messages(db, str(second["id"]))) == 3
    assert not any("fork turn" in m for m in _messages(db, "s1"))


@pytest.mark.slow  # a killed process, seconds: CI runs it in its slow step
async def test_a_killed_holders_lease_is_taken_over(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    await _stored(db)
    holder = _worker(db, "s1", 3, "hold")
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    after = _result(_worker(db, "s1", 1, "plain"))
    assert after["busy"] is False and after["messages"] == 12


def test_the_cli_refuses_a_busy_session_in_one_line_and_forks_it(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    asyncio.run(_stored(db))
    with SessionStore(db) as other:
        other.acquire("s1")  # open in "another chat"
        for cmd in (["run", "Go on.", "--emulator"], ["chat", "--offline"]):
            ran = run_cli(*cmd, "--resume", "s1", "--store", str(db), cwd=tmp_path)
            assert ran.returncode == 2, ran.stderr
            (line,) = ran.stderr.strip().splitlines()
            assert "s1" in line and "--fork" in line and "Traceback" not in ran.stderr
        ran = run_cli(
            "run",
            "Go on.",
            "--emulator",
            "--resume",
            "s1",
            "--fork",
            "--store",
            str(db),
            cwd=tmp_path,
        )
        assert ran.returncode == 0, ran.stderr
    with SessionStore(db, read_only=True) as store:
        ids = {r.id for r in store.sessions()}
    assert len(ids) == 2 and len(_messages(db, "s1")) == 8
    ran = run_cli("run", "Go on.", "--fork", "--store", str(db), cwd=tmp_path)
    assert ran.returncode == 2 and "--fork needs --resume" in ran.stderr
