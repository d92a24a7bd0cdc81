"""Fixtures of the simulator tests: slices of the two Mooncake traces (Apache-2.0, see data/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.sim.trace import Trace
from prefixlock.sim.tracefile import read_trace

DATA = Path(__file__).parent / "data"
SLICES = {
    "conversation": DATA / "conversation_head3000.jsonl.gz",
    "synthetic": DATA / "synthetic_head1500.jsonl.gz",
}


@pytest.fixture(scope="session")
def conversation() -> Trace:
    return read_trace(SLICES["conversation"])


@pytest.fixture(scope="session")
def synthetic() -> Trace:
    return read_trace(SLICES["synthetic"])


@pytest.fixture(scope="session", params=sorted(SLICES))
def mooncake(request: pytest.FixtureRequest) -> Trace:
    """Each Mooncake slice in turn."""
    return read_trace(SLICES[request.param])
