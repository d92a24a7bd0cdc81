"""The lock that lets a `serial` test run alone under pytest-xdist (tests/helpers/parallel.py),
probed with non-blocking locks: no thread waits and nothing sleeps."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.helpers.parallel import run_alone


def _can_lock(path: Path, mode: int) -> bool:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_tests_share_the_lock_and_keep_a_serial_test_out(tmp_path: Path) -> None:
    with run_alone(tmp_path, alone=False):
        assert _can_lock(tmp_path / "serial.lock", fcntl.LOCK_SH)  # another test runs beside
        assert not _can_lock(tmp_path / "serial.lock", fcntl.LOCK_EX)  # a serial one waits
        assert _can_lock(tmp_path / "serial.turnstile", fcntl.LOCK_EX)  # and may queue up
    assert _can_lock(tmp_path / "serial.lock", fcntl.LOCK_EX)


def test_a_serial_test_runs_alone_and_bars_the_turnstile(tmp_path: Path) -> None:
    with run_alone(tmp_path, alone=True):
        assert not _can_lock(tmp_path / "serial.lock", fcntl.LOCK_SH)
        # Tests that arrive while it waits or runs stop at the turnstile, so it is not starved.
        assert not _can_lock(tmp_path / "serial.turnstile", fcntl.LOCK_SH)
    assert _can_lock(tmp_path / "serial.turnstile", fcntl.LOCK_SH)


@pytest.mark.serial
def test_a_marked_test_holds_the_lock_alone_under_xdist(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("the lock is taken only under pytest-xdist")
    shared = tmp_path_factory.getbasetemp().parent
    assert not _can_lock(shared / "serial.lock", fcntl.LOCK_SH)
