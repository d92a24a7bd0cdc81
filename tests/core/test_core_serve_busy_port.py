"""`prefixlock serve` on a port another server holds: one line naming the address, exit 2 (it
was a 34-line traceback ending in an AttributeError)."""

from __future__ import annotations

import socket

import pytest

from prefixlock.cli.main import main


def test_serve_on_a_busy_port_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out = capsys.readouterr()
    assert out.err == (
        f"prefixlock: error: 127.0.0.1:{port}: cannot listen: Address already in use "
        "(pick another with --port)\n"
    )
    assert out.out == ""
