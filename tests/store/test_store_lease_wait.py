"""Waiting for a busy session (bounded), and the lease heartbeat renewed on a timer.

Every wait here runs on a ManualClock: `acquire(wait=)` steps the store's clock instead of
sleeping, so a 15-minute wait takes no real time. The heartbeat timer is driven the same way
(`tick()` after moving the clock; `run()` with a stop whose `wait` moves it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.clock import ManualClock
from prefixlock.store.database import SessionStore
from prefixlock.store.heartbeat import LEASE_RENEW_S, Heartbeat
from prefixlock.store.leases import LEASE_STALE_S, Lease, SessionBusyError
from tests.helpers.guardkit import advance, agent, start_emulator, turn


def _session(db: Path, clock: ManualClock, sid: str = "s1") -> None:
    with SessionStore(db, clock=clock) as store:
        store.create_session(
            sid,
            model="claude-opus-4-7",
            api="anthropic",
            provider="anthropic",
            prefix={"system": []},
            prefix_fingerprint="fp",
            created=clock.now(),
        )


def _on_another_host(db: Path, sid: str = "s1") -> None:
    """The holder as a taker on another host sees it: alive only while its heartbeat is."""
    with SessionStore(db) as raw:
        raw._db.execute("UPDATE leases SET host='elsewhere' WHERE session_id=?", (sid,))


class ReleasingClock(ManualClock):
    """A clock on which the holder closes the session `after` seconds into the wait."""

    def __init__(self, holder: SessionStore, after: float) -> None:
        super().__init__()
        self.holder, self.at = holder, self.now() + after

    def advance(self, seconds: float) -> float:
        now = super().advance(seconds)
        if now >= self.at and "s1" in self.holder._held:
            self.holder.release("s1")
        return now


def test_a_wait_ends_when_the_holder_closes(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    holder = SessionStore(db)
    clock = ReleasingClock(holder, after=30.0)
    holder.clock = clock
    _session(db, clock)
    holder.acquire("s1")
    waiter = SessionStore(db, clock=clock)
    said: list[Lease | None] = []
    start = clock.now()
    lease = waiter.acquire("s1", wait=120.0, on_wait=said.append)
    assert lease.token == waiter._held["s1"]
    assert 30.0 <= clock.now() - start <= 30.5  # taken at the first look after the close
    assert len(said) == 1 and said[0] is not None and said[0].token != lease.token
    waiter.close()
    holder.close()


def test_a_wait_is_bounded_and_says_how_long_it_waited(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    clock = ManualClock()
    _session(db, clock)
    with SessionStore(db, clock=clock) as holder, SessionStore(db, clock=clock) as waiter:
        holder.acquire("s1")
        said: list[Lease | None] = []
        start = clock.now()
        with pytest.raises(SessionBusyError) as err:
            waiter.acquire("s1", wait=60.0, on_wait=said.append)
        assert clock.now() - start == 60.0 and len(said) == 1
        assert "after waiting 60 s" in str(err.value) and "--fork" in str(err.value)
        assert len(str(err.value).splitlines()) == 1
        with pytest.raises(SessionBusyError) as now:  # no wait: refused at once, said as before
            waiter.acquire("s1")
        assert "waiting" not in str(now.value) and clock.now() - start == 60.0


def test_a_wait_outlasts_a_silent_holder_on_another_host(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    clock = ManualClock()
    _session(db, clock)
    holder = SessionStore(db, clock=clock)
    holder.acquire("s1")
    holder.heartbeat_timer.stop()  # type: ignore[union-attr]  # a host gone silent
    _on_another_host(db)
    start = clock.now()
    with SessionStore(db, clock=clock) as waiter:
        waiter.acquire("s1", wait=LEASE_STALE_S + 100)
        assert LEASE_STALE_S <= clock.now() - start <= LEASE_STALE_S + 0.5


async def test_agent_resume_waits_on_the_agents_clock(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=db)  # opened by the agent, on its (the emulator's) clock
        async with a.session("s1") as s:
            await turn(s, "Stored.")
            start = emu.clock.now()
            other = agent(emu, store=db)
            said: list[Lease | None] = []
            with pytest.raises(SessionBusyError):
                other.resume("s1", wait=45.0, on_wait=said.append)
            assert emu.clock.now() - start == 45.0 and len(said) == 1
        async with other.resume("s1", wait=45.0) as again:  # closed: no wait at all
            assert emu.clock.now() - start == 45.0 and len(again.transcript) == 4


async def test_an_idle_open_session_is_not_taken_over(tmp_path: Path) -> None:
    """A chat left open and idle for 30 minutes writes nothing; its timer keeps the heartbeat
    fresh, so another host does not take it over. Without the ticks it would be (the last
    part), which is what the timer is for."""
    db = tmp_path / "s.sqlite"
    with start_emulator() as emu:
        store = SessionStore(db, clock=emu.clock)
        async with agent(emu, store=store).session("s1") as s:
            await turn(s, "Hello.")
            timer = store.heartbeat_timer
            assert timer is not None and timer.running
            _on_another_host(db)
            for _ in range(30):
                advance(emu, 60)
                assert timer.tick()
            with SessionStore(db, clock=emu.clock) as other, pytest.raises(SessionBusyError):
                other.acquire("s1")
            await turn(s, "Still mine.")  # its next write is its own
            advance(emu, LEASE_STALE_S + 1)  # no ticks: the timer is what kept it
            with SessionStore(db, clock=emu.clock) as other:
                other.acquire("s1")
            with pytest.raises(SessionBusyError):
                await turn(s, "Taken over meanwhile.")
        assert not timer.running  # stopped when the session let go of the store


class Steps:
    """A stop whose every wait moves the clock by `step`, stopping after `n` waits."""

    def __init__(self, clock: ManualClock, step: float, n: int) -> None:
        self.clock, self.step, self.left = clock, step, n

    def wait(self, timeout: float | None = None) -> bool:
        self.clock.advance(self.step)
        self.left -= 1
        return self.left < 0


def test_the_timer_renews_every_interval_of_its_clock(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    clock = ManualClock()
    _session(db, clock)
    with SessionStore(db, clock=clock) as store:
        store.acquire("s1")
        start = clock.now()
        beat = Heartbeat(store.heartbeat, clock)
        beat.run(Steps(clock, 20.0, 10))  # 200 s in steps of 20: renewed at 60, 120, 180
        assert beat.renewals == 3
        (beat_at,) = store._db.execute("SELECT heartbeat FROM leases").fetchone()
        assert beat_at == start + 3 * LEASE_RENEW_S
        store.release("s1")
        assert store.heartbeat_timer is not None and not store.heartbeat_timer.running


def test_a_heartbeat_never_takes_back_a_lease_taken_over(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    clock = ManualClock()
    _session(db, clock)
    with SessionStore(db, clock=clock) as store:
        store.acquire("s1")
        with SessionStore(db) as raw:
            raw._db.execute("UPDATE leases SET token='theirs', heartbeat=1")
        clock.advance(LEASE_RENEW_S)
        assert store.heartbeat() == 0 and "s1" not in store._held
        (token, beat_at) = store._db.execute("SELECT token, heartbeat FROM leases").fetchone()
        assert (token, beat_at) == ("theirs", 1)
