"""EmulatorConfig: how the local provider behaves (cache sizes, routing, faults, script).

A pydantic model so that a config file (YAML or JSON, `prefixlock serve --config FILE`) is checked
field by field: a mistake names the file and the field and the CLI exits 2. Every field has a
default that behaves like the real providers, so `EmulatorConfig()` is the cache-aware server.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..cache import anthropic, openai

FaultKind = Literal["429", "529", "500", "cut", "sse-error", "latency"]

if TYPE_CHECKING:
    from os import PathLike


class FaultSpec(BaseModel):
    """One fault to inject. `count` requests matching `path` (a prefix; empty = any) get it
    (0: none).

    `cut` drops the connection halfway through the body; `sse-error` streams half the events,
    then an `overloaded_error` as an SSE error event after HTTP 200 (non-streaming requests get
    a 529 instead).

    `after` skips that many matching requests first. `retry_after` (seconds, may be fractional:
    sent as both `retry-after` and `retry-after-ms`) applies to 429/529. `seconds` is the added
    latency for `latency` faults, measured on the emulator's clock.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    kind: FaultKind
    count: int = Field(default=1, ge=0)
    after: int = Field(default=0, ge=0)
    path: str = ""
    retry_after: float | None = Field(default=None, ge=0)
    seconds: float = Field(default=0.0, ge=0)


class AnthropicCacheConfig(BaseModel):
    """Anthropic's prompt cache: capacity per machine (entries, None = unbounded), eviction, and
    routing. One machine (the default) stands for a provider whose routing keeps a prefix where
    its cache is; several with `random` routing is a careless serving setup."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    machines: int = Field(default=1, gt=0)
    routing: Literal["prefix-hash", "random"] = "prefix-hash"
    capacity_blocks: int | None = Field(default=None, gt=0)
    policy: Literal["lru", "fifo", "lfu"] = "lru"
    lookback_blocks: int = Field(default=anthropic.LOOKBACK, gt=0)
    max_breakpoints: int = Field(default=anthropic.MAX_BREAKPOINTS, gt=0)


class OpenAICacheConfig(BaseModel):
    """OpenAI's automatic cache: machines, routing, per-machine capacity (128-token blocks)."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    machines: int = Field(default=4, gt=0)
    routing: Literal["prefix-hash", "random", "round-robin"] = "prefix-hash"
    capacity_blocks: int | None = Field(default=None, gt=0)
    policy: Literal["lru", "fifo", "lfu"] = "lru"
    block_tokens: int = Field(default=openai.BLOCK_TOKENS, gt=0)
    route_tokens: int = Field(default=256, gt=0)
    overflow_per_minute: int = Field(default=15, gt=0)


class EmulatorConfig(BaseModel):
    """The whole emulator configuration."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=0, ge=0, le=65535)
    seed: int = 0
    max_body_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    # A price file merged over the built-in table, and a script file (YAML or JSON; None = the
    # built-in session). In a config file, a relative path is relative to that file.
    prices: str | None = None
    script: str | None = None
    anthropic: AnthropicCacheConfig = Field(default_factory=lambda: AnthropicCacheConfig())
    openai: OpenAICacheConfig = Field(default_factory=lambda: OpenAICacheConfig())
    faults: list[FaultSpec] = Field(default_factory=list)
    stream_chunk_chars: int = Field(default=24, gt=0)  # text per SSE delta
    # Recorded requests kept in `Emulator.requests` (None: all; `prefixlock serve` keeps 1000).
    keep_requests: int | None = Field(default=None, gt=0)
    # Responses API state: stored responses and conversations kept (least recently used go
    # first; the real API keeps them 30 days, a long-running emulator cannot).
    stored_responses: int = Field(default=10_000, gt=0)
    # The server: worker threads (one per open connection, for as long as the client keeps it
    # open; a connection beyond them waits in the listen backlog until one is free), the listen
    # backlog, the seconds a client may take to send its request (or to read a response)
    # before it is dropped, and the seconds a kept-alive connection may sit idle between
    # requests. Both timeouts free the connection's worker.
    workers: int = Field(default=512, gt=0)
    backlog: int = Field(default=1024, gt=0)
    read_timeout_s: float = Field(default=60.0, gt=0)
    keepalive_timeout_s: float = Field(default=5.0, gt=0)

    @classmethod
    def crude(cls, **overrides: Any) -> EmulatorConfig:
        """A careless serving setup: random routing over 8 machines, little cache capacity."""
        base: dict[str, Any] = {
            "anthropic": {"machines": 4, "routing": "random", "capacity_blocks": 4},
            "openai": {"machines": 8, "routing": "random", "capacity_blocks": 400},
        }
        base.update(overrides)
        return cls.model_validate(base)

    @classmethod
    def load(cls, path: str | PathLike[str]) -> EmulatorConfig:
        """Read a YAML or JSON config file; errors name the file and the field."""
        from ._files import load_config  # reading files is kept out of this module

        return load_config(path)
