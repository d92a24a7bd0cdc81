"""The append-only conversation after the prefix.

Messages are provider-neutral (text, tool use, tool result blocks, in the shape of Anthropic's
content blocks) and frozen. A message holds its blocks once, as the JSON of its content list (the
bytes an SDK sends for them), and decodes them on each read into `FrozenDict`s, dicts that refuse
changes; an Anthropic request body sends those bytes as they are (a long chat held each block
twice: frozen, and thawed for the wire). The transcript only grows: editing the past is an
explicit `fork()`, which the cache guard reports as a rewritten history. Each message keeps its
token count, and the transcript the chained hash of each message's canonical bytes, computed
once, so that building the next request costs only the new content (the chain through the
last message only: a fork hashes again up to its point). The canonical bytes are made when
asked, not kept.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import FrozenInstanceError
from typing import Any, Literal, NoReturn

from .cache.media import unit_tokens
from .canonical import canonical_bytes, canonical_json, chain_digest

Role = Literal["user", "assistant"]


class FrozenDict(dict[str, Any]):
    """A dict that cannot be changed: a message's block and each mapping inside one.

    A dict rather than a read-only view of one, so that what takes a block as plain JSON data
    (JSON encoders, SDKs, a body's marked copy of a message) takes it as the dict it is.
    `copy()` and `dict(block)` give a plain, mutable dict."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a message's blocks are frozen: change a copy (dict(block))")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        # copy, deepcopy and pickle build a new one from its items (not item by item).
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self  # immutable: a copy is the same value

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self


