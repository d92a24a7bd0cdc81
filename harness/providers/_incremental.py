"""The incremental part of request building: per-message wire dicts and cache units, computed
once and reused, so a turn costs the new content, not the whole context.

A builder turns each transcript message into wire dicts and unit data once (memoized on the
frozen Message). The chained hashes depend on everything before them, so they live here, in a
memo of the last transcript built: messages that are the same objects as last time, after the
same prefix, keep their units; only the rest is hashed. Editing the past is a fork, which gives
new Message objects from the fork point on, so the identity check is enough; the transcript
built last, grown since, is known to hold the memo's messages first (a transcript only grows),
so only what was pending then is checked. The units are packed (prefixlock.cache.packed_units),
and a builder whose wire dicts are made again when a body is read (Anthropic's:
prefixlock.providers.lazy_body) does not keep them.

Bodies share these per-message dicts between requests (that is what makes building cheap):
treat a `WireRequest.body` as read-only, and copy before changing anything in it.

`IncrementalBuilder` is what every builder shares: the order of a build (settings, the prefix's
part, the transcript's, then the body) and a few prefix parts kept by key.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..cache.packed_units import UnitBuffer, as_tuple
from ..cache.units import Unit
from ..canonical import chain_hash
from ..prefix import FrozenPrefix
from ..settings import Settings
from ..transcript import Message, Transcript
from ..wire import WireRequest
from .base import SessionInfo


@dataclass(frozen=True, slots=True)
class MessageParts:
    """One message on the wire: its wire dicts and the tokens of each of its cache units (all
    in the "messages" section), `extra` tokens added to each (a role's marker).

    The bytes each unit hashes are made from the wire dicts when the chain is computed
    (`unit_data`), not kept: memoized on the message for the life of the conversation, they
    held its content a second and a third time (a long chat's memory grew by them every turn).
    The counts may be the message's own `block_tokens` (with the role's tokens as `extra`):
    a (section, tokens) pair per unit cost ~90 bytes a block, kept for the conversation's life.
    """

    wire: tuple[Mapping[str, Any], ...]
    tokens: tuple[int, ...]  # per unit, less `extra`
    # The bytes each unit hashes, from `wire` (a module-level function: no reference back).
    encode: Callable[[tuple[Mapping[str, Any], ...]], Sequence[bytes]]
    extra: int = 0

    def unit_data(self) -> Sequence[bytes]:
        """The bytes of each unit, in order, made now."""
        return self.encode(self.wire)


class ChainMemo:
    """Units and wire dicts of the last transcript built after one prefix (`seed`)."""

    __slots__ = (
        "_base_pos",
        "_base_total",
        "_convert",
        "_ends",
        "_messages",
        "_seed",
        "_source",
        "_source_n",
        "_units",
        "_wire",
        "_wire_ends",
        "keep_wire",
    )

    def __init__(self, convert: Callable[[Message], MessageParts], keep_wire: bool = True) -> None:
        self._convert = convert
        # Whether the memo keeps each message's wire dicts (`wire`): a builder that makes them
        # again when read (Anthropic's, one a message: prefixlock.providers.lazy_body) does not.
        self.keep_wire = keep_wire
        self._seed = ""
        self._base_pos = 0
        self._base_total = 0
        self._messages: list[Message] = []
        # Packed (prefixlock.cache.packed_units): a Unit object a block, in this list and in the
        # newest request's tuple, cost ~100 bytes a block for the conversation's life.
        self._units = UnitBuffer()
        # Offsets packed as machine ints: an int object a message (past 256) and its list slot
        # cost 36 bytes for the conversation's life, these 8.
        self._ends = array("q")  # len(self._units) after message i
        self._wire: list[Mapping[str, Any]] = []
        self._wire_ends = array("q")
        # The transcript built last and its length then (None: a plain sequence): what it
        # held then is the memo's first messages, as a transcript only grows.
        self._source: Transcript | None = None
        self._source_n = 0

    def sync(
        self,
        messages: Transcript | Sequence[Message],
        pending: Sequence[Message],
        seed: str,
        base_pos: int,
        base_total: int,
    ) -> None:
        """Bring the memo up to `messages` + `pending` after a prefix whose chain is `seed`."""
        if (seed, base_pos, base_total) != (self._seed, self._base_pos, self._base_total):
            self._seed, self._base_pos, self._base_total = seed, base_pos, base_total
            self._truncate(0)
        keep = self._shared(messages)
        if keep < len(self._messages):
            self._truncate(keep)
        n = len(messages)
        for i in range(keep, n):
            self._add(messages[i])
        for m in pending:
            self._add(m)
        if isinstance(messages, Transcript):
            self._source, self._source_n = messages, n
        else:
            self._source, self._source_n = None, 0

    def _shared(self, messages: Transcript | Sequence[Message]) -> int:
        """How many leading messages the memo already holds: the same objects (Message compares
        by identity). Editing the past is a fork, which shares the objects before the fork
        point; a transcript of equal messages that are other objects (read back from a store)
        is built again, once."""
        mine = self._messages
        limit = min(len(mine), len(messages))
        if limit == 0:
            return 0
        keep = 0
        if messages is self._source and self._source_n <= limit:
            # The transcript built last time, grown since (a transcript only grows): its
            # first messages are the memo's, as they were; only the pending ones are checked.
            keep = self._source_n
        else:
            # List equality is the identity walk done in C.
            head = messages.messages if isinstance(messages, Transcript) else messages
            part = head[:limit]
            if mine[:limit] == (part if isinstance(part, list) else list(part)):
                return limit
        while keep < limit and mine[keep] is messages[keep]:
            keep += 1
        return keep

    def _add(self, m: Message) -> None:
        parts = self._convert(m)
        units = self._units
        chain = self.chain_after(len(self._messages))
        total = self.total_after(len(self._messages))
        extra = parts.extra
        for tokens, data in zip(parts.tokens, parts.unit_data(), strict=True):
            chain = chain_hash(chain, data)
            total += tokens + extra
            units.append(
                Unit("messages", self._base_pos + len(units), chain, tokens + extra, total)
            )
        self._messages.append(m)
        self._ends.append(len(units))
        if self.keep_wire:
            self._wire.extend(parts.wire)
            self._wire_ends.append(len(self._wire))

    def _truncate(self, n: int) -> None:
        self._units.truncate(self._ends[n - 1] if n else 0)
        if self.keep_wire:
            self._wire = self._wire[: self._wire_ends[n - 1]] if n else []
            del self._wire_ends[n:]
        # A copy, not a cut in place: a body's recipe holds the list as it was (lazy_body).
        self._messages = self._messages[:n]
        del self._ends[n:]

    def chain_after(self, n: int) -> str:
        """Chain through message n-1 (the seed for n == 0)."""
        return (
            self._units[self._ends[n - 1] - 1].chain
            if n and self._ends[n - 1]
            else (self._seed if n == 0 else self.chain_after(n - 1))
        )

    def total_after(self, n: int) -> int:
        if n == 0:
            return self._base_total
        end = self._ends[n - 1]
        return self._units[end - 1].end if end else self.total_after(n - 1)

    @property
    def messages(self) -> list[Message]:
        """The messages built last: the transcript, then the pending ones."""
        return self._messages

    @property
    def units(self) -> UnitBuffer:
        """The units of `messages`, in order (made as read)."""
        return self._units

    @property
    def wire(self) -> list[Mapping[str, Any]]:
        return self._wire

    def message_unit_range(self, i: int) -> tuple[int, int]:
        """Indexes into `units` of message i's units (start, stop)."""
        return (self._ends[i - 1] if i else 0), self._ends[i]

    def message_wire_range(self, i: int) -> tuple[int, int]:
        return (self._wire_ends[i - 1] if i else 0), self._wire_ends[i]


def with_breakpoint(unit: Unit, ttl: str) -> Unit:
    return unit.with_breakpoint(ttl)


class PrefixPart(Protocol):
    """What a builder's prefix part tells the memo: its units and where the messages start."""

    @property
    def units(self) -> tuple[Unit, ...]: ...

    @property
    def seed(self) -> str: ...  # the chain the first message unit extends

    @property
    def total(self) -> int: ...  # tokens before the first message unit


P = TypeVar("P", bound=PrefixPart)


@dataclass(frozen=True)
class Draft(Generic[P]):
    """A build's inputs to its body: the prefix part, the request settings the body carries
    (`head`), the session's settings and info, and the volatile texts."""

    part: P
    head: dict[str, Any]
    settings: Settings
    session: SessionInfo
    volatile: Sequence[str]


# body, units (a list, or a tuple kept as it is: prefixlock.cache.packed_units), cache key
Built = tuple[dict[str, Any], Sequence[Unit], str | None]


class IncrementalBuilder(Generic[P]):
    """A pure request builder: a subclass says how settings, the prefix and the body look on its
    wire API (`_head`, `_prefix_part`, `_body`); the transcript's part comes from a `ChainMemo`
    of its message conversion."""

    api: str
    path: str

    def __init__(
        self, model: str, convert: Callable[[Message], MessageParts], keep_wire: bool = True
    ) -> None:
        self.model = model
        self._chain = ChainMemo(convert, keep_wire)
        self._prefix_memo: dict[Hashable, P] = {}

    def build_request(
        self,
        prefix: FrozenPrefix,
        transcript: Transcript | Sequence[Message],
        settings: Settings,
        session: SessionInfo,
        volatile: Sequence[str] = (),
        pending: Sequence[Message] = (),
    ) -> WireRequest:
        """The request for the next turn: the transcript, then `pending` messages (not yet in
        the transcript). Pure: same inputs, same bytes."""
        head = self._head(settings)
        part = self._prefix_part(prefix, settings, head)
        self._chain.sync(transcript, pending, part.seed, len(part.units), part.total)
        body, units, cache_key = self._body(Draft(part, head, settings, session, volatile))
        return WireRequest(
            api=self.api,
            model=self.model,
            path=self.path,
            body=body,
            units=as_tuple(units),
            cache_key=cache_key,
            meta={"prefix": prefix.fingerprint, "session": session.id, "volatile": len(volatile)},
        )

    def _remembered(self, key: Hashable, make: Callable[[], P]) -> P:
        """The prefix part for `key`, made once: a session moves to a new prefix rarely, so a
        few are kept."""
        part = self._prefix_memo.get(key)
        if part is None:
            part = make()
            if len(self._prefix_memo) > 8:
                self._prefix_memo.clear()
            self._prefix_memo[key] = part
        return part

    # Subclasses define these.
    def _head(self, settings: Settings) -> dict[str, Any]:
        """The request settings the body carries (model-level fields)."""
        raise NotImplementedError

    def _prefix_part(self, prefix: FrozenPrefix, settings: Settings, head: dict[str, Any]) -> P:
        raise NotImplementedError

    def _body(self, draft: Draft[P]) -> Built:
        """The request's body, units and prompt cache key; `self._chain` is synced."""
        raise NotImplementedError
