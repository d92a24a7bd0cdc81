"""A request that is the previous one cut short (messages dropped from the end, nothing new):
the guard names the dropped history instead of failing on it."""

from __future__ import annotations

from prefixlock.guard import CacheGuard
from tests.guard.test_guard_pure import msgs, observe, req


def test_a_request_cut_short_is_a_history_change() -> None:
    g = CacheGuard()
    observe(g, req(msgs(6)), 0.0)
    p = g.predict(req(msgs(4)), 10.0)
    assert p.read > 0  # the system prompt's entry still reads
    assert p.cause == "history" and p.lost == p.ceiling - p.read > 0
