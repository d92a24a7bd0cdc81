"""`prefixlock serve` where it cannot listen (a port in use, an address this machine does not
have): one line naming the address, exit 2, no traceback."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.helpers.cli import run_cli


def test_a_busy_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ran = run_cli("serve", "--host", "127.0.0.1", "--port", str(port), cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert f"127.0.0.1:{port}" in line and "in use" in line


def test_an_address_this_machine_lacks_is_one_line_and_exit_2(tmp_path: Path) -> None:
    ran = run_cli("serve", "--host", "203.0.113.7", "--port", "0", cwd=tmp_path)  # TEST-NET-3
    assert ran.returncode == 2, ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert "203.0.113.7" in line and "cannot listen" in line
