"""The store tests share the guard tests' scripted session (tests/helpers/guardkit.py), and a
small real filesystem (`small_disk`) for the full-disk and read-only cases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.mounts import CannotMount, tmpfs


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs (skipped, with the reason, where this machine cannot mount one)."""
    try:
        with tmpfs(tmp_path / "mnt", "1m") as where:
            yield where
    except CannotMount as why:
        pytest.skip(str(why))
