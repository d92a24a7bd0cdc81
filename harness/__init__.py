"""prefixlock's SDK: frozen prefixes, cache-aware providers, ledger, guard, store, emulator, simulator."""

from .canonical import canonical_bytes, canonical_json, fingerprint
from .errors import (
    ConfigError,
    MissingKeyError,
    PrefixError,
    PrefixlockError,
    ProviderError,
    UnknownModelError,
    UserError,
)
from .prefix import FrozenPrefix
from .prices import Price, PriceTable
from .tools import Tool, ToolSpec, tool
from .transcript import Message, Transcript
from .usage import Usage, parse_usage
from .wire import WireRequest

__all__ = [
    "ConfigError",
    "FrozenPrefix",
    "Message",
    "MissingKeyError",
    "PrefixError",
    "PrefixlockError",
    "Price",
    "PriceTable",
    "ProviderError",
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
    "parse_usage",
    "tool",
]
