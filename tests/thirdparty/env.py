"""Third-party clients' own environment: one virtualenv per requirement set, built once.

`thirdparty_python(requirements)` returns the python of a venv holding exactly those packages
(from PyPI, by the ordinary pip client), built under `$PREFIXLOCK_THIRDPARTY_DIR` or
`~/.cache/prefixlock/thirdparty/`, in a folder named by a hash of the requirements and the
interpreter's version, and reused while its `ready` marker stands. Never our venv: the clients
run unchanged, with their own dependency pins, beside nothing of prefixlock. When the venv cannot
be built (offline, no such version) it raises `EnvUnavailable` with pip's last words, which the
tests turn into a skip.
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

# Every client of the compatibility suite shares one venv: their pins allow it, and CI builds it
# once. Minimums are the versions the suite was written against (the features it drives:
# pydantic-ai's Anthropic cache settings and `openai_previous_response_id`, LangChain v1's
# middleware, openai-agents' `previous_response_id`).
CLIENTS = (
    "anthropic>=0.75",
    "openai>=2.8",
    "pydantic-ai-slim[anthropic,openai]>=1.40",
    "openai-agents>=0.6",
    "langchain>=1.1",
    "langchain-anthropic>=1.2",
)


class EnvUnavailable(RuntimeError):
    """The venv could not be built here (no index reachable, no matching version)."""


def cache_root() -> Path:
    configured = os.environ.get("PREFIXLOCK_THIRDPARTY_DIR")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "prefixlock" / "thirdparty"


def env_key(requirements: Sequence[str]) -> str:
    """The folder name of a requirement set: the same set on the same Python reuses its venv."""
    text = "\n".join(sorted(requirements)) + f"\npython {sys.version_info[:2]}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _bin(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def thirdparty_python(
    requirements: Sequence[str] = CLIENTS, *, root: Path | None = None, timeout: float = 1500
) -> Path:
    """The python of a venv with `requirements` installed, building it on first use."""
    base = (root or cache_root()) / env_key(requirements)
    venv, ready = base / "venv", base / "ready"
    if ready.exists() and _bin(venv).exists():
        return _bin(venv)
    base.mkdir(parents=True, exist_ok=True)
    # Two test processes (or two engineers' runs) building the same venv wait for each other.
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready.exists() and _bin(venv).exists():
            return _bin(venv)
        shutil.rmtree(venv, ignore_errors=True)
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(_bin(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             *requirements],
        ]
        for cmd in steps:
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                raise EnvUnavailable(f"{cmd[2]} took over {timeout:.0f}s") from None
            if done.returncode != 0:
                said = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
                last = said[-1] if said else f"exit status {done.returncode}"
                raise EnvUnavailable(f"cannot build the third-party venv: {last}")
        (base / "requirements.txt").write_text("\n".join(requirements) + "\n")
        ready.write_text("ok\n")
    return _bin(venv)


if __name__ == "__main__":  # `python -m tests.thirdparty.env`: build it, print its python
    print(thirdparty_python())
