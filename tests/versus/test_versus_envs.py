"""Each peer's venv: one folder per peer and requirement set under the peers' cache folder,
built by the same builder as the test suite's third-party venv; a peer whose venv cannot be
built raises VenvUnavailable with pip's reason (the report lists it as not measured)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.versus.peers import Peer
from prefixlock.versus.peers.envs import VenvUnavailable, peer_home, python_for
from prefixlock.versus.venvs import env_key


def test_a_ready_peer_venv_is_reused_and_a_changed_set_gets_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFIXLOCK_PEERS_DIR", str(tmp_path))
    peer = Peer("p", "p.py", ("a>=1",), "")
    home = peer_home(peer)
    assert home == tmp_path / f"p-{env_key(('a>=1',))}"
    (home / "venv" / "bin").mkdir(parents=True)
    (home / "venv" / "bin" / "python").touch()
    (home / "ready").touch()
    assert python_for(peer) == home / "venv" / "bin" / "python"
    assert peer_home(Peer("p", "p.py", ("a>=2",), "")) != home


@pytest.mark.slow  # runs pip
def test_an_unbuildable_peer_venv_names_the_peer_and_pips_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline
    peer = Peer("ghost", "ghost.py", ("prefixlock-no-such-package==1.0",), "")
    with pytest.raises(VenvUnavailable, match=r"peer ghost.*prefixlock-no-such-package"):
        python_for(peer, tmp_path)
    assert not (peer_home(peer, tmp_path) / "ready").exists()
