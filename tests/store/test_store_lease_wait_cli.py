"""`prefixlock run --resume ID --wait [SECONDS]` and `prefixlock chat --resume ID --wait`: a
session open elsewhere is waited for (one line on stderr saying so), bounded; still open when the
time is up, it is one line and exit 2. The wait runs on an injected ManualClock (the command's
own run function and the chat backend take one), so nothing sleeps."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from prefixlock.cli.run import _configure_run, _run_run
from prefixlock.clock import ManualClock
from prefixlock.store.database import SessionStore
from prefixlock.store.leases import LEASE_STALE_S, SessionBusyError
from prefixlock.transcript import Message
from tests.helpers.cli import run_cli
from tests.helpers.guardkit import agent, start_emulator, turn


async def _stored(db: Path) -> None:
    with start_emulator() as emu:
        async with agent(emu, store=SessionStore(db)).session("s1") as s:
            await turn(s, "Stored turn.")


def _run_args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="prefixlock run")
    _configure_run(p)
    return p.parse_args(list(argv))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    asyncio.run(_stored(path))
    return path


def test_run_wait_is_bounded_and_says_so_once(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = ManualClock()
    with SessionStore(db) as holder:
        holder.acquire("s1")  # open in another chat, for good
        args = _run_args(
            "Go on.", "--emulator", "--resume", "s1", "--store", str(db), "--wait", "90"
        )
        start = clock.now()
        with pytest.raises(SessionBusyError) as err:
            _run_run(args, clock)
        assert clock.now() - start == 90.0 and "after waiting 90 s" in str(err.value)
    (said,) = capsys.readouterr().err.strip().splitlines()
    assert said.startswith("prefixlock: session 's1' is open in this process; waiting up to 90 s")


def test_run_wait_resumes_once_the_holder_has_gone(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = SessionStore(db)
    holder.acquire("s1")
    holder.heartbeat_timer.stop()  # type: ignore[union-attr]  # its host went silent
    holder._db.execute("UPDATE leases SET host='elsewhere', heartbeat=?", (ManualClock().now(),))
    clock = ManualClock()
    # --wait without a value waits the default 300 s: the holder's heartbeat is still fresh
    # then. A wait as long as LEASE_STALE_S outlasts it.
    with pytest.raises(SessionBusyError):
        _run_run(
            _run_args("Go on.", "--emulator", "--resume", "s1", "--store", str(db), "--wait"), clock
        )
    assert "waiting up to 300 s" in capsys.readouterr().err
    code = _run_run(
        _run_args(
            "Go on.",
            "--emulator",
            "--resume",
            "s1",
            "--store",
            str(db),
            "--wait",
            str(LEASE_STALE_S),
        ),
        clock,
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "waiting up to 900 s" in err and "Traceback" not in err
    assert "waiting up to 300 s" not in err
    with SessionStore(db, read_only=True) as store:  # the same session went on, no fork
        assert [r.id for r in store.sessions()] == ["s1"]
        texts = [Message.from_dict(m).text for m in store.load("s1").messages]
    assert texts[-2] == "Go on." and len(texts) == 6  # 4 stored, 2 of this run
    holder.close()


def test_chat_wait_before_the_screen(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from prefixlock.tui.backend import BackendOptions, make_backend

    clock = ManualClock()
    with SessionStore(db) as holder:
        holder.acquire("s1")
        backend = make_backend(
            BackendOptions(
                store_path=db, resume="s1", wait=30.0, clock=clock, api_key="", workspace=db.parent
            )
        )
        start = clock.now()
        with pytest.raises(SessionBusyError) as err:
            backend.check()
        assert clock.now() - start == 30.0 and "after waiting 30 s" in str(err.value)
    (said,) = capsys.readouterr().err.strip().splitlines()
    assert "waiting up to 30 s" in said
    backend.check()  # closed now: no wait, nothing said
    assert capsys.readouterr().err == "" and clock.now() - start == 30.0


@pytest.mark.parametrize("cmd", [["run", "Go on.", "--emulator"], ["chat", "--offline"]])
@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--wait", "0"], "seconds > 0"),
        (["--wait", "soon"], "seconds > 0"),
        (["--wait", "nan"], "seconds > 0"),
        (["--fork", "--wait", "5"], "--fork does not wait"),
    ],
)
def test_a_bad_wait_is_one_line_and_exit_2(
    db: Path, cmd: list[str], extra: list[str], says: str
) -> None:
    ran = run_cli(*cmd, "--resume", "s1", "--store", str(db), *extra, cwd=db.parent)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert "--wait" in line and says in line


def test_chat_wait_keeps_its_place_until_the_session_opens(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prefixlock.tui.backend import BackendOptions, make_backend

    holder = SessionStore(db)
    holder.acquire("s1")
    holder.heartbeat_timer.stop()  # type: ignore[union-attr]  # its host went silent
    holder._db.execute("UPDATE leases SET host='elsewhere', heartbeat=?", (ManualClock().now(),))
    clock = ManualClock()
    backend = make_backend(
        BackendOptions(
            store_path=db,
            resume="s1",
            wait=float(LEASE_STALE_S),
            clock=clock,
            api_key="",
            workspace=db.parent,
        )
    )
    backend.check()  # waited until the holder went stale, and took the lease
    assert "waiting up to 900 s" in capsys.readouterr().err
    # Between the wait and the screen, another waiter finds the session still held: the chat
    # that waited keeps its place (the wait used to give the lease back at once).
    with SessionStore(db) as other, pytest.raises(SessionBusyError):
        other.acquire("s1")
    # The session then opens on the lease it waited for.
    asyncio.run(backend.start())
    assert backend.session_id == "s1"
    asyncio.run(backend.close())
    with SessionStore(db) as after:  # closed: free again
        after.acquire("s1")
    holder.close()
