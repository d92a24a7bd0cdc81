"""Run a snippet of Python in a fresh interpreter under a chosen PYTHONHASHSEED: the tests that
check bytes (prefixes, tool schemas, wire bodies) are the same in every process whatever the
seed, i.e. nothing depends on set or dict-of-str iteration order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_with_hash_seed(code: str, hash_seed: str, *args: str, stdin: str | None = None) -> Any:
    """`python -c code args...` from the repository root with PYTHONHASHSEED=hash_seed; the
    JSON it prints. Fails the test if the child exits non-zero or takes over a minute."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONHASHSEED=hash_seed),
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    return json.loads(proc.stdout)
