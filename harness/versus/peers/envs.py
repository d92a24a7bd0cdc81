"""Each peer's own venv: created once under the cache folder, reused while its requirements are
the same (a stamp file holds them). Building needs pip and a package index; a peer whose venv
cannot be built is reported, never silently skipped."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

from . import Peer


class PeerEnvError(Exception):
    """A peer's venv could not be built (no package index, a failed install)."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("PREFIXLOCK_PEERS_DIR") or Path(base) / "prefixlock" / "peers")


def python_for(peer: Peer, root: Path | None = None) -> Path:
    """The interpreter of `peer`'s venv, building the venv first if needed."""
    home = (root or cache_root()) / peer.name
    python = home / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    stamp = home / "requirements.txt"
    wanted = "\n".join(peer.requirements) + "\n"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", *peer.requirements],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise PeerEnvError(f"cannot build the venv of peer {peer.name} in {home}: {last}")
    stamp.write_text(wanted)
    return python
