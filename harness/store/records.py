"""The store's record types: a request to write (`NewRequest`), and what reads give back: a
request with its exact body (`StoredRequest`), a request's figures without it (`UsageRow`), a
session's row with its summary figures (`SessionRecord`), and all a resume needs
(`LoadedSession`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..billing.usage import Usage


@dataclass(frozen=True)
class StoredRequest:
    """One request as the store keeps it (the exact body, rebuilt from its blobs)."""

    session_id: str
    seq: int
    turn: int
    kind: str  # turn | ping | summary | abandoned
    time: float
    provider: str
    api: str
    model: str
    path: str
    body: dict[str, Any]
    usage: Usage
    raw_usage: dict[str, Any]
    cost: Decimal | None
    cost_without_cache: Decimal | None
    cache_key: str | None
    predicted_read: int | None = None
    cause: str | None = None
    rebilled: int = 0
    detail: str = ""

    def trace(self) -> dict[str, Any]:
        """This request as one line of the JSONL trace format (docs/design.md#jsonl-traces)."""
        return {
            "session_id": self.session_id,
            "seq": self.seq,
            "time": self.time,
            "provider": self.provider,
            "api": self.api,
            "model": self.model,
            "path": self.path,
            "body": self.body,
            "usage": self.usage.to_dict(),
            "raw_usage": self.raw_usage,
            "cost": None if self.cost is None else str(self.cost),
            "cache_key": self.cache_key,
        }


@dataclass(frozen=True)
class UsageRow:
    """One request's figures without its body: what a resumed ledger is rebuilt from."""

    seq: int
    turn: int
    kind: str  # turn | ping | summary | abandoned
    time: float
    model: str
    api: str
    usage: Usage
    cost: Decimal | None
    cost_without_cache: Decimal | None
    predicted_read: int | None
    cause: str | None
    rebilled: int


@dataclass(frozen=True)
class NewRequest:
    """A request to record: what was sent and what came back."""

    kind: str
    time: float
    provider: str
    api: str
    model: str
    path: str
    body: Mapping[str, Any]
    usage: Usage
    cost: Decimal | None = None
    cost_without_cache: Decimal | None = None
    cache_key: str | None = None
    predicted_read: int | None = None
    cause: str | None = None
    rebilled: int = 0
    detail: str = ""


@dataclass(frozen=True)
class SessionRecord:
    """A session's row plus summary figures."""

    id: str
    created: float
    updated: float
    model: str
    api: str
    provider: str
    prefix_fingerprint: str
    epoch: int
    turns: int
    requests: int
    cost: Decimal
    cache_read: int
    input_total: int
    settings: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def hit_rate(self) -> float:
        return self.cache_read / self.input_total if self.input_total else 0.0


@dataclass(frozen=True)
class LoadedSession:
    """Everything needed to resume: the current prefix, transcript, model and settings."""

    record: SessionRecord
    prefix: dict[str, Any]  # FrozenPrefix.to_dict()
    messages: list[dict[str, Any]]  # Message.to_dict() of the current epoch, in order
    last_request: StoredRequest | None  # the last request of the current epoch
    # The turn that wrote each message of `messages` (a turn without requests, such as a
    # code-path delegation, adds messages after the last request).
    message_turns: list[int] = field(default_factory=list)
    # When the current epoch has sent nothing yet: the session's requests before it (pings
    # included) that may still hold cache entries, oldest first, ending with the last one
    # sent (a compaction's summary request, the last one before a tool or prefix change).
    earlier_requests: list[StoredRequest] = field(default_factory=list)
