"""Virtualenvs for clients that must not share ours: one per requirement set, built once.

`ensure_venv(base, requirements)` returns the python of `base/venv` holding those packages
(installed from the package index by the ordinary pip client), building it on first use and
reusing it while its `ready` marker stands. A folder is named by what it holds (`env_key`: a
hash of the requirement set and the interpreter's version), so a changed set builds a new venv
beside the old one instead of reusing a wrong one. Two processes building the same venv wait for
each other (a file lock). When it cannot be built (offline, no such version) it raises
`VenvUnavailable` with pip's last words and leaves no ready marker.

Used by `prefixlock demo --versus peers` (each peer's venv) and by the test suite's third-party
clients (tests/thirdparty/env.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


class VenvUnavailable(RuntimeError):
    """The venv could not be built here (no index reachable, no matching version)."""


def env_key(requirements: Sequence[str]) -> str:
    """The folder name of a requirement set: the same set on the same Python reuses its venv."""
    text = "\n".join(sorted(requirements)) + f"\npython {sys.version_info[:2]}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(
    base: Path, requirements: Sequence[str], *, what: str = "venv", timeout: float = 1500
) -> Path:
    """The python of `base/venv` with `requirements` installed, building it on first use.
    `what` names the venv in errors ("the venv of peer langchain")."""
    venv, ready = base / "venv", base / "ready"
    if ready.exists() and venv_python(venv).exists():
        return venv_python(venv)
    base.mkdir(parents=True, exist_ok=True)
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready.exists() and venv_python(venv).exists():  # built while we waited
            return venv_python(venv)
        shutil.rmtree(venv, ignore_errors=True)  # a half-built one from an interrupted run
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [
                str(venv_python(venv)),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                *requirements,
            ],
        ]
        for cmd in steps:
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                raise VenvUnavailable(
                    f"cannot build {what} in {base}: {cmd[2]} took over {timeout:.0f}s"
                ) from None
            if done.returncode != 0:
                said = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
                last = said[-1] if said else f"exit status {done.returncode}"
                raise VenvUnavailable(f"cannot build {what} in {base}: {last}")
        (base / "requirements.txt").write_text("\n".join(requirements) + "\n")
        ready.write_text("ok\n")
    return venv_python(venv)
