"""The guard's and store's public names are importable from `prefixlock` itself."""

from __future__ import annotations

import prefixlock
import prefixlock.guard
import prefixlock.store
from prefixlock.guard import budget, cacheguard, quote
from prefixlock.store import database


def test_guard_and_store_names_are_exported() -> None:
    names = {
        "CacheGuard": cacheguard.CacheGuard,
        "CacheBudget": budget.CacheBudget,
        "CacheBudgetExceeded": budget.CacheBudgetExceeded,
        "Quote": quote.Quote,
        "QuoteRequired": quote.QuoteRequired,
        "StaleQuote": quote.StaleQuote,
        "SessionStore": database.SessionStore,
    }
    for name, obj in names.items():
        assert getattr(prefixlock, name) is obj and name in prefixlock.__all__
        package = prefixlock.store if name == "SessionStore" else prefixlock.guard
        assert getattr(package, name) is obj and name in package.__all__
