"""One normalized `Usage` for every provider, and the parsers that get each formula right.

Anthropic's three input counters are disjoint (uncached + cache write + cache read = total).
OpenAI's `prompt_tokens` / `input_tokens` INCLUDE the cached tokens, and DeepSeek splits its
prompt into hit and miss. Mixing the two formulas is the classic way to report a wrong hit rate,
so every parser lands in the same disjoint fields here.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Token counts of one request, disjoint: input = uncached + cache_read + cache_write."""

    uncached_input: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    output: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def cache_write(self) -> int:
        """Tokens written to the cache, both TTLs."""
        return self.cache_write_5m + self.cache_write_1h

    @property
    def input_total(self) -> int:
        """All input tokens: read, written and uncached."""
        return self.uncached_input + self.cache_read + self.cache_write

    @property
    def hit_rate(self) -> float:
        """Share of this request's input that was read from the cache."""
        total = self.input_total
        return self.cache_read / total if total else 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.uncached_input + other.uncached_input,
            self.cache_read + other.cache_read,
            self.cache_write_5m + other.cache_write_5m,
            self.cache_write_1h + other.cache_write_1h,
            self.output + other.output,
        )

    def to_dict(self) -> dict[str, int]:
        """Plain data (JSON-ready)."""
        return {
            "uncached_input": self.uncached_input,
            "cache_read": self.cache_read,
            "cache_write_5m": self.cache_write_5m,
            "cache_write_1h": self.cache_write_1h,
            "output": self.output,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], raw: Mapping[str, Any] | None = None) -> Usage:
        """A Usage from `to_dict()` output."""
        return cls(
            int(data.get("uncached_input", 0)),
            int(data.get("cache_read", 0)),
            int(data.get("cache_write_5m", 0)),
            int(data.get("cache_write_1h", 0)),
            int(data.get("output", 0)),
            dict(raw or {}),
        )


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def as_mapping(raw: Any) -> dict[str, Any]:
    """A plain dict from an SDK usage object (pydantic model) or a mapping."""
    if isinstance(raw, Mapping):
        return dict(raw)
    dump = getattr(raw, "model_dump", None)
    if callable(dump):
        result = dump()
        if isinstance(result, dict):
            return result
    return {}


def from_anthropic(raw: Any) -> Usage:
    """Anthropic Messages `usage`: disjoint counters, optional 5m/1h split of writes."""
    u = as_mapping(raw)
    creation = _int(u.get("cache_creation_input_tokens"))
    split = u.get("cache_creation")
    w5 = _int(_get(split, "ephemeral_5m_input_tokens")) if split else creation
    w1 = _int(_get(split, "ephemeral_1h_input_tokens")) if split else 0
    if split and w5 + w1 != creation:
        w5 = creation - w1  # trust the total; the split only says where it went
    return Usage(
        uncached_input=_int(u.get("input_tokens")),
        cache_read=_int(u.get("cache_read_input_tokens")),
        cache_write_5m=w5,
        cache_write_1h=w1,
        output=_int(u.get("output_tokens")),
        raw=u,
    )


def from_openai_chat(raw: Any) -> Usage:
    """Chat Completions `usage`: prompt_tokens includes cached (and written) tokens.

    DeepSeek's `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` are used when present.
    """
    u = as_mapping(raw)
    prompt = _int(u.get("prompt_tokens"))
    if "prompt_cache_hit_tokens" in u or "prompt_cache_miss_tokens" in u:
        hit = _int(u.get("prompt_cache_hit_tokens"))
        miss = _int(u.get("prompt_cache_miss_tokens"))
        output = _int(u.get("completion_tokens"))
        return Usage(uncached_input=miss, cache_read=hit, output=output, raw=u)
    details = u.get("prompt_tokens_details") or {}
    cached = _int(_get(details, "cached_tokens"))
    written = _int(_get(details, "cache_write_tokens"))
    return Usage(
        uncached_input=max(prompt - cached - written, 0),
        cache_read=cached,
        cache_write_5m=written,
        output=_int(u.get("completion_tokens")),
        raw=u,
    )


def from_openai_responses(raw: Any) -> Usage:
    """Responses API `usage`: input_tokens includes input_tokens_details.cached_tokens.

    gpt-5.6 and later also report `cache_write_tokens` and may split it by entry lifetime in
    `cache_write_tokens_details` (`ttl_30m_tokens`, `ttl_12h_tokens`; the openai SDK's
    `ResponseUsage`). The price table has one OpenAI write fee, so both land in
    `cache_write_5m` (the split stays in `raw`); the split stands in for a missing total, and a
    total that disagrees with it wins, as with Anthropic's 5m/1h split."""
    u = as_mapping(raw)
    details = u.get("input_tokens_details") or {}
    cached = _int(_get(details, "cached_tokens"))
    written = _int(_get(details, "cache_write_tokens"))
    split = _get(details, "cache_write_tokens_details")
    if split and _get(details, "cache_write_tokens") is None:
        written = _int(_get(split, "ttl_30m_tokens")) + _int(_get(split, "ttl_12h_tokens"))
    return Usage(
        uncached_input=max(_int(u.get("input_tokens")) - cached - written, 0),
        cache_read=cached,
        cache_write_5m=written,
        output=_int(u.get("output_tokens")),
        raw=u,
    )


PARSERS = {
    "anthropic": from_anthropic,
    "openai-chat": from_openai_chat,
    "openai-compat": from_openai_chat,
    "openai-responses": from_openai_responses,
}


def parse_usage(api: str, raw: Any) -> Usage:
    """Normalize a raw usage object for the wire API `api` (a key of PARSERS)."""
    try:
        return PARSERS[api](raw)
    except KeyError:
        raise ValueError(f"no usage parser for API {api!r}") from None
