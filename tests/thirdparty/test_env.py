"""The third-party venv builder: a requirement set that cannot be installed is EnvUnavailable
with pip's reason (the suite skips on it) and leaves no ready venv; a ready one is reused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.thirdparty.env import EnvUnavailable, env_key, thirdparty_python


@pytest.mark.slow  # runs pip
def test_an_uninstallable_set_is_unavailable_with_pips_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline, as a machine without PyPI is
    reqs = ("prefixlock-no-such-package==1.0",)
    with pytest.raises(EnvUnavailable, match="prefixlock-no-such-package"):
        thirdparty_python(reqs, root=tmp_path)
    assert not (tmp_path / env_key(reqs) / "ready").exists()


def test_a_ready_venv_is_reused_by_the_hash_of_its_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reqs = ("b>=2", "a>=1")
    base = tmp_path / env_key(("a>=1", "b>=2"))  # the order of the set does not matter
    (base / "venv" / "bin").mkdir(parents=True)
    (base / "venv" / "bin" / "python").touch()
    (base / "ready").touch()
    monkeypatch.setenv("PREFIXLOCK_THIRDPARTY_DIR", str(tmp_path))
    assert thirdparty_python(reqs) == base / "venv" / "bin" / "python"
    assert env_key(reqs) != env_key(("a>=1",))
