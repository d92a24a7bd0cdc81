"""A real PostgreSQL server for the proxy's shared-store tests, from the distribution's own
binaries (`initdb`, `pg_ctl`; `.ci/run` installs them), in a temporary directory on a free port,
stopped at the end. Run as root, the server runs as the `postgres` (else `nobody`) user, as
PostgreSQL refuses root. `start` raises `Unavailable` with the reason where it cannot start."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


class Unavailable(Exception):
    """PostgreSQL cannot be started here (the message says why)."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if found is None:
        raise Unavailable(f"no `{name}` (install the postgresql package)")
    return found


@contextlib.contextmanager
def start() -> Iterator[str]:
    """Yield the URL of a fresh, empty PostgreSQL database; stop and remove it afterwards."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    prefix: list[str] = []
    user = None
    if os.geteuid() == 0:
        for name in ("postgres", "nobody"):
            with contextlib.suppress(KeyError):
                user = pwd.getpwnam(name)
                break
        if user is None or shutil.which("runuser") is None:
            raise Unavailable("running as root with no `postgres` user or `runuser`")
        prefix = ["runuser", "-u", user.pw_name, "--"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = Path(tempfile.mkdtemp(prefix="prefixlock-pg-"))
    try:
        if user is not None:
            os.chown(tmp, user.pw_uid, user.pw_gid)
        data = tmp / "data"
        done = subprocess.run(
            [*prefix, initdb, "-D", str(data), "-U", "prefixlock", "--auth=trust", "-E", "UTF8"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise Unavailable(f"initdb failed: {done.stderr.strip()[-300:]}")
        options = f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = tmp / "log"
        done = subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "start"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            why = log.read_text() if log.exists() else done.stderr
            raise Unavailable(f"pg_ctl start failed: {why.strip()[-300:]}")
        try:
            yield f"postgresql://prefixlock@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                timeout=120,
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
