"""Typed session settings: cache TTL, output and loop limits, OpenAI retention, retries.

Settings that change what the provider caches (TTL, retention) are part of the request the pure
builder produces; loop limits and retries only steer the agent loop and the transport.
`settings_dict` / `settings_from` are their stored form (a session's row, a quote's target).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from .billing.money import parse_dollars
from .cache import anthropic, openai
from .cache.units import OPENAI_CACHE_MODES, OPENAI_DEFAULT_MODE
from .cache.units import OpenAICacheMode as OpenAICacheMode
from .errors import ConfigError

TTL = anthropic.TTL


@dataclass(frozen=True)
class Settings:
    """Everything a session needs besides the prefix and the model.

    `ttl` is the lifetime of Anthropic cache entries written at conversation breakpoints;
    `prefix_ttl` (default: the same) the lifetime of those on the tools and system prompt.
    `history_ttl` (default: none) puts one more breakpoint, at this TTL, on the conversation's
    last assistant message: what the previous request held, plus its reply, written at a longer
    TTL than the new tail (prefixlock.guard.turn_end decides when). Anthropic requires longer
    TTLs before shorter ones, so a 1h conversation with a 5m prefix is refused.
    `retention` is OpenAI's `prompt_cache_retention` (None: not sent; never sent to gpt-5.6
    and later, where `prompt_cache_options.ttl` supersedes it and OpenAI refuses both).

    gpt-5.6 and later cache only at breakpoints. `openai_cache_mode` is their
    `prompt_cache_options.mode`: "implicit" (default) keeps OpenAI's own breakpoint at the end of
    the newest input message; "explicit" drops it, so only the breakpoints prefixlock places are
    written (no write for volatile text). `openai_breakpoints` places those: one at the end of
    the system prompt (after tools and instructions, the stable boundary) and one on the last
    stable message when something volatile follows it or the mode is explicit. False in
    implicit mode is OpenAI's default behaviour; explicit mode needs them (it would cache
    nothing).
    """

    ttl: TTL = anthropic.DEFAULT_TTL
    prefix_ttl: TTL | None = None
    history_ttl: TTL | None = None
    max_tokens: int = 4096
    max_turns: int = 25  # model requests per `send()`
    max_dollars: Decimal | None = None  # stop the loop once the session cost reaches this
    retention: str | None = None
    send_cache_key: bool = True  # OpenAI / compatible: send a per-session prompt_cache_key
    retries: int = 4  # retries after the first attempt (0: none)
    retry_max_wait: float = 60.0  # cap on a single wait, retry-after included
    timeout: float = 600.0  # seconds per request
    temperature: float | None = None
    # Reasoning effort (low | medium | high | ...), sent as Anthropic `output_config.effort`,
    # OpenAI `reasoning_effort` (chat) or `reasoning.effort` (responses). Changing it changes
    # the cached prefix (the message level on Anthropic, everything on OpenAI): the guard
    # prices that before it happens.
    effort: str | None = None
    # Ask the provider why each request missed the cache (Anthropic's cache diagnostics,
    # OpenAI's comparison with an earlier response id on the Responses API for gpt-5.6+; not
    # asked elsewhere): its verdict is carried beside the guard's own cause on each CacheBreak.
    # Off by default: it adds a field (and on Anthropic a beta header) to every request; the
    # documented names are in prefixlock.providers.diagnostics.
    cache_diagnostics: bool = False
    openai_cache_mode: OpenAICacheMode = OPENAI_DEFAULT_MODE
    openai_breakpoints: bool = True
    # Compact automatically (cache-aligned, prefixlock.guard.compaction) before a turn once the
    # context its requests are expected to reach (the last request and its reply, and what a
    # turn adds: compaction.turn_growth) fills this fraction of the model's context window, as
    # coding agents auto-compact, when compacting gets the context under it (never for a
    # prefix past it alone).
    # Quoted and budgeted like a compaction asked for by hand. None: never.
    compact_at: float | None = None

    def __post_init__(self) -> None:
        if self.compact_at is not None and not 0 < self.compact_at <= 1:
            raise ConfigError(
                f"compact_at must be a fraction of the context window in (0, 1], got "
                f"{self.compact_at!r}",
                where="settings.compact_at",
            )
        if self.openai_cache_mode not in OPENAI_CACHE_MODES:
            raise ConfigError(
                f"openai_cache_mode must be {' or '.join(OPENAI_CACHE_MODES)}, got "
                f"{self.openai_cache_mode!r}",
                where="settings.openai_cache_mode",
            )
        if self.openai_cache_mode == "explicit" and not self.openai_breakpoints:
            raise ConfigError(
                "explicit OpenAI cache mode without breakpoints caches nothing: keep "
                "openai_breakpoints on, or use the implicit mode",
                where="settings.openai_breakpoints",
            )
        ttls = " or ".join(anthropic.TTL_LABELS)
        if self.ttl not in anthropic.TTL_LABELS:
            raise ConfigError(f"ttl must be {ttls}, got {self.ttl!r}", where="settings.ttl")
        if self.prefix_ttl is not None and self.prefix_ttl not in anthropic.TTL_LABELS:
            raise ConfigError(
                f"prefix_ttl must be {ttls}, got {self.prefix_ttl!r}", where="settings.prefix_ttl"
            )
        if self.history_ttl is not None and self.history_ttl not in anthropic.TTL_LABELS:
            raise ConfigError(
                f"history_ttl must be {ttls}, got {self.history_ttl!r}",
                where="settings.history_ttl",
            )
        if anthropic.late_longer_ttl((self.effective_prefix_ttl, self.ttl)) is not None:
            raise ConfigError(
                "a 1h conversation TTL cannot follow a 5m prefix TTL (longer TTLs come first)",
                where="settings.ttl",
            )
        order = (self.effective_prefix_ttl, self.history_ttl or self.ttl, self.ttl)
        if anthropic.late_longer_ttl(order) is not None:
            raise ConfigError(
                "history_ttl must lie between prefix_ttl and ttl (longer TTLs come first)",
                where="settings.history_ttl",
            )
        if self.retention is not None and self.retention not in openai.RETENTIONS:
            raise ConfigError(
                f"retention must be {' or '.join(openai.RETENTIONS)}, got {self.retention!r}",
                where="settings.retention",
            )
        for name, least in (("max_tokens", 1), ("max_turns", 1), ("retries", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(
                    f"{name} must be a whole number, got {value!r}", where=f"settings.{name}"
                )
            if value < least:
                raise ConfigError(f"{name} must be at least {least}", where=f"settings.{name}")
        for name in ("timeout", "retry_max_wait"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ConfigError(
                    f"{name} must be a number of seconds, 0 or more, got {value!r}",
                    where=f"settings.{name}",
                )
        if self.timeout == 0:
            raise ConfigError("timeout must be more than 0 seconds", where="settings.timeout")
        if self.max_dollars is not None:
            dollars = parse_dollars(self.max_dollars, "settings.max_dollars", error=ConfigError)
            object.__setattr__(self, "max_dollars", dollars)

    @property
    def effective_prefix_ttl(self) -> TTL:
        """The TTL of the prefix's breakpoints (`prefix_ttl`, else `ttl`)."""
        return self.prefix_ttl or self.ttl

    def with_(self, **changes: Unpack[SettingsChanges]) -> Settings:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


