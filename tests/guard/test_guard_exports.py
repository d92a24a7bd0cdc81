"""The guard's and store's public names are importable from `prefixlock` itself."""

from __future__ import annotations

import prefixlock
from prefixlock import guard, quote, store


def test_guard_and_store_names_are_exported() -> None:
    names = {
        "CacheGuard": guard.CacheGuard,
        "CacheBudget": guard.CacheBudget,
        "CacheBudgetExceeded": guard.CacheBudgetExceeded,
        "Quote": quote.Quote,
        "QuoteRequired": quote.QuoteRequired,
        "StaleQuote": quote.StaleQuote,
        "SessionStore": store.SessionStore,
    }
    for name, obj in names.items():
        assert getattr(prefixlock, name) is obj and name in prefixlock.__all__
