"""prefixlock's SDK: frozen prefixes, cache-aware providers, ledger, guard, store, emulator,
simulator."""

from .agent import Agent, RunResult, Session, SyncSession
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
from .guard import CacheBudget, CacheBudgetExceeded, CacheGuard
from .ledger import Ledger, LedgerRow
from .prefix import FrozenPrefix
from .prices import Price, PriceTable
from .providers import make_provider, resolve_route
from .quote import Quote, QuoteRequired, StaleQuote
from .settings import Settings
from .store import SessionStore
from .tools import Tool, ToolSpec, tool
from .transcript import Message, Transcript
from .usage import Usage, parse_usage
from .wire import WireRequest

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
