"""A model's cache figures: how long its entries live and the shortest prompt it caches.

The price table is the one source of both for a known model (`Price.cache_ttl_seconds`,
`Price.min_cacheable_tokens`): they differ per model (Anthropic's 5 minutes, OpenAI's in-memory
retention, gpt-5.6's 30-minute breakpoints, DeepSeek's hours), a user's price file may change
them, and the emulator bills with them. A model without a price entry, or an entry without the
field, gets `UNPRICED_TTL_SECONDS` (Anthropic's default TTL) and `UNPRICED_MIN_TOKENS` (OpenAI's
minimum). What a request's own labels mean (a `cache_control` TTL, a breakpoint TTL, a
retention) is each provider's rule: `anthropic.ttl_seconds`, `openai.TTL_SECONDS`,
`openai.retention_seconds`. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from typing import Protocol

from . import anthropic, openai

UNPRICED_TTL_SECONDS = int(anthropic.ttl_seconds(None))
UNPRICED_MIN_TOKENS = openai.MIN_TOKENS


class PricedModel(Protocol):
    """What these read of a price entry (`prefixlock.billing.prices.Price`)."""

    @property
    def cache_ttl_seconds(self) -> int: ...

    @property
    def min_cacheable_tokens(self) -> int: ...


def model_ttl(price: PricedModel | None) -> int:
    """Seconds an entry of `price`'s model lives when the request names no TTL of its own."""
    return UNPRICED_TTL_SECONDS if price is None else price.cache_ttl_seconds


def model_min_tokens(price: PricedModel | None) -> int:
    """The shortest prefix `price`'s model caches."""
    return UNPRICED_MIN_TOKENS if price is None else price.min_cacheable_tokens
