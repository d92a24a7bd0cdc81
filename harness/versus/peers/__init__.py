"""Peer clients: each a script that imports only its own framework, run in its own venv.

`PEERS` names each peer, its script (beside this file) and the packages its venv needs;
`prefixlock.versus.peers.envs` builds the venvs (pip, the same cache folder every run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Peer:
    name: str
    script: str  # file name beside this module
    requirements: tuple[str, ...]  # what its venv installs (pip requirement strings)
    config: str  # how it is configured for caching, per its own docs

    @property
    def path(self) -> Path:
        return Path(__file__).with_name(self.script)


PEERS = (
    Peer(
        "anthropic-sdk",
        "anthropic_sdk.py",
        ("anthropic>=0.70",),
        'anthropic SDK loop, top-level automatic cache_control {"type": "ephemeral"}',
    ),
)
