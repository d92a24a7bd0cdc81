"""prefixlock's SDK: frozen prefixes, cache-aware providers, ledger, guard, store, emulator,
simulator.

Names are imported lazily (PEP 562) so that `import prefixlock.sim` or `prefixlock --help` does not
load the provider SDKs: the simulator runs where only numpy (or cupy) is installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy import lazy_exports

if TYPE_CHECKING:
    from .agent import Agent, RunResult, SyncSession
    from .canonical import canonical_bytes, canonical_json, fingerprint
    from .clock import ManualClock, SystemClock
    from .errors import (
        ConfigError,
        MissingKeyError,
        PrefixError,
        PrefixlockError,
        ProviderError,
        UnknownModelError,
        UserError,
    )
    from .guard.budget import CacheBudget, CacheBudgetExceeded
    from .guard.cacheguard import CacheGuard
    from .guard.quote import Quote, QuoteRequired, StaleQuote
    from .ledger import Ledger, LedgerRow
    from .prefix import FrozenPrefix
    from .prices import Price, PriceTable
    from .providers import make_provider, resolve_route
    from .session import Session
    from .settings import Settings
    from .store.database import SessionStore
    from .tools import Tool, ToolSpec, tool
    from .transcript import Message, Transcript
    from .usage import Usage, parse_usage
    from .wire import WireRequest

_EXPORTS = {
    "Agent": ".agent",
    "CacheBudget": ".guard.budget",
    "CacheBudgetExceeded": ".guard.budget",
    "CacheGuard": ".guard.cacheguard",
    "ConfigError": ".errors",
    "FrozenPrefix": ".prefix",
    "Ledger": ".ledger",
    "LedgerRow": ".ledger",
    "ManualClock": ".clock",
    "Message": ".transcript",
    "MissingKeyError": ".errors",
    "PrefixError": ".errors",
    "PrefixlockError": ".errors",
    "Price": ".prices",
    "PriceTable": ".prices",
    "ProviderError": ".errors",
    "Quote": ".guard.quote",
    "QuoteRequired": ".guard.quote",
    "RunResult": ".agent",
    "Session": ".session",
    "SessionStore": ".store.database",
    "Settings": ".settings",
    "StaleQuote": ".guard.quote",
    "SyncSession": ".agent",
    "SystemClock": ".clock",
    "Tool": ".tools",
    "ToolSpec": ".tools",
    "Transcript": ".transcript",
    "UnknownModelError": ".errors",
    "Usage": ".usage",
    "UserError": ".errors",
    "WireRequest": ".wire",
    "canonical_bytes": ".canonical",
    "canonical_json": ".canonical",
    "fingerprint": ".canonical",
    "make_provider": ".providers",
    "parse_usage": ".usage",
    "resolve_route": ".providers",
    "tool": ".tools",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "Agent",
    "CacheBudget",
    "CacheBudgetExceeded",
    "CacheGuard",
    "ConfigError",
    "FrozenPrefix",
    "Ledger",
    "LedgerRow",
    "ManualClock",
    "Message",
    "MissingKeyError",
    "PrefixError",
    "PrefixlockError",
    "Price",
    "PriceTable",
    "ProviderError",
    "Quote",
    "QuoteRequired",
    "RunResult",
    "Session",
    "SessionStore",
    "Settings",
    "StaleQuote",
    "SyncSession",
    "SystemClock",
    "Tool",
    "ToolSpec",
    "Transcript",
    "UnknownModelError",
    "Usage",
    "UserError",
    "WireRequest",
    "canonical_bytes",
    "canonical_json",
    "fingerprint",
    "make_provider",
    "parse_usage",
    "resolve_route",
    "tool",
]
