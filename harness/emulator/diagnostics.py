"""Cache diagnostics: the emulator's own verdict on why a request missed, when a client asks.

Anthropic's cache diagnostics and OpenAI's prompt cache diagnostics (Responses API, gpt-5.6 and
later) both compare a request with an earlier response, named by id, and say where the prompt
prefix diverged. The emulator answers both from what it remembers of each response it served to
a request that asked (model, and the section, chained hash and end of every cache unit), so the
reason is exact. Field names and shapes are those of prefixlock.providers.diagnostics (the
providers' documented ones):
- Anthropic request `diagnostics: {"previous_message_id": ...}`; response message
  `"diagnostics"`: null when nothing diverged, else `{"cache_miss_reason": {"type": ...,
  "cache_missed_input_tokens": N}}` (the token count only on the `*_changed` types).
- OpenAI request `prompt_cache_options.comparison_response_id`; response
  `"prompt_cache_diagnostics"`: `{"type": "cache_miss", "reason": ..., "cache_missed_tokens":
  N}`, `{"type": "cache_hit"}`, `{"type": "comparison_response_not_found"}` or
  `{"type": "unavailable"}`.
Like the providers, the comparison is of request structure: an unchanged prefix that still
missed (TTL, eviction, routing) is no divergence on Anthropic's side and `unavailable` on
OpenAI's. A change of request settings (thinking, tool_choice; OpenAI's effort, verbosity,
format) is reported as `unavailable`: the emulator does not tell which setting changed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cache.prefix import shared_units
from ..cache.units import Unit
from ..providers.diagnostics import (
    ANTHROPIC_FIELD,
    ANTHROPIC_REF,
    OPENAI_FIELD,
    OPENAI_OPTIONS,
    OPENAI_REF,
)

__all__ = [
    "ANTHROPIC_FIELD",
    "ANTHROPIC_REF",
    "OPENAI_FIELD",
    "OPENAI_REF",
    "DiagnosticsMemory",
    "Divergence",
    "anthropic_diagnostics",
    "openai_diagnostics",
    "requested_ref",
]

_ANTHROPIC_REASON = {
    "model": "model_changed",
    "tools": "tools_changed",
    "system": "system_changed",
    "messages": "messages_changed",
    "settings": "unavailable",  # thinking / tool_choice: the API gives no diagnosis
    "not_found": "previous_message_not_found",
    "unavailable": "unavailable",
}
_OPENAI_REASON = {
    "model": "model_changed",
    "tools": "tools_changed",
    "system": "input_changed",  # instructions and developer/system messages are input
    "messages": "input_changed",
}


@dataclass(frozen=True)
class Divergence:
    """Where a request left the one it was compared with: the level that changed (model,
    tools, system, settings, messages), `not_found`, `unavailable` (no change found, yet nothing
    was read), or `hit` (it extends the earlier request and read it); the tokens the two
    share before the divergence, and each one's total."""

    kind: str
    shared: int = 0
    before: int = 0  # the earlier request's input tokens
    now: int = 0  # this request's input tokens


@dataclass(frozen=True)
class _Seen:
    model: str
    units: tuple[Unit, ...]
    tokens: int


def requested_ref(body: Mapping[str, Any], field: str, ref: str) -> tuple[bool, str | None]:
    """(asked for diagnostics, the referenced id) from a request body. `field` is the
    provider's diagnostics field (OpenAI's request carries the reference in
    `prompt_cache_options`, its response answers in `prompt_cache_diagnostics`)."""
    value = body.get(OPENAI_OPTIONS if field == OPENAI_FIELD else field)
    if not isinstance(value, Mapping) or ref not in value:
        return False, None
    got = value.get(ref)
    return True, (str(got) if got else None)


class DiagnosticsMemory:
    """What the emulator served to requests that asked for diagnostics, by response id (the
    most recent `limit`): a client that turns diagnostics on asks on every request. Used under
    the server's lock, as the rest of the emulator's state is."""

    def __init__(self, limit: int = 4096) -> None:
        self._seen: OrderedDict[str, _Seen] = OrderedDict()
        self._limit = limit

    def remember(self, response_id: str, model: str, units: Sequence[Unit]) -> None:
        seen = _Seen(model, tuple(units), units[-1].end if units else 0)
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
    ) -> Divergence | None:
        """Where this request diverged from `ref`'s (None: there is nothing to compare with,
        as on a session's first request, which names no response)."""
        if not ref:
            return None
        prev = self._seen.get(ref)
        if prev is None:
            return Divergence("not_found")
        now_total = units[-1].end if units else 0
        if prev.model != model:
            return Divergence("model", 0, prev.tokens, now_total)
        i = shared_units(prev.units, units)
        if i < len(prev.units):
            # The first unit that differs names the level that changed.
            level = units[i].section if i < len(units) else prev.units[i].section
            return Divergence(level, prev.units[i - 1].end if i else 0, prev.tokens, now_total)
        # The request extends the earlier one: a miss here is the cache's (TTL, eviction,
        # routing), which the diagnostics cannot attribute to a change.
        if read_tokens == 0 and prev.tokens >= min_cacheable:
            return Divergence("unavailable")
        return Divergence("hit")


def anthropic_diagnostics(ref: str | None, divergence: Divergence | None) -> dict[str, Any] | None:
    """The message's `diagnostics` (None: null, nothing diverged)."""
    if divergence is None or divergence.kind in ("hit", "unavailable"):
        return None  # an unchanged request is no divergence, whether or not it was read
    reason: dict[str, Any] = {"type": _ANTHROPIC_REASON[divergence.kind]}
    if reason["type"].endswith("_changed"):
        # What would have been read had the prefix matched: the earlier request past the change.
        reason["cache_missed_input_tokens"] = divergence.before - divergence.shared
    return {"cache_miss_reason": reason}


def openai_diagnostics(ref: str | None, divergence: Divergence | None) -> dict[str, Any]:
    """The response's `prompt_cache_diagnostics`."""
    if divergence is None or divergence.kind == "hit":
        return {"type": "cache_hit"} if divergence is not None else {"type": "unavailable"}
    if divergence.kind == "not_found":
        return {"type": "comparison_response_not_found"}
    reason = _OPENAI_REASON.get(divergence.kind)
    if reason is None:
        return {"type": "unavailable"}
    return {
        "type": "cache_miss",
        "reason": reason,
        "cache_missed_tokens": max(divergence.now - divergence.shared, 0),  # after the change
        "comparison_reusable_tokens": divergence.before,
    }