class SettingsChanges(TypedDict, total=False):
    """Keyword arguments that change Settings fields (`with_`, `quote_effort`,
    `change_effort`): one key per field, typed as the field (a test keeps the two equal)."""

    ttl: TTL
    prefix_ttl: TTL | None
    history_ttl: TTL | None
    max_tokens: int
    max_turns: int
    max_dollars: Decimal | None
    retention: str | None
    send_cache_key: bool
    retries: int
    retry_max_wait: float
    timeout: float
    temperature: float | None
    effort: str | None
    cache_diagnostics: bool
    openai_cache_mode: OpenAICacheMode
    openai_breakpoints: bool
    compact_at: float | None


def settings_dict(settings: Settings) -> dict[str, Any]:
    """The settings as JSON-able data (dollars as text): stored with a session, fingerprinted
    in a quote's target."""
    out: dict[str, Any] = {}
    for f in fields(settings):
        v = getattr(settings, f.name)
        out[f.name] = str(v) if isinstance(v, Decimal) else v
    return out


def settings_from(data: Mapping[str, Any], base: Settings) -> Settings:
    """Settings stored with a session, over `base` (unknown fields are ignored)."""
    names = {f.name for f in fields(Settings)}
    changes = {k: v for k, v in data.items() if k in names}
    try:  # Settings parses max_dollars (stored as a string) itself
        return base.with_(**changes)
    except (TypeError, ValueError):
        return base
