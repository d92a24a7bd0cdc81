"""Cache diagnostics: the emulator's own verdict on why a request missed, when a client asks.

Anthropic has a beta cache-diagnostics feature (FACTS.md): a request names the previous message
and the response says why the cache missed against it: model_changed, system_changed,
tools_changed, messages_changed, previous_message_not_found, or unavailable. OpenAI can compare a
response with an earlier one by id. The emulator answers both from what it remembers of each
response it served (model, and the chained hash of every cache unit), so the reason is exact.

The request and response field names are those of harness.providers.diagnostics (modelled on
the betas; check them against the providers' current docs before relying on them):
- Anthropic response message: `"diagnostics": {"cache_miss_reason": {"type": ...} | null,
  "previous_message_id": ...}`.
- OpenAI response (the Responses object, the chat completion and its last stream chunk):
  `"prompt_cache_diagnostics": {"comparison_id": ..., "cache_miss_reason": ... | null}`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cacheunits import Unit
from ..providers.diagnostics import ANTHROPIC_FIELD, ANTHROPIC_REF, OPENAI_FIELD, OPENAI_REF

__all__ = [
    "ANTHROPIC_FIELD",
    "ANTHROPIC_REF",
    "OPENAI_FIELD",
    "OPENAI_REF",
    "DiagnosticsMemory",
    "anthropic_diagnostics",
    "openai_diagnostics",
    "requested_ref",
]

_SECTION_REASON = {
    "tools": "tools_changed",
    "system": "system_changed",
    "messages": "messages_changed",
    "settings": "settings_changed",  # OpenAI prefix settings (tools order, effort, format...)
}


@dataclass(frozen=True)
class _Seen:
    model: str
    chains: tuple[tuple[str, str], ...]  # (section, chain) of every unit
    tokens: int


def requested_ref(body: Mapping[str, Any], field: str, ref: str) -> tuple[bool, str | None]:
    """(asked for diagnostics, the referenced id) from a request body."""
    value = body.get(field)
    if not isinstance(value, Mapping):
        return False, None
    got = value.get(ref)
    return True, (str(got) if got else None)


class DiagnosticsMemory:
    """What the emulator served to requests that asked for diagnostics, by response id (the
    most recent `limit`): a client that turns diagnostics on asks on every request."""

    def __init__(self, limit: int = 4096) -> None:
        self._seen: OrderedDict[str, _Seen] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def remember(self, response_id: str, model: str, units: Sequence[Unit]) -> None:
        seen = _Seen(
            model,
            tuple((u.section, u.chain) for u in units),
            units[-1].end if units else 0,
        )
        with self._lock:
            self._seen[response_id] = seen
            while len(self._seen) > self._limit:
                self._seen.popitem(last=False)

    def verdict(
        self,
        ref: str | None,
        model: str,
        units: Sequence[Unit],
        read_tokens: int,
        min_cacheable: int,
    ) -> str | None:
        """Why this request missed what `ref`'s request had cached (None: it did not miss, or
        there is nothing to compare with: the session's first request names no message)."""
        if not ref:
            return None
        with self._lock:
            prev = self._seen.get(ref) if ref else None
        if prev is None:
            return "previous_message_not_found"
        if prev.model != model:
            return "model_changed"
        for i, (section, chain) in enumerate(prev.chains):
            if i >= len(units):
                return _SECTION_REASON.get(section, "messages_changed")
            if units[i].chain != chain:
                # The first unit that differs names the level that changed.
                return _SECTION_REASON.get(units[i].section, "messages_changed")
        # The request extends the earlier one: a miss here is the cache's (TTL, eviction,
        # routing), which the diagnostics cannot attribute to a change.
        if read_tokens == 0 and prev.tokens >= min_cacheable:
            return "unavailable"
        return None


def anthropic_diagnostics(ref: str | None, reason: str | None) -> dict[str, Any]:
    return {
        "previous_message_id": ref,
        "cache_miss_reason": None if reason is None else {"type": reason},
    }


def openai_diagnostics(ref: str | None, reason: str | None) -> dict[str, Any]:
    return {"comparison_id": ref, "cache_miss_reason": reason}
