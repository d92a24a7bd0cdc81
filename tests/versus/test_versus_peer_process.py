"""A peer's process serves one session after another (the suite keeps it between sessions, so a
framework is imported once per worker): the second session it serves is billed exactly as a
fresh process bills it, and a process that dies is reported, not reused."""

from __future__ import annotations

import json
import sys
from decimal import Decimal

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.versus import run as versus_run
from prefixlock.versus.peers import PEERS
from prefixlock.versus.run import PeerError, close_peers, run_peer
from prefixlock.versus.scenario import Scenario
from tests.versus.short import short_turns

PRICES = PriceTable.builtin()


def _bill(run: versus_run.ClientRun) -> list[tuple[int, Decimal, int, int, int]]:
    """Each request's bill, sorted: a subagents turn's four parallel requests arrive in any
    order, in a fresh process as in a kept one."""
    return sorted((r.turn, r.cost, r.read, r.written, r.uncached) for r in run.requests)


def _bodies(run: versus_run.ClientRun) -> list[str]:
    return sorted(json.dumps(row["body"], sort_keys=True) for row in run.trace)


@pytest.mark.slow  # three sessions of the SDK peer: seconds
def test_a_kept_peer_process_bills_the_next_session_as_a_fresh_one() -> None:
    sc = Scenario("short", short_turns())
    command = [sys.executable, str(PEERS[0].path)]
    try:
        fresh = run_peer(sc, PRICES, "anthropic-sdk", command)
        kept = versus_run._LIVE[tuple(command)]
        again = run_peer(sc, PRICES, "anthropic-sdk", command)
        # The same process served the second session, and billed it the same, request by request.
        assert versus_run._LIVE[tuple(command)] is kept
        assert _bill(again) == _bill(fresh) and again.requests
        assert _bodies(again) == _bodies(fresh)
    finally:
        close_peers()
    assert not versus_run._LIVE and kept.proc.poll() == 0  # ended by closing its stdin


def test_a_peer_that_dies_is_reported_with_its_last_words_and_not_kept() -> None:
    sc = Scenario("short", short_turns())
    command = [sys.executable, "-c", "import sys; sys.exit('no framework here')"]
    with pytest.raises(PeerError, match="peer broken stopped: no framework here"):
        run_peer(sc, PRICES, "broken", command)
    assert tuple(command) not in versus_run._LIVE
