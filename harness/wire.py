"""WireRequest: one request exactly as it will be sent, with its cache units.

Built by a provider's pure request builder, checked by the cache guard, sent by the transport,
and stored byte-exact by the session store. Units are usually computed incrementally by the
builder (only the new content of a turn is hashed); `prefixlock.cache.units` recomputes them from
scratch and both must agree.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .cache.units import Unit, anthropic_units, openai_units
from .canonical import canonical_bytes


@dataclass(frozen=True, eq=False)
class WireRequest:
    """A request body for one wire API, plus what the cache sees of it."""

    api: str  # anthropic | openai-chat | openai-responses | openai-compat
    model: str
    path: str  # /v1/messages, /v1/chat/completions, /v1/responses
    body: Mapping[str, Any]
    units: tuple[Unit, ...] = ()
    cache_key: str | None = None  # OpenAI prompt_cache_key, when sent
    meta: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def body_bytes(self) -> bytes:
        """Canonical bytes of the body: what the store keeps and the guard compares."""
        return canonical_bytes(self.body)

    @property
    def input_tokens(self) -> int:
        """Input tokens by the local tokenizer (the provider's count wins when reported)."""
        return self.units[-1].end if self.units else 0

    def recomputed_units(self) -> tuple[Unit, ...]:
        """Units from scratch (slow path), for checking the incremental ones."""
        if self.api == "anthropic":
            return tuple(anthropic_units(self.body))
        return tuple(openai_units(self.body))

    def breakpoints(self) -> list[Unit]:
        """The units that carry a cache breakpoint."""
        return [u for u in self.units if u.breakpoint is not None]
