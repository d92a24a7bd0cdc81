"""What every provider shares: the session identity a request is built for, the reply a stream
ends with, the `Provider` protocol, and the per-message memo that keeps request building
incremental.

A provider has three parts kept apart: a pure request builder (prefix + transcript + settings ->
`WireRequest`), a transport (the official SDK's async client, streaming, our retries), and usage
parsing (`prefixlock.billing.usage`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..billing.usage import Usage
from ..cache.keys import family_key
from ..events import ProviderFault, TextDelta
from ..prefix import FrozenPrefix
from ..settings import Settings
from ..transcript import Message, Transcript
from ..wire import WireRequest


def cache_key_for(session_id: str) -> str:
    """The OpenAI `prompt_cache_key` of a session: derived from its id, so it never changes
    within the session and survives a resume, and reveals nothing of the id itself."""
    return "pl-" + hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class SessionInfo:
    """The session a request is built for. Only its cache key enters a request: its prefix
    family's (`family`, `shard`: prefixlock.cache.keys) when it has one, else its id's."""

    id: str
    family: str | None = None
    shard: int = 0

    @property
    def cache_key(self) -> str:
        """The `prompt_cache_key` sent for this session: its prefix family's (shared across
        sessions and resumes of one agent's frozen prefix), else one of its own."""
        if self.family is not None:
            return family_key(self.family, self.shard)
        return cache_key_for(self.id)


@dataclass(frozen=True)
class Reply:
    """A finished model response, normalized: content blocks in Anthropic's shape."""

    blocks: tuple[Mapping[str, Any], ...]
    stop_reason: str  # end_turn | tool_use | max_tokens | other provider-specific values
    usage: Usage
    raw_usage: Mapping[str, Any] = field(default_factory=dict)
    message_id: str | None = None
    # The response's cache-diagnostics fields as received, keyed by their response field name
    # (Anthropic `diagnostics`, OpenAI `prompt_cache_diagnostics`); empty when not asked for.
    # prefixlock.guard.cacheguard.provider_verdict reads the provider's miss reason from it.
    cache_diagnostics: Mapping[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "".join(str(b.get("text", "")) for b in self.blocks if b.get("type") == "text")

    def tool_uses(self) -> list[Mapping[str, Any]]:
        return [b for b in self.blocks if b.get("type") == "tool_use"]


StreamItem = TextDelta | ProviderFault | Reply


@dataclass
class AttemptProgress:
    """One attempt at streaming a request, as far as it got (the transport fills it in)."""

    parser: Any  # the stream parser: its `usage` dict holds what the provider reported so far
    started: bool = False  # the provider answered and began streaming: billed from here on
    finished: bool = False  # the attempt ended with its Reply
    text: list[str] = field(default_factory=list)  # the text deltas received
    events: int = 0  # well-formed events received (OpenAI bills from the first one on)

    @property
    def raw_usage(self) -> dict[str, Any]:
        """The usage the provider reported before the stream stopped ({} if none yet)."""
        return dict(getattr(self.parser, "usage", None) or {})


@dataclass
class StreamProgress:
    """What one request's stream has shown so far, attempt by attempt. The caller of
    `Provider.stream` reads it when the stream stops early (a break, a cancellation, a cut):
    a started attempt was billed although no Reply came."""

    attempts: list[AttemptProgress] = field(default_factory=list)

    def unfinished(self) -> list[AttemptProgress]:
        """Attempts the provider started but that never ended with a Reply."""
        return [a for a in self.attempts if a.started and not a.finished]


class Provider(Protocol):
    """A wire API: pure request building, transport, usage parsing."""

    api: str
    model: str

    def build_request(
        self,
        prefix: FrozenPrefix,
        transcript: Transcript | Sequence[Message],
        settings: Settings,
        session: SessionInfo,
        volatile: Sequence[str] = (),
        pending: Sequence[Message] = (),
    ) -> WireRequest: ...

    def stream(
        self, request: WireRequest, progress: StreamProgress | None = None
    ) -> AsyncIterator[StreamItem]: ...

    def parse_usage(self, raw: Any) -> Usage: ...

    async def aclose(self) -> None: ...


def messages_of(transcript: Transcript | Sequence[Message]) -> Sequence[Message]:
    return transcript.messages if isinstance(transcript, Transcript) else transcript


def memo(message: Message, key: str) -> Any:
    """A value cached on the (frozen) message for builder `key`, or None."""
    return message.memo(key)


def remember(message: Message, key: str, value: Any) -> Any:
    return message.remember(key, value)


def parse_tool_input(raw: str) -> dict[str, Any]:
    """A streamed tool call's JSON arguments as a dict. Malformed JSON (a cut-off call) or a
    non-object is kept under `__invalid_json__`, for the tool to refuse as an error."""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {"__invalid_json__": raw}
    return value if isinstance(value, dict) else {"__invalid_json__": raw}
