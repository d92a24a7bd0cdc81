"""Each peer's own venv, under the peers' cache folder (`$PREFIXLOCK_PEERS_DIR` or
`~/.cache/prefixlock/peers`), in a folder named by the peer and a hash of its requirements
(prefixlock.versus.venvs builds and reuses it). A peer whose venv cannot be built raises
`VenvUnavailable`: the report lists it as not measured, never silently skips it."""

from __future__ import annotations

import os
from pathlib import Path

from ..venvs import VenvUnavailable as VenvUnavailable
from ..venvs import ensure_venv, env_key
from . import Peer


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("PREFIXLOCK_PEERS_DIR") or Path(base) / "prefixlock" / "peers")


def peer_home(peer: Peer, root: Path | None = None) -> Path:
    name = peer.venv or peer.name  # a peer's longer-TTL row runs in the peer's own venv
    return (root or cache_root()) / f"{name}-{env_key(peer.requirements)}"


def python_for(peer: Peer, root: Path | None = None) -> Path:
    """The interpreter of `peer`'s venv, building the venv first if needed."""
    return ensure_venv(
        peer_home(peer, root),
        peer.requirements,
        what=f"the venv of peer {peer.name}",
        timeout=900,
    )
