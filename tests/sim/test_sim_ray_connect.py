"""Reaching a Ray cluster: a wrong --address ends within the connect timeout with one message,
and a connection that never completes is given up (no real waiting: a closed local port refuses
at once, and the stuck call is an event nobody sets)."""

from __future__ import annotations

import signal
import socket
import threading

import pytest

from prefixlock.errors import UserError
from prefixlock.sim.sweep import reach, within


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_nothing_listening_is_refused_at_once() -> None:
    port = _closed_port()
    with pytest.raises(UserError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}"):
        reach(f"127.0.0.1:{port}", 5.0)
    with pytest.raises(UserError, match="cannot reach"):
        reach(f"ray://127.0.0.1:{port}", 5.0)


@pytest.mark.parametrize("bad", ["nohost", "host:", "host:http", "host:70000", ":80"])
def test_an_address_that_is_no_address(bad: str) -> None:
    with pytest.raises(UserError, match="not a Ray address") as info:
        reach(bad, 5.0)
    assert info.value.where == "--address"


def test_a_listening_port_passes_and_auto_is_rays_own() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        reach(f"127.0.0.1:{s.getsockname()[1]}", 5.0)
    reach("auto", 5.0)


def test_a_connect_that_hangs_is_given_up() -> None:
    never = threading.Event()
    # in the main thread (a timer signal interrupts the call) and in another thread
    with pytest.raises(UserError, match="gave up connecting to Ray") as info:
        within(lambda: never.wait(), 0.01, "connecting to Ray at 10.0.0.1:6379")
    assert info.value.where == "--connect-timeout"
    caught: list[BaseException] = []

    def elsewhere() -> None:
        try:
            within(lambda: never.wait(), 0.01, "connecting to Ray at 10.0.0.1:6379")
        except UserError as exc:
            caught.append(exc)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join(5.0)
    never.set()
    assert len(caught) == 1 and "gave up" in str(caught[0])
    assert within(lambda: 7, 5.0, "x") == 7
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL  # the timer's handler is undone
    with pytest.raises(ConnectionError):
        within(lambda: (_ for _ in ()).throw(ConnectionError("no")), 5.0, "x")
