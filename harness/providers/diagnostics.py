"""Provider cache diagnostics on the wire: asking why a request missed, and reading the answer.

Opt-in (`Settings(cache_diagnostics=True)`). The session names its previous response; the
provider compares this request with it and reports a miss reason, which the guard reads
(`prefixlock.guard.cacheguard.provider_verdict`) and carries as `CacheBreak.provider_verdict`
beside its own cause. Field names as the providers document them
(checked against the Anthropic and OpenAI Python SDKs' types, anthropic 2.14 / openai 3.57, and
the providers' cache-diagnostics guides, Dec 2026):

- Anthropic (cache diagnostics, beta header `cache-diagnosis-2026-04-07`): request field
  `diagnostics: {"previous_message_id": <previous msg_... id> | null}` (null on the first turn
  opts in with nothing to compare). The message (`message_start` when streaming) carries
  `diagnostics`: null when nothing diverged, else `{"cache_miss_reason": {"type": ...,
  "cache_missed_input_tokens": N}}` with type model_changed, system_changed, tools_changed,
  messages_changed, previous_message_not_found or unavailable (a null reason: still pending).
- OpenAI (Responses API, gpt-5.6 and later only): request field
  `prompt_cache_options.comparison_response_id` (beside the options' `mode` / `ttl`); the
  response carries `prompt_cache_diagnostics`: `{"type": "cache_miss", "reason": ...,
  "cache_missed_tokens": N}`, `{"type": "cache_hit"}`, `{"type":
  "comparison_response_not_found"}` or `{"type": "unavailable"}`. Chat Completions has no
  diagnostics, and older models refuse `prompt_cache_options`: nothing is asked there.

The fields are added by the transport to a copy of the body the builder produced: they change
on every request and are not part of what the cache sees, so they never enter the stored wire
body.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .lazy_body import copy_body

ANTHROPIC_FIELD = "diagnostics"  # request and response field
ANTHROPIC_REF = "previous_message_id"
ANTHROPIC_BETA = "cache-diagnosis-2026-04-07"
OPENAI_OPTIONS = "prompt_cache_options"  # the request field that holds the reference
OPENAI_REF = "comparison_response_id"
OPENAI_FIELD = "prompt_cache_diagnostics"  # the response field
_GPT = re.compile(r"^gpt-(\d+)(?:\.(\d+))?")


def supported(api: str, model: str) -> bool:
    """Can a request to `model` on `api` ask for cache diagnostics?"""
    if api == "anthropic":
        return True
    if api != "openai-responses":
        return False
    m = _GPT.match(model)
    return m is not None and (int(m[1]), int(m[2] or 0)) >= (5, 6)


def diagnostics_request(
    api: str, body: Mapping[str, Any], previous_id: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The body to send (a copy with the diagnostics field) and the extra headers; the body
    unchanged where the API or model has no diagnostics."""
    # A copy that keeps a body's message recipe (prefixlock.providers.lazy_body), as the
    # transport's own: `dict()` would make its list, a dict a message, for the whole request.
    out = copy_body(body)
    if not supported(api, str(body.get("model", ""))):
        return out, {}
    if api == "anthropic":
        out[ANTHROPIC_FIELD] = {ANTHROPIC_REF: previous_id}
        return out, {"anthropic-beta": ANTHROPIC_BETA}
    options = body.get(OPENAI_OPTIONS)
    kept = options if isinstance(options, Mapping) else {}  # gpt-5.6's mode / ttl stay
    out[OPENAI_OPTIONS] = {**kept, OPENAI_REF: previous_id}
    return out, {}
