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

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .budget import CacheBudget as CacheBudget
    from .budget import CacheBudgetExceeded as CacheBudgetExceeded
    from .cacheguard import CAUSES as CAUSES
    from .cacheguard import CacheGuard as CacheGuard
    from .cacheguard import Prediction as Prediction
    from .quote import Alternative as Alternative
    from .quote import Quote as Quote
    from .quote import QuoteRequired as QuoteRequired
    from .quote import StaleQuote as StaleQuote


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