def _freeze(value: Any) -> Any:
    if isinstance(value, FrozenDict):
        return value  # frozen all the way down already
    if isinstance(value, Mapping):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a frozen block (for handing to an SDK)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(id: str, name: str, input: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": dict(input)}


def tool_result_block(tool_use_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


# A message's content as an SDK encodes it (compact, the keys in their order, no ASCII escaping:
# the SDKs' `openapi_dumps`), and back.
_WIRE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _as_json(blocks: tuple[Mapping[str, Any], ...]) -> bytes | None:
    """The blocks' JSON, or None where decoding it would not give equal blocks back."""
    try:
        data = _WIRE.encode(blocks).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return None
    return data if _freeze(json.loads(data)) == blocks else None


def _rebuild(role: Role, content: Any, meta: tuple[Any, ...]) -> Message:
    message = Message(role, (), meta)
    object.__setattr__(message, "_content", content)
    return message


# How the JSON of a content list starts when its first block is a tool result (its "type" key
# first, as `tool_result_block` and the SDKs make it): a quote closes the value, so it is the
# whole of it.
_RESULT_FIRST = b'[{"type":"tool_result"'


# The counts of a one-block message, shared: a tuple of one a message cost ~60 bytes for the
# conversation's life; these cost ~30 KB once.
_ONE_BLOCK = tuple((n,) for n in range(512))


class Message:
    """One message: a role and its content blocks (frozen mappings).

    A message made by `make` (`user`, `assistant`, `from_dict`) holds its blocks as the JSON
    bytes of its content list, in the blocks' own key order (what an SDK sends for them), and
    `blocks` decodes them on each read: a long chat holds every message for its life, and as
    a tuple of frozen dicts a short block cost ~600 bytes beyond its text, the bytes ~40. The
    request body sends those bytes as they are (prefixlock.providers.wire_message). Blocks
    whose JSON would not give them back equal (a key that is not a string, a value JSON has no
    form for) are held as given, as is anything passed to the constructor itself."""

    __slots__ = ("_content", "_counts", "_meta", "role")

    role: Role
    # The blocks: a tuple (as given), or the JSON bytes of the content list (`make`).
    _content: tuple[Mapping[str, Any], ...] | bytes
    # What builders keep on the message, flat: (key, value, key, value, ...). Slots and a
    # tuple rather than an instance dict, a dict of memos and a cached property: a message
    # lives as long as the conversation, and those cost ~300 bytes each.
    _meta: tuple[Any, ...]
    _counts: tuple[int, ...] | None

    def __init__(
        self, role: Role, blocks: tuple[Mapping[str, Any], ...], _meta: tuple[Any, ...] = ()
    ) -> None:
        _set = object.__setattr__
        _set(self, "role", role)
        _set(self, "_content", blocks)
        _set(self, "_meta", _meta)
        _set(self, "_counts", None)

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # copy and pickle: the same role, content (bytes or blocks) and memos.
        return (_rebuild, (self.role, self._content, self._meta))

    @classmethod
    def make(cls, role: Role, content: str | Sequence[Mapping[str, Any]]) -> Message:
        """A message of `role` from text or content blocks (each needs a `type`)."""
        raw = [text_block(content)] if isinstance(content, str) else list(content)
        for block in raw:
            if "type" not in block:
                raise ValueError(f"content block without a type: {block!r}")
        blocks = tuple(_freeze(dict(b)) for b in raw)
        message = cls(role, blocks)
        data = _as_json(blocks)
        if data is not None:
            object.__setattr__(message, "_content", data)
        return message

    @classmethod
    def user(cls, content: str | Sequence[Mapping[str, Any]]) -> Message:
        """A user message."""
        return cls.make("user", content)

    @classmethod
    def assistant(cls, content: str | Sequence[Mapping[str, Any]]) -> Message:
        """An assistant message."""
        return cls.make("assistant", content)

    @property
    def blocks(self) -> tuple[Mapping[str, Any], ...]:
        """The content blocks, frozen (decoded from the message's bytes on each read: a new
        tuple of equal blocks each time; keep it rather than read it in a loop)."""
        content = self._content
        if isinstance(content, bytes):
            decoded: tuple[Mapping[str, Any], ...] = _freeze(json.loads(content))
            return decoded
        return content

    @property
    def has_blocks(self) -> bool:
        """Whether the message has any block (without decoding them)."""
        content = self._content
        return content != b"[]" if isinstance(content, bytes) else bool(content)

    def has_tool_result(self) -> bool:
        """Whether a block is a tool result. Known from the bytes, without decoding the blocks,
        where the first block is one (a tool result's message, read at every turn's end by the
        guard, can hold a whole file: decoding each one read cost ~70 us per 100 KB)."""
        content = self._content
        if isinstance(content, bytes) and content.startswith(_RESULT_FIRST):
            return True
        return any(b.get("type") == "tool_result" for b in self.blocks)

    def content_json(self) -> bytes:
        """The JSON of the content list as an SDK sends it: the blocks' own key order, compact
        separators, no ASCII escaping (the bytes the message holds, when it holds them)."""
        content = self._content
        if isinstance(content, bytes):
            return content
        return _WIRE.encode(content).encode("utf-8")

    def memo(self, key: str) -> Any:
        """What a builder kept on this message under `key` (None: nothing)."""
        meta = self._meta
        for i in range(0, len(meta), 2):
            if meta[i] == key:
                return meta[i + 1]
        return None

    def remember(self, key: str, value: Any) -> Any:
        """Keep `value` on this message under `key` (replacing what was there); returns it."""
        meta = self._meta
        kept = tuple(x for i in range(0, len(meta), 2) if meta[i] != key for x in meta[i : i + 2])
        object.__setattr__(self, "_meta", (*kept, key, value))
        return value

    # The bytes are made on each use, not kept: a message lives as long as the conversation,
    # and keeping its blocks' bytes and its whole bytes beside the blocks held a long chat's
    # content three times. They are asked for when a message is appended and when a request
    # is first built with it, not on every build (prefixlock.providers._incremental).
    @property
    def block_bytes(self) -> tuple[bytes, ...]:
        """Canonical bytes of each block (made on each call: not kept)."""
        return tuple(canonical_bytes(b) for b in self.blocks)

    @property
    def block_tokens(self) -> tuple[int, ...]:
        """Tokens of each block: text as text, an image or a document by Anthropic's
        documented rule (the blocks are in Anthropic's shape; prefixlock.cache.media).
        Counted on first use and kept."""
        counts = self._counts
        if counts is None:
            # Counted once, here: the tokenizer's memo need not keep a copy of the text.
            counts = tuple(
                unit_tokens(canonical_bytes(block), block, "anthropic", remember=False)
                for block in self.blocks
            )
            if len(counts) == 1 and counts[0] < len(_ONE_BLOCK):
                counts = _ONE_BLOCK[counts[0]]  # shared: most messages are one short block
            object.__setattr__(self, "_counts", counts)
        return counts

    @property
    def data(self) -> bytes:
        """Canonical bytes of the whole message: `{"content":[blocks],"role":role}`, put
        together from the blocks' bytes (canonical keys sort "content" before "role"); made on
        each call, not kept."""
        role = canonical_bytes(self.role)
        return b'{"content":[' + b",".join(self.block_bytes) + b'],"role":' + role + b"}"

    @property
    def tokens(self) -> int:
        """The message's size in tokens."""
        return sum(self.block_tokens)

    @property
    def text(self) -> str:
        """The message's text blocks joined (tool blocks left out)."""
        return "".join(str(b["text"]) for b in self.blocks if b.get("type") == "text")

    def tool_uses(self) -> list[Mapping[str, Any]]:
        """The tool calls this message makes."""
        return [b for b in self.blocks if b.get("type") == "tool_use"]

    def to_dict(self) -> dict[str, Any]:
        """Plain data in Anthropic's message shape."""
        return {"role": self.role, "content": [thaw(b) for b in self.blocks]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        """A Message from `to_dict()` output."""
        role = data.get("role")
        if role not in ("user", "assistant"):
            raise ValueError(f"message role must be user or assistant, got {role!r}")
        return cls.make(role, data.get("content", ""))

    def __repr__(self) -> str:
        return f"Message({self.role}, {canonical_json(self.to_dict())[:60]}...)"


class Transcript:
    """Append-only list of messages with a running chained hash (prefix identity)."""

    __slots__ = ("_chain", "_messages", "_tokens")

    def __init__(self, messages: Sequence[Message] = ()) -> None:
        self._messages: list[Message] = []
        # The chain's 16-byte digest through the last message (`chain()` gives the hex) and the
        # running token total: what every request reads. Not one a message: a chain and a
        # total kept for each grew a long chat 24 bytes a message for its life, for a chain
        # through an earlier message that only a fork asks for (made again then, `chain(upto)`).
        self._chain = b""
        self._tokens = 0
        for m in messages:
            self.append(m)

    def append(self, message: Message) -> None:
        """Add a message at the end (the past never changes)."""
        self._messages.append(message)
        self._chain = chain_digest(self._chain, message.data)
        self._tokens += message.tokens

    def extend(self, messages: Sequence[Message]) -> None:
        """Add messages at the end, in order."""
        for m in messages:
            self.append(m)

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(tuple(self._messages))

    def __getitem__(self, index: int) -> Message:
        return self._messages[index]

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages, in order."""
        return tuple(self._messages)

    @property
    def tokens(self) -> int:
        """The transcript's size in tokens."""
        return self._tokens

    def chain(self, upto: int | None = None) -> str:
        """Chained hash of the first `upto` messages (all by default); '' when empty. Through
        an earlier message than the last it is hashed again from the start (a fork's)."""
        n = len(self._messages) if upto is None else upto
        if n == len(self._messages):
            return self._chain.hex()
        return _chain_through(self._messages[:n]).hex()

    def fork(self, upto: int) -> Transcript:
        """A new transcript holding the first `upto` messages: the only way to edit the past."""
        if not 0 <= upto <= len(self._messages):
            raise IndexError(f"fork point {upto} outside 0..{len(self._messages)}")
        t = Transcript()
        t._messages = self._messages[:upto]
        t._chain = self._chain if upto == len(self._messages) else _chain_through(t._messages)
        t._tokens = sum(m.tokens for m in t._messages)  # the counts are kept on the messages
        return t


def _chain_through(messages: Sequence[Message]) -> bytes:
    """The chain's digest through `messages` (b"" for none)."""
    chain = b""
    for m in messages:
        chain = chain_digest(chain, m.data)
    return chain
