"""Provider cache diagnostics on the wire: asking why a request missed, and where the answer is.

Opt-in (`Settings(cache_diagnostics=True)`). The session names its previous response; the
provider compares this request with it and reports a miss reason, which the guard carries as
`CacheBreak.provider_verdict` beside its own cause.

- Anthropic (beta, FACTS.md: model_changed, system_changed, tools_changed, messages_changed,
  previous_message_not_found, unavailable): request field `cache_diagnostics:
  {"previous_message_id": ...}` with the beta header below; the reason comes back in the
  message (`message_start` when streaming) as `diagnostics.cache_miss_reason.type`.
- OpenAI: request field `prompt_cache_diagnostics: {"comparison_id": <earlier response id>}`;
  the reason comes back as `prompt_cache_diagnostics.cache_miss_reason` on the response (the
  Responses object, or the chat completion's last stream chunk).

NOTE: these are beta features and the field and header names here are modelled on them, not
copied from a stable API reference: check them against the providers' current docs before
turning this on against a real API (the local emulator speaks exactly these names). The fields
are added by the transport, outside the request body the builder produced: they change on every
request and are not part of what the cache sees, so they never enter the stored wire body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ANTHROPIC_FIELD = "cache_diagnostics"
ANTHROPIC_REF = "previous_message_id"
ANTHROPIC_BETA = "cache-diagnostics-2026-07-01"  # check the current beta name in the docs
OPENAI_FIELD = "prompt_cache_diagnostics"
OPENAI_REF = "comparison_id"


def diagnostics_request(
    api: str, body: Mapping[str, Any], previous_id: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The body to send (a copy with the diagnostics field) and the extra headers."""
    out = dict(body)
    if api == "anthropic":
        out[ANTHROPIC_FIELD] = {ANTHROPIC_REF: previous_id}
        return out, {"anthropic-beta": ANTHROPIC_BETA}
    out[OPENAI_FIELD] = {OPENAI_REF: previous_id}
    return out, {}
