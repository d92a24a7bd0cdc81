"""The cache guard: predicts what each request reads from the provider's prompt cache, names the
cause of every miss, prices cache-breaking actions before they happen (quotes), enforces a
cache-miss budget, keeps an idle cache warm (keep-alive), compacts in a cache-aligned way, and
weighs a subagent against a switch (economics).

Pure modules (time is passed in, nothing is sent): `cacheguard` (CacheGuard, Prediction),
`budget`, `quote`, `keepalive` (when a ping pays), `compaction`, `economics`. A Session's
collaborators, each working on its `prefixlock.state.SessionState`: `tracker` (GuardTracker:
predictions, ledger rows, misses and the budget of one session's requests), `actions`
(PricedActions: quote and apply switches, tool, prefix and settings changes, compaction) and
`keepalive_runner` (KeepAliveRunner: sends the pings, never during a turn).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .budget import CacheBudget, CacheBudgetExceeded
    from .cacheguard import CAUSES, CacheGuard, Prediction
    from .quote import Alternative, Quote, QuoteRequired, StaleQuote

_EXPORTS = {
    "CAUSES": ".cacheguard",
    "Alternative": ".quote",
    "CacheBudget": ".budget",
    "CacheBudgetExceeded": ".budget",
    "CacheGuard": ".cacheguard",
    "Prediction": ".cacheguard",
    "Quote": ".quote",
    "QuoteRequired": ".quote",
    "StaleQuote": ".quote",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = [
    "CAUSES",
    "Alternative",
    "CacheBudget",
    "CacheBudgetExceeded",
    "CacheGuard",
    "Prediction",
    "Quote",
    "QuoteRequired",
    "StaleQuote",
]
