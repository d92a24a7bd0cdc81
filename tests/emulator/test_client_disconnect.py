"""A client that drops a keep-alive connection is no error of the emulator's: no traceback.

The stdlib server printed "Exception occurred during processing of request" and a
ConnectionResetError traceback to stderr whenever a client reset a kept-alive connection (an
abandoned stream, an SDK closed mid-read): noise in test runs and in `prefixlock serve`.
"""

from __future__ import annotations

import socket

import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator


@pytest.mark.parametrize("error", [ConnectionResetError(104, "reset"), BrokenPipeError(32, "x")])
def test_a_client_gone_away_prints_nothing(
    error: OSError, capsys: pytest.CaptureFixture[str]
) -> None:
    with Emulator.start(clock=ManualClock()) as emu, socket.socket() as sock:
        server = emu._server
        assert server is not None
        try:
            raise error
        except OSError:
            server.handle_error(sock, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""


def test_other_errors_are_still_reported(capsys: pytest.CaptureFixture[str]) -> None:
    with Emulator.start(clock=ManualClock()) as emu, socket.socket() as sock:
        server = emu._server
        assert server is not None
        try:
            raise ValueError("a bug")
        except ValueError:
            server.handle_error(sock, ("127.0.0.1", 1))
    assert "ValueError: a bug" in capsys.readouterr().err
