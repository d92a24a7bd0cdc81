"""Shared pytest fixtures. Each area may ADD fixtures here; keep them small and documented."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from prefixlock.clock import ManualClock

# How many xdist workers, and `serial` tests alone (tests/helpers/parallel.py).
pytest_plugins = ["tests.helpers.parallel"]

# The real corpora's third-party projects, written by their `score.py --extract` (each sampled
# project's whole source tree, tests included): scored by the corpus tests, never collected.
collect_ignore_glob = ["policies/corpus/*/files"]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything loaded so far (the SDKs' thousands of pydantic models, the test modules)
    lives as long as the run: move it out of the collector's reach, so the full collections
    during the run and pytest's own at its end do not walk it again and again."""
    gc.freeze()


if TYPE_CHECKING:
    # Imported lazily below: the simulator's GPU checks run where only numpy/cupy are installed.
    from prefixlock.emulator import Emulator


# ---- emulator fixtures -------------------------------------------------------------------------
@pytest.fixture
def emulator() -> Iterator[Emulator]:
    """A local provider emulator on 127.0.0.1 with a ManualClock (`emulator.clock.advance(s)`).

    Anthropic SDK: base_url=emulator.base_url; OpenAI SDK: base_url=emulator.base_url + "/v1";
    any non-empty API key. Read `emulator.requests` for what it saw and reported.
    """
    from prefixlock.emulator import Emulator, EmulatorConfig

    with Emulator.start(config=EmulatorConfig(), clock=ManualClock()) as emu:
        yield emu
