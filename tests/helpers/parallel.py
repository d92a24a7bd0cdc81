"""How the suite runs in parallel (pytest-xdist): how many workers `-n auto` starts, and the
lock that lets a test marked `serial` run alone.

Workers: twice the cores this process may run on. About half of the suite's time is waiting
(the chat app's frames and dialogs, subprocesses, sockets on 127.0.0.1), so two workers a core
keep the cores busy: on 2 cores, 4 workers took the run from 262 s to 167 s.

A `serial` test is one whose result depends on the machine being otherwise idle (timing in a
real terminal). Each test holds a lock file shared by every worker of the run: the others
share it, a `serial` one holds it alone. A turnstile in front of it lets a waiting `serial` test
in before tests that arrive after it, so it is not starved. Without xdist nothing is locked.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return 2 * len(os.sched_getaffinity(0))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # `-s` asks to see what the tests print (a benchmark's figures): xdist's workers would keep
    # it, so such a run stays in this process.
    if config.option.capture == "no" and getattr(config.option, "dist", "no") != "no":
        config.option.dist = "no"
        config.option.numprocesses = 0


@contextmanager
def _flock(path: Path, mode: int) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextmanager
def run_alone(shared: Path, alone: bool) -> Iterator[None]:
    """Hold the run's lock under `shared` (a folder every worker sees): alone, or with others."""
    turnstile, lock = shared / "serial.turnstile", shared / "serial.lock"
    if alone:
        with _flock(turnstile, fcntl.LOCK_EX), _flock(lock, fcntl.LOCK_EX):
            yield
        return
    with ExitStack() as held:
        with _flock(turnstile, fcntl.LOCK_SH):
            held.enter_context(_flock(lock, fcntl.LOCK_SH))
        yield


@pytest.fixture(autouse=True)
def _serial_lock(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    # Each worker's base temp folder is a child of the run's: the parent is shared.
    shared = tmp_path_factory.getbasetemp().parent
    with run_alone(shared, request.node.get_closest_marker("serial") is not None):
        yield
